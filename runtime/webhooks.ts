import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { registerSecret } from '../api/redact';
import { registerUrlSecrets } from './env-secrets';
import { NOTIFICATION_EVENTS, type NotificationEventName } from '../contracts';
import type { ConfigIssue } from './config';

/** Where notifications go: signed JSON, or a Slack-compatible message to an incoming-webhook URL. */
export interface WebhookTarget {
  /** Names the target in logs and history; its URL never appears there (a Slack URL is a secret). */
  name: string;
  url: string;
  format: 'json' | 'slack';
  /** HMAC-SHA256 key for `X-Runbooks-Signature`; required for json. */
  secret?: string;
  /** Unset: every event. */
  events?: readonly NotificationEventName[];
}

export const SIGNATURE_HEADER = 'X-Runbooks-Signature';
export const DELIVERY_HEADER = 'X-Runbooks-Delivery';
export const EVENT_HEADER = 'X-Runbooks-Event';
const MIN_SECRET_LENGTH = 16;
const SEND_TIMEOUT_MS = 10_000;

type Env = Record<string, string | undefined>;

const Url = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
const Format = z.enum(['json', 'slack'], { error: "must be 'json' or 'slack'" });
// Messages never echo a secret's value.
const Secret = z.string().min(MIN_SECRET_LENGTH, `must be at least ${MIN_SECRET_LENGTH} characters`);
const Events = z
  .array(z.enum(NOTIFICATION_EVENTS, { error: `must name events among ${NOTIFICATION_EVENTS.join(', ')}` }))
  .min(1, 'must name at least one event');

const WebhookEnv = z.object({
  RUNBOOKS_WEBHOOK_URL: Url.optional(),
  RUNBOOKS_WEBHOOK_SECRET: Secret.optional(),
  RUNBOOKS_WEBHOOK_FORMAT: Format.default('json'),
  RUNBOOKS_WEBHOOK_EVENTS: z
    .string()
    .transform((v) => v.split(',').map((e) => e.trim()))
    .pipe(Events)
    .optional(),
  RUNBOOKS_WEBHOOKS_FILE: z.string().optional(),
});

const FileTarget = z
  .strictObject({
    name: z
      .string()
      .regex(/^[A-Za-z0-9][\w.-]{0,63}$/, 'letters, digits, ., - or _')
      .optional(),
    url: Url,
    format: Format.default('json'),
    secret: Secret.optional(),
    events: Events.optional(),
  })
  .refine((t) => t.format !== 'json' || t.secret !== undefined, {
    message: 'a json target needs a secret to sign with',
    path: ['secret'],
  });
const WebhooksFile = z.array(FileTarget);

const ENV_ONLY = ['RUNBOOKS_WEBHOOK_SECRET', 'RUNBOOKS_WEBHOOK_FORMAT', 'RUNBOOKS_WEBHOOK_EVENTS'] as const;

/**
 * The webhook targets of the environment: RUNBOOKS_WEBHOOK_URL with its _SECRET, _FORMAT and _EVENTS, or a JSON list
 * in RUNBOOKS_WEBHOOKS_FILE. None: notifications are off. Problems come back as issues (config/ throws them).
 */
export function webhookTargetsOf(
  env: Env,
  read: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): { targets: WebhookTarget[]; issues: ConfigIssue[] } {
  const given = Object.fromEntries(
    Object.entries(env).flatMap(([k, v]) => (v === undefined || v.trim() === '' ? [] : [[k, v.trim()]])),
  );
  const parsed = WebhookEnv.safeParse(given);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ variable: String(i.path[0]), message: i.message }));
    return { targets: [], issues };
  }
  const e = parsed.data;
  const file = e.RUNBOOKS_WEBHOOKS_FILE;
  if (file !== undefined) {
    const stray = ['RUNBOOKS_WEBHOOK_URL', ...ENV_ONLY].filter((k) => given[k] !== undefined);
    if (stray.length > 0) {
      const message = `set RUNBOOKS_WEBHOOKS_FILE or ${stray.join(', ')}, not both`;
      return { targets: [], issues: [{ variable: 'RUNBOOKS_WEBHOOKS_FILE', message }] };
    }
    return targetsOfFile(file, read);
  }
  if (e.RUNBOOKS_WEBHOOK_URL === undefined) {
    const stray = ENV_ONLY.filter((k) => given[k] !== undefined);
    return { targets: [], issues: stray.map((variable) => ({ variable, message: 'needs RUNBOOKS_WEBHOOK_URL' })) };
  }
  if (e.RUNBOOKS_WEBHOOK_FORMAT === 'json' && e.RUNBOOKS_WEBHOOK_SECRET === undefined) {
    const message = 'is required for json webhooks (they are signed with it); or set RUNBOOKS_WEBHOOK_FORMAT=slack';
    return { targets: [], issues: [{ variable: 'RUNBOOKS_WEBHOOK_SECRET', message }] };
  }
  const target: WebhookTarget = {
    name: 'webhook',
    url: e.RUNBOOKS_WEBHOOK_URL,
    format: e.RUNBOOKS_WEBHOOK_FORMAT,
    secret: e.RUNBOOKS_WEBHOOK_SECRET,
    events: e.RUNBOOKS_WEBHOOK_EVENTS,
  };
  return { targets: [registered(target)], issues: [] };
}

function targetsOfFile(path: string, read: (path: string) => string) {
  const fail = (message: string) => ({
    targets: [],
    issues: [{ variable: 'RUNBOOKS_WEBHOOKS_FILE', message: `${path}: ${message}` }],
  });
  let json: unknown;
  try {
    json = JSON.parse(read(path));
  } catch (err) {
    return fail((err as NodeJS.ErrnoException).code ?? (err instanceof SyntaxError ? 'not valid JSON' : 'unreadable'));
  }
  const parsed = WebhooksFile.safeParse(json);
  if (!parsed.success) {
    return fail(parsed.error.issues.map((i) => `${i.path.join('.') || '(file)'}: ${i.message}`).join('; '));
  }
  const targets = parsed.data.map((t, i) => ({ ...t, name: t.name ?? `webhook-${i + 1}` }));
  const names = targets.map((t) => t.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) return fail(`two targets are named ${twice}`);
  return { targets: targets.map(registered), issues: [] };
}

/** Secrets (the signing key, and the URL, which holds Slack's token) are scrubbed from every log line and error. */
function registered(target: WebhookTarget): WebhookTarget {
  registerSecret(target.secret);
  registerUrlSecrets(target.url);
  return target;
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: the timestamp is signed too, so a replay can be refused. */
export function signatureHeader(secret: string, unixSeconds: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** The same for every attempt and every replay of one event of one run, so that a receiver can drop a repeat. */
export function deliveryIdOf(workflowId: string, runId: string, event: string): string {
  return createHash('sha256').update(`${workflowId}\n${runId}\n${event}`).digest('hex').slice(0, 32);
}

export type DeliveryResult =
  | { kind: 'delivered'; status: number }
  | { kind: 'rejected'; status: number }
  | { kind: 'retry'; reason: string; retryAfterSeconds?: number };

/** One POST. 2xx: delivered; 408, 429, 5xx and network errors: retry; any other status: rejected for good. */
export async function deliver(
  target: WebhookTarget,
  message: { event: string; deliveryId: string; body: string },
  now: () => number = Date.now,
): Promise<DeliveryResult> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'backup-runbooks',
    [EVENT_HEADER]: message.event,
    [DELIVERY_HEADER]: message.deliveryId,
    'idempotency-key': message.deliveryId,
  };
  if (target.secret) headers[SIGNATURE_HEADER] = signatureHeader(target.secret, Math.floor(now() / 1000), message.body);
  let response: Response;
  try {
    response = await fetch(target.url, {
      method: 'POST',
      headers,
      body: message.body,
      // A redirect would send the signed body somewhere nobody configured.
      redirect: 'manual',
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    });
  } catch (err) {
    // The code only: a network error's message may carry the URL.
    const cause = (err as { cause?: { code?: unknown } }).cause;
    const reason = typeof cause?.code === 'string' ? cause.code : err instanceof Error ? err.name : 'network error';
    return { kind: 'retry', reason };
  }
  await response.body?.cancel().catch(() => undefined);
  const status = response.status;
  if (status >= 200 && status < 300) return { kind: 'delivered', status };
  if (status === 408 || status === 429 || status >= 500) {
    const after = Number(response.headers.get('retry-after'));
    return { kind: 'retry', reason: `HTTP ${status}`, retryAfterSeconds: after > 0 ? Math.min(after, 600) : undefined };
  }
  return { kind: 'rejected', status };
}
