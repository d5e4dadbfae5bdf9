// Notifications end to end: a local HTTP receiver as the webhook targets, the runbook worker on a real dev server.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { FailureType, type NotificationOutcome, type Notified } from '../../contracts';
import { approvalGatedRestore, drDrill, queryExport } from '../../runbooks/workflows';
import { loadWebhookTargets } from '../../runtime/config';
import type { WebhookTarget } from '../../runtime/webhooks';
import type { NotificationPayload } from '../../steps/notifications';
import {
  APPROVAL,
  DENIAL,
  eventually,
  failureOf,
  historyText,
  nudge,
  objectStoreTarget,
  queryExportInput,
  queryTarget,
  scanForSecrets,
  setupE2E,
  startWorker,
  teardownE2E,
  waitingRequestId,
  type E2E,
} from './helpers';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const SECRET = `whsec-${randomUUID()}`;
const SLACK_TOKEN = `T000-B000-${randomUUID()}`;
const received: Received[] = [];
/** Delivery IDs the flaky target has answered 503 to once already. */
const flaked = new Set<string>();
let server: Server;
let configDir: string;
let webhooks: WebhookTarget[];
let fx: E2E;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      // One target is gone for good: the runbook must neither retry it nor fail for it. Another fails each
      // delivery once, so that the activity retries.
      const id = String(req.headers['x-runbooks-delivery']);
      res.statusCode = path === '/gone' ? 410 : path === '/flaky' && !flaked.has(id) ? 503 : 200;
      if (path === '/flaky') flaked.add(id);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Through the worker's own configuration path, which also registers the secrets for redaction.
  configDir = await mkdtemp(join(tmpdir(), 'runbooks-webhooks-'));
  const file = join(configDir, 'webhooks.json');
  const targets = [
    { name: 'ops', url: `${base}/hook`, secret: SECRET },
    { name: 'chat', url: `${base}/services/${SLACK_TOKEN}`, format: 'slack' },
    { name: 'gone', url: `${base}/gone`, secret: SECRET, events: ['approval.pending'] },
    { name: 'flaky', url: `${base}/flaky`, secret: SECRET, events: ['export.done'] },
  ];
  await writeFile(file, JSON.stringify(targets));
  webhooks = loadWebhookTargets({ RUNBOOKS_WEBHOOKS_FILE: file });
  fx = await setupE2E({ worker: { webhooks } });
}, 120_000);

afterAll(async () => {
  await teardownE2E(fx);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await rm(configDir, { recursive: true, force: true });
}, 60_000);

beforeEach(async () => {
  await fx.control.clearPolicies();
  await fx.control.jobsConfig({ outcomes: {} });
});

/** Checks the signature as a receiver would: HMAC-SHA256 of "<t>.<body>" with the shared secret, t within 5 minutes. */
function verified(message: Received): NotificationPayload {
  const header = String(message.headers['x-runbooks-signature'] ?? '');
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!match?.[1] || !match[2]) throw new Error(`bad signature header: ${header}`);
  const expected = createHmac('sha256', SECRET).update(`${match[1]}.${message.body}`).digest();
  expect(timingSafeEqual(expected, Buffer.from(match[2], 'hex'))).toBe(true);
  expect(Math.abs(Date.now() / 1000 - Number(match[1]))).toBeLessThan(300);
  const payload = JSON.parse(message.body) as NotificationPayload;
  expect(message.headers['x-runbooks-delivery']).toBe(payload.id);
  expect(message.headers['idempotency-key']).toBe(payload.id);
  expect(message.headers['x-runbooks-event']).toBe(payload.event);
  return payload;
}

/** Every signed delivery of one run (raw: a repeat would count twice). */
function deliveriesOf(handle: WorkflowHandle, path = '/hook'): NotificationPayload[] {
  return received
    .filter((m) => m.path === path)
    .map(verified)
    .filter((p) => p.workflowId === handle.workflowId);
}

function slackTextsOf(handle: WorkflowHandle): string[] {
  return received
    .filter((m) => m.path === `/services/${SLACK_TOKEN}`)
    .map((m) => JSON.parse(m.body) as { text: string; blocks: { type: string }[] })
    .filter((m) => JSON.stringify(m.blocks).includes(handle.workflowId))
    .map((m) => m.text);
}

function startRestore() {
  return fx.env.client.workflow.start(approvalGatedRestore, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `restore-${randomUUID()}`,
    args: [
      {
        ...objectStoreTarget(fx),
        kind: 'bucket',
        destination: { bucketA: { bucketName: 'restored-objects', prefix: 'notify/' } },
        comment: 'restore for incident INC-4321',
      },
    ],
  });
}

/**
 * What each delivery of the run came to, as history recorded it: the outcome an activity returned with its own result
 * when it sent the event itself (a local activity's is in its marker), or the `notify` activity's, which supersedes it
 * for the targets that activity resent to.
 */
async function notifyOutcomes(handle: WorkflowHandle): Promise<NotificationOutcome[]> {
  const { events } = await handle.fetchHistory();
  const notifyScheduled = new Set(
    (events ?? [])
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'notify')
      .map((e) => String(e.eventId)),
  );
  const byDelivery = new Map<string, NotificationOutcome>();
  for (const e of events ?? []) {
    const done = e.activityTaskCompletedEventAttributes;
    const data =
      done?.result?.payloads?.[0]?.data ?? e.markerRecordedEventAttributes?.details?.result?.payloads?.[0]?.data;
    if (!data) continue;
    const value = JSON.parse(Buffer.from(data).toString('utf8')) as unknown;
    const outcome =
      done && notifyScheduled.has(String(done.scheduledEventId))
        ? (value as NotificationOutcome)
        : (value as Notified | null)?.notified;
    if (!outcome) continue;
    const { deliveryId, delivered, rejected, skipped } = outcome;
    byDelivery.set(deliveryId, { deliveryId, delivered, rejected, skipped });
  }
  return [...byDelivery.values()];
}

test('an approval: one signed approval.pending with both deadlines and one approval.decided, across a worker restart', async () => {
  await fx.control.addPolicy({ approvalWindowHours: 48, executionWindowHours: 24 });
  const handle = await startRestore();
  const requestId = await waitingRequestId(handle);

  const pending = await eventually('approval.pending delivered', () => deliveriesOf(handle)[0]);
  expect(pending).toMatchObject({
    event: 'approval.pending',
    runbook: 'approvalGatedRestore',
    workflowId: handle.workflowId,
    runId: handle.firstExecutionRunId,
    data: { requestId, status: 'PENDING_APPROVAL', approvals: { current: 0, required: 1 } },
  });
  const request = (await fx.control.actionRequest(requestId)).actionApprovalRequest;
  // Both windows: the approval deadline, and the execution window that starts at the approval.
  expect(request.approvalExpirationTime).toBeTruthy();
  expect(pending.data).toMatchObject({
    approvalExpirationTime: request.approvalExpirationTime,
    executionWindowHours: 24,
  });

  // The delivery is in history before the worker goes: the next worker replays it and must not send it again.
  await eventually('delivery recorded', async () => (await notifyOutcomes(handle)).length === 1);
  const taskQueue = fx.worker.taskQueue;
  await fx.worker.stop();
  fx.worker = await startWorker(fx, { taskQueue, webhooks });
  await fx.control.approve(requestId, APPROVAL);
  await nudge(handle);
  await handle.result();

  const events = deliveriesOf(handle).map((p) => p.event);
  expect(events.sort()).toEqual(['approval.decided', 'approval.pending']);
  const decided = deliveriesOf(handle).find((p) => p.event === 'approval.decided');
  expect(decided?.data).toMatchObject({ requestId, status: 'APPROVED', decision: 'approved' });
  const approved = (await fx.control.actionRequest(requestId)).actionApprovalRequest;
  expect(approved.executionExpirationTime).toBeTruthy();
  expect(decided?.data.executionExpirationTime).toBe(approved.executionExpirationTime);
  expect(new Set(deliveriesOf(handle).map((p) => p.id)).size).toBe(2);

  // The refusing target got the one event it takes, once; the refusal is recorded, and the restore went on.
  expect(received.filter((m) => m.path === '/gone' && m.body.includes(handle.workflowId))).toHaveLength(1);
  const outcomes = await notifyOutcomes(handle);
  expect(outcomes[0]).toMatchObject({
    delivered: ['ops', 'chat'],
    rejected: [{ target: 'gone', status: 410 }],
  });
  expect(outcomes[1]).toMatchObject({ delivered: ['ops', 'chat'], skipped: ['gone', 'flaky'] });

  const texts = slackTextsOf(handle);
  expect(texts).toHaveLength(2);
  expect(texts.find((t) => t.startsWith('Approval needed'))).toContain(requestId);
  expect(texts.find((t) => t.startsWith('Approval approved'))).toContain(requestId);
});

test('a denied approval: approval.decided (denied) and runbook.failed with the failure type', async () => {
  await fx.control.addPolicy({ approvalWindowHours: 48, executionWindowHours: 24 });
  const handle = await startRestore();
  const requestId = await waitingRequestId(handle);
  await fx.control.deny(requestId, DENIAL);
  await nudge(handle);
  expect((await failureOf(handle)).type).toBe(FailureType.ApprovalDenied);

  const byEvent = new Map(deliveriesOf(handle).map((p) => [p.event, p]));
  expect(deliveriesOf(handle)).toHaveLength(3);
  expect(byEvent.get('approval.decided')?.data).toMatchObject({ requestId, status: 'DENIED', decision: 'denied' });
  expect(byEvent.get('runbook.failed')).toMatchObject({
    runbook: 'approvalGatedRestore',
    workflowId: handle.workflowId,
    data: { failureType: FailureType.ApprovalDenied },
  });
  expect(JSON.stringify(byEvent.get('runbook.failed')?.data)).toContain(requestId);
  // The reviewer's words stay out of notifications, as they stay out of history.
  expect(JSON.stringify(deliveriesOf(handle))).not.toContain(DENIAL.comment);
});

test('a failed drill: one signed drill.failed with its counts and report', async () => {
  const state = fx.sim.ctx.state;
  const vault = Object.values(state.vaults).find((v) => v.name === 'backups-pa-east-1');
  const account = Object.values(state.restoreAccounts).find((a) => a.name === 'restore-pa');
  const broken = Object.values(state.resources).find((r) => r.resource.resourceType === 'PA_KEYVALUE_DB')?.resource;
  if (!vault || !account || !broken) throw new Error('the seeded simulator lacks the drill fixtures');
  await fx.control.jobsConfig({ outcomes: { [broken.id]: 'JOB_FAILED' } });
  const name = `notify-${randomUUID().slice(0, 8)}`;
  const handle = await fx.env.client.workflow.start(drDrill, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `drill-${name}`,
    args: [
      {
        name,
        resources: { ids: [broken.id] },
        vaultId: vault.id,
        restoreAccountId: account.id,
        destination: { bucketA: { bucketName: 'dr-drill-restores', prefix: 'drills/' } },
        targets: { rpoSeconds: 3600, rtoSeconds: 600 },
      },
    ],
  });
  const timer = setInterval(() => void nudge(handle).catch(() => undefined), 1_000);
  const result = await handle.result().finally(() => clearInterval(timer));
  expect(result.summary.verdict).toBe('FAIL');

  const deliveries = deliveriesOf(handle);
  expect(deliveries.map((p) => p.event)).toEqual(['drill.failed']);
  expect(result.summary).toMatchObject({ verdict: 'FAIL', total: 1, passed: 0, failed: 1 });
  // The run's whole summary (worst RPO and RTO too, when measured) and its report's paths.
  expect(deliveries[0]?.data).toEqual({ name, ...result.summary, report: result.report });
  expect(slackTextsOf(handle)).toEqual([expect.stringMatching(new RegExp(`^Drill ${name} FAILED: 0/1`))]);
});

test('an export: export.done with its file, rows, bytes and sha256; a failing target is retried, the others not resent', async () => {
  const db = await queryTarget(fx, 'events');
  const handle = await fx.env.client.workflow.start(queryExport, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `query-export-${randomUUID()}`,
    args: [queryExportInput(db, 'SELECT id FROM events ORDER BY id')],
  });
  const result = await handle.result();

  const done = deliveriesOf(handle);
  expect(done.map((p) => p.event)).toEqual(['export.done']);
  const { path, rows, bytes, sha256 } = result.export;
  expect(done[0]?.data).toEqual({ export: 'query', file: path, rows, bytes, sha256 });
  // Twice to the flaky target (a 503, then the retry) under one delivery ID; once to the others.
  const flaky = deliveriesOf(handle, '/flaky');
  expect(flaky.map((p) => p.id)).toEqual([done[0]?.id, done[0]?.id]);
  expect(slackTextsOf(handle)).toHaveLength(1);
  expect(await notifyOutcomes(handle)).toEqual([
    { deliveryId: done[0]?.id, delivered: ['ops', 'chat', 'flaky'], rejected: [], skipped: ['gone'] },
  ]);
});

test('no secret in any payload, header or history: the signing key, the Slack URL, client secrets and tokens', async () => {
  expect(received.length).toBeGreaterThanOrEqual(8);
  const state = fx.sim.ctx.state;
  const secrets = [
    SECRET,
    SLACK_TOKEN,
    fx.sim.clientSecret,
    ...Object.values(state.credentials).map((c) => c.clientSecret),
    ...Object.keys(state.tokens),
  ];
  for (const message of received) {
    const text = `${message.body}\n${JSON.stringify({ ...message.headers, 'x-runbooks-signature': undefined })}`;
    for (const secret of secrets) expect(text).not.toContain(secret);
  }
  for await (const execution of fx.env.client.workflow.list()) {
    const text = historyText(await fx.env.client.workflow.getHandle(execution.workflowId).fetchHistory());
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(SLACK_TOKEN);
  }
  await scanForSecrets(fx, 3);
});
