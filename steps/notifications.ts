import { activityInfo, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { redact } from '../api';
import {
  FailureType,
  type NotificationEvent,
  type NotifyingRun,
  type NotificationOutcome,
  type NotificationProgress,
  type SentNotification,
  type TimedNotificationEvent,
} from '../contracts';
import type { ActivityDeps } from '../runtime/activity-deps';
import type { ExportSummary } from '../runtime/export-file';
import { checkpoint } from '../runtime/heartbeat';
import { deliver, deliveryIdOf, type WebhookTarget } from '../runtime/webhooks';

/** What makes a delivery one of its kind in a run: the event, and the resource for events sent once per resource. */
function deliveryKeyOf(event: NotificationEvent): string {
  return event.event === 'drill.validation.requested' ? `${event.event}\n${event.data.resourceId}` : event.event;
}

/** What a JSON target receives (and what the signature covers, byte for byte). */
export type NotificationPayload = {
  /** The delivery ID: the same on every retry of this event of this run. */
  id: string;
  runbook: string;
  workflowId: string;
  runId: string;
} & TimedNotificationEvent;

/** Targets done in earlier attempts, so that a retry for one failing target does not resend to the others. */
type Progress = NotificationProgress;

interface Sent {
  outcome: NotificationOutcome;
  /** Targets that could not be reached (busy, down): worth another try. */
  failures: string[];
  retryAfterSeconds?: number;
}

/** One event to every target that takes it, skipping those in `earlier`; `beat` checkpoints each target done. */
async function send(
  webhooks: readonly WebhookTarget[],
  event: TimedNotificationEvent,
  earlier: Progress | undefined,
  beat: boolean,
): Promise<Sent> {
  const { runbook, workflowId, runId } = runOf(event);
  const deliveryId = deliveryIdOf(workflowId, runId, deliveryKeyOf(event));
  const wanted = webhooks.filter((t) => !t.events || t.events.includes(event.event));
  const outcome: NotificationOutcome = {
    deliveryId,
    delivered: [],
    rejected: [],
    skipped: webhooks.filter((t) => !wanted.includes(t)).map((t) => t.name),
  };
  if (wanted.length === 0) return { outcome, failures: [] };

  const { onBehalfOf: _run, ...said } = event;
  const payload = { id: deliveryId, ...scrubbed(said), runbook, workflowId, runId } as NotificationPayload;
  outcome.delivered.push(...(earlier?.delivered ?? []));
  outcome.rejected.push(...(earlier?.rejected ?? []));
  const done = (name: string) => outcome.delivered.includes(name) || outcome.rejected.some((r) => r.target === name);
  const failures: string[] = [];
  let retryAfterSeconds: number | undefined;
  for (const target of wanted.filter((t) => !done(t.name))) {
    const body = JSON.stringify(target.format === 'slack' ? slackMessage(payload) : payload);
    const result = await deliver(target, { event: event.event, deliveryId, body });
    if (result.kind === 'retry') {
      failures.push(`${target.name}: ${result.reason}`);
      retryAfterSeconds = Math.max(retryAfterSeconds ?? 0, result.retryAfterSeconds ?? 0) || undefined;
      continue;
    }
    if (result.kind === 'delivered') outcome.delivered.push(target.name);
    else {
      log.warn('webhook refused a notification; not retried', { target: target.name, status: result.status });
      outcome.rejected.push({ target: target.name, status: result.status });
    }
    if (beat) checkpoint({ delivered: outcome.delivered, rejected: outcome.rejected } satisfies Progress);
  }
  return { outcome, failures, retryAfterSeconds };
}

/**
 * Deliveries this process made lately, by delivery ID: a poll and a nudged look that both see a decision send it once.
 * Bounded by age and count; a repeat after that (another worker, a retry much later) carries the same delivery ID.
 */
const sentHere = new Map<string, { at: number; sent: Promise<Sent> }>();
const REMEMBERED_MS = 10 * 60_000;

function remembered(deliveryId: string, sendIt: () => Promise<Sent>): Promise<Sent> {
  const now = Date.now();
  const known = sentHere.get(deliveryId);
  if (known && now - known.at < REMEMBERED_MS) return known.sent;
  for (const [id, entry] of sentHere) if (now - entry.at >= REMEMBERED_MS || sentHere.size > 1_000) sentHere.delete(id);
  const sent = sendIt();
  sentHere.set(deliveryId, { at: now, sent });
  return sent;
}

/** The run an event speaks for: its `onBehalfOf`, or the activity's own. */
function runOf(event: NotificationEvent): NotifyingRun {
  if (event.onBehalfOf) return event.onBehalfOf;
  const info = activityInfo();
  // Standalone activities have no run to name; this one is only ever called by runbooks.
  const { workflowId, runId } = info.workflowExecution ?? { workflowId: info.activityId, runId: '' };
  return { runbook: info.workflowType ?? '', workflowId, runId };
}

/**
 * Sends a notification from inside the activity that saw its event, once per attempt: each target once, no retry
 * here. A target that could not be reached is named in the outcome with the event as `retry`, and the runbook hands it
 * to the `notify` activity, which retries it alone. Never throws: a notification never fails the step it rides on.
 */
export async function notifyFromActivity(
  webhooks: readonly WebhookTarget[] | undefined,
  event: NotificationEvent,
): Promise<SentNotification> {
  const timed = { ...event, occurredAt: new Date().toISOString() };
  const { workflowId, runId } = runOf(event);
  const deliveryId = deliveryIdOf(workflowId, runId, deliveryKeyOf(event));
  try {
    const { outcome, failures } = await remembered(deliveryId, () => send(webhooks ?? [], timed, undefined, false));
    if (failures.length > 0) log.warn('notification not delivered yet; the runbook retries it', { failures });
    return failures.length > 0 ? { ...outcome, retry: timed } : outcome;
  } catch (err) {
    log.warn('notification not sent; the runbook retries it', { event: event.event, error: String(err) });
    return { deliveryId, delivered: [], rejected: [], skipped: [], retry: timed };
  }
}

/** export.done for a file an export activity has just written. */
export function exportDone(
  webhooks: readonly WebhookTarget[] | undefined,
  kind: 'query' | 'cost',
  summary: ExportSummary,
): Promise<SentNotification> {
  const { path: file, rows, bytes, sha256 } = summary;
  return notifyFromActivity(webhooks, { event: 'export.done', data: { export: kind, file, rows, bytes, sha256 } });
}

export function notificationActivities({ webhooks = [] }: ActivityDeps) {
  return {
    /**
     * Sends one event to every target that takes it. A target that refuses it for good (4xx other than 408/429) is
     * recorded in the outcome; one that is unreachable or busy makes the attempt fail, retryable, after the others.
     */
    async notify(event: TimedNotificationEvent, earlier?: Progress, target?: string): Promise<NotificationOutcome> {
      // This attempt's predecessors checkpointed what they did; the activity that sent it first says what it did.
      const progress = (activityInfo().heartbeatDetails as Progress | undefined) ?? earlier;
      const targets = target === undefined ? webhooks : onlyTarget(webhooks, target);
      const { outcome, failures, retryAfterSeconds } = await send(targets, event, progress, true);
      if (failures.length > 0) {
        throw ApplicationFailure.create({
          type: FailureType.NotificationUndelivered,
          message: `${event.event} not delivered to ${failures.join(', ')}`,
          ...(retryAfterSeconds ? { nextRetryDelay: `${retryAfterSeconds}s` } : {}),
        });
      }
      return outcome;
    },
  };
}

/** The target named `name` alone, taking every event: a runbook input chose it for this one. */
export function onlyTarget(webhooks: readonly WebhookTarget[], name: string): WebhookTarget[] {
  return webhooks.filter((t) => t.name === name).map(({ events: _events, ...t }) => t);
}

/** Every string passes through the project's redaction: no credential, token or webhook secret leaves in a payload. */
function scrubbed<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? redact(v) : v))) as T;
}

// Slack's mrkdwn treats these three as control characters.
const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** One line a person reads first, for every event. */
export function summaryOf(payload: NotificationPayload): string {
  const p = payload;
  switch (p.event) {
    case 'approval.pending': {
      return `Approval needed: restore of ${p.data.resourceId} waits on action request ${p.data.requestId} (${p.data.approvals.current}/${p.data.approvals.required} approvals); decide before ${p.data.approvalExpirationTime ?? 'its deadline'}, run within ${p.data.executionExpirationTime ?? `${p.data.executionWindowHours ?? '?'} hours of approval`}`;
    }
    case 'approval.decided': {
      return `Approval ${p.data.decision}: action request ${p.data.requestId} for ${p.data.resourceId} ended ${p.data.status}`;
    }
    case 'drill.passed':
    case 'drill.failed': {
      return `Drill ${p.data.name} ${{ PASS: 'passed', PARTIAL: 'PARTIAL (not passed)', FAIL: 'FAILED' }[p.data.verdict]}: ${p.data.passed}/${p.data.total} resources passed; report ${p.data.report.markdown}`;
    }
    case 'drill.validation.requested': {
      return `Validation needed: drill ${p.data.name} restored ${p.data.resourceName} (${p.data.resourceId}) from ${p.data.recoveryPoint.snapshotId}; answer before ${p.data.deadline} with \`${p.data.answerWith}\``;
    }
    case 'export.done': {
      return `Export done (${p.data.export}): ${p.data.rows} rows, ${p.data.bytes} bytes to ${p.data.file} (sha256 ${p.data.sha256})`;
    }
    case 'runbook.failed': {
      return `Runbook ${p.runbook} failed (${p.data.failureType}): ${p.data.message}`;
    }
  }
}

/** A Slack incoming-webhook message: `text` for notifications and clients without blocks, and the same in blocks. */
export function slackMessage(payload: NotificationPayload) {
  const text = escape(summaryOf(payload));
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text } },
      {
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: escape(`${payload.event} · ${payload.runbook} · ${payload.workflowId} · delivery ${payload.id}`),
          },
        ],
      },
    ],
  };
}
