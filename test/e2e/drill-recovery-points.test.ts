// The recovery point a drill restores, and what it makes of the restore: `latest`, `random` within a window and
// `fresh` points, a window without any, a partial restore, an RTO that counts a slow SQL check, and verdicts of an
// outside validation delivered through the drill's update. Against the simulator and a real dev server.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import type { InventoryResource, Snapshot } from '../../api';
import { drillValidationUpdate, statusQuery, type DrillValidationVerdict } from '../../contracts';
import { drDrill } from '../../runbooks/workflows';
import type { DrDrillInput, DrDrillResult } from '../../runbooks/dr-drill/contract';
import type { DrillReport, DrillResourceResult } from '../../runbooks/dr-drill/report';
import type { WebhookTarget } from '../../runtime/webhooks';
import type { NotificationPayload } from '../../steps/notifications';
import {
  bucketDestination,
  eventually,
  FAST_JOBS,
  jobsPerResource,
  keepNudging,
  setupE2E,
  teardownE2E,
  type E2E,
  drillVaultAndAccount,
} from './helpers';

const DAY_MS = 86_400_000;
const SECRET = `whsec-${randomUUID()}`;

let fx: E2E;
let server: Server;
let vaultId: string;
let vaultRegion: string;
let restoreAccountId: string;
/** What the webhook receiver got, by target path. */
const received: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const webhooks: WebhookTarget[] = [
    // Named by the drills' `validation.notify`: it gets the request although its own events leave it out.
    { name: 'validators', url: `${base}/validators`, format: 'json', secret: SECRET, events: ['approval.pending'] },
    { name: 'ops', url: `${base}/ops`, format: 'json', secret: SECRET, events: ['drill.passed', 'drill.failed'] },
  ];
  fx = await setupE2E({ worker: { webhooks } });
  const { vault, account } = drillVaultAndAccount(fx);
  vaultId = vault.id;
  vaultRegion = vault.region;
  restoreAccountId = account.id;
}, 120_000);

afterAll(async () => {
  await teardownE2E(fx);
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
}, 60_000);

beforeEach(async () => {
  await fx.control.clearPolicies();
  await fx.control.jobsConfig(FAST_JOBS);
});

// ---------------------------------------------------------------------------------------------------------------
// The simulator's state, as the test reads it.

const snapshotsOf = (resourceId: string) =>
  Object.values(fx.sim.ctx.state.snapshots).filter((s) => s.resourceId === resourceId);
const capturedAt = (s: Snapshot) => Date.parse(s.pointInTime ?? s.createdTime);

/** The snapshots of a resource a drill started at `startedAt` may restore from a window of `days`, newest first. */
function inWindow(resourceId: string, startedAt: string, days: number): Snapshot[] {
  const before = Date.parse(startedAt);
  const kept = (s: Snapshot) => s.expirationTime === undefined || Date.parse(s.expirationTime) > before;
  return snapshotsOf(resourceId)
    .filter((s) => capturedAt(s) >= before - days * DAY_MS && capturedAt(s) < before && kept(s))
    .sort((a, b) => capturedAt(b) - capturedAt(a));
}

const used = new Set<string>();

/** A resource of `type` that no test has used yet: each test's job counts are its own. */
function take(type: string, where: (r: InventoryResource) => boolean): InventoryResource {
  const found = Object.values(fx.sim.ctx.state.resources)
    .map((r) => r.resource)
    .sort((a, b) => a.id.localeCompare(b.id))
    .find((r) => r.resourceType === type && !used.has(r.id) && where(r));
  if (!found) throw new Error(`no unused ${type} resource left that fits`);
  used.add(found.id);
  return found;
}

const snapshotted = (r: InventoryResource) => snapshotsOf(r.id).length > 0;

/** The snapshot the simulator's restore job restored. */
function restoredSnapshot(row: DrillResourceResult | undefined): string | undefined {
  return fx.sim.ctx.state.restoreJobs[row?.restoreJobId ?? '']?.snapshotId;
}

/** The restore job's duration on the simulator's clock: the restore part of RTO. */
function restoreSeconds(row: DrillResourceResult | undefined): number {
  const job = fx.sim.ctx.state.restoreJobs[row?.restoreJobId ?? ''];
  return job ? (job.endAt - job.createdAt) / 1000 : NaN;
}

// ---------------------------------------------------------------------------------------------------------------
// Drills.

function drillInput(ids: string[], overrides: Partial<DrDrillInput> = {}): DrDrillInput {
  return {
    name: `points-${randomUUID().slice(0, 8)}`,
    resources: { ids },
    vaultId,
    restoreAccountId,
    destination: bucketDestination('dr-drill-restores', 'points/'),
    // The seeded snapshots are at most 30 days old: RPO is not what these drills are about.
    targets: { rpoSeconds: 31 * 86400, rtoSeconds: 3600 },
    retentionDays: 3,
    parallelism: 3,
    ...overrides,
  };
}

function startDrill(input: DrDrillInput): Promise<WorkflowHandle<typeof drDrill>> {
  return fx.env.client.workflow.start(drDrill, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `drill-${input.name}`,
    args: [input],
  });
}

async function finish(handle: WorkflowHandle<typeof drDrill>) {
  const stop = keepNudging(handle);
  const result: DrDrillResult = await handle.result().finally(stop);
  const report = JSON.parse(await readFile(result.report.json, 'utf8')) as DrillReport;
  return { result, report, byId: new Map(report.resources.map((r) => [r.resourceId, r])) };
}

async function drill(ids: string[], overrides: Partial<DrDrillInput> = {}) {
  return finish(await startDrill(drillInput(ids, overrides)));
}

/** The simulator's jobs created since `since`, per resource. */
async function jobsSince(since: string) {
  const jobs = await fx.control.jobs();
  return { backups: jobsPerResource(jobs.backupJobs, since), restores: jobsPerResource(jobs.restoreJobs, since) };
}

const rpoOf = (report: DrillReport, pointInTime: string) =>
  (Date.parse(report.startedAt) - Date.parse(pointInTime)) / 1000;

/** The signed deliveries of one run to a target, checked as a receiver would check them. */
function deliveriesTo(path: string, workflowId: string): NotificationPayload[] {
  return received
    .filter((m) => m.path === path)
    .map((m) => {
      const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(m.headers['x-runbooks-signature'] ?? ''));
      const expected = createHmac('sha256', SECRET).update(`${match?.[1]}.${m.body}`).digest();
      expect(timingSafeEqual(expected, Buffer.from(match?.[2] ?? '', 'hex'))).toBe(true);
      return JSON.parse(m.body) as NotificationPayload;
    })
    .filter((p) => p.workflowId === workflowId);
}

// ---------------------------------------------------------------------------------------------------------------

test('latest: no backup is taken, the newest snapshot of the window is restored, and RPO is measured on it', async () => {
  const several = (r: InventoryResource) => snapshotsOf(r.id).length >= 2;
  const resources = [take('PA_VM', several), take('PA_OBJECT_STORE', several)];
  const since = (await fx.control.state()).now;
  const { result, report, byId } = await drill(
    resources.map((r) => r.id),
    { recoveryPoint: { select: 'latest' } },
  );

  expect(result.summary).toMatchObject({ total: 2, passed: 2, partial: 0, failed: 0, verdict: 'PASS' });
  for (const resource of resources) {
    const row = byId.get(resource.id);
    const [newest] = inWindow(resource.id, report.startedAt, 30);
    expect(newest).toBeDefined();
    expect(row?.recoveryPoint).toEqual({
      snapshotId: newest?.id,
      pointInTime: newest?.pointInTime,
      selection: 'latest',
      windowDays: 30,
    });
    // The snapshot restored is the recovery point, and RPO is the drill's start minus its point in time.
    expect(restoredSnapshot(row)).toBe(newest?.id);
    expect(row?.rpoSeconds).toBe(rpoOf(report, newest?.pointInTime ?? ''));
    expect(row?.rpoSeconds).toBeGreaterThan(0);
    // Nothing reported apart: that is for fresh points only.
    expect(row?.rpoPoint).toBeUndefined();
    expect(row?.newestBeforeDrillSeconds).toBeUndefined();
    expect(row?.backupJobId).toBeUndefined();
    // No validation asked for: the RTO is the restore's.
    expect(row?.rtoRestoreSeconds).toBeCloseTo(restoreSeconds(row), 0);
    expect(row?.rtoValidationSeconds).toBeUndefined();
    expect(row?.rtoSeconds).toBe(row?.rtoRestoreSeconds);
  }
  const { backups, restores } = await jobsSince(since);
  expect([...backups.keys()]).toEqual([]);
  for (const resource of resources) expect(restores.get(resource.id)).toEqual([byId.get(resource.id)?.restoreJobId]);
});

test('random: the point drawn lies in the window, the draw is recorded, and that point is restored', async () => {
  const manyInTenDays = (r: InventoryResource) => inWindow(r.id, new Date().toISOString(), 10).length >= 3;
  const resources = [take('PA_VM', manyInTenDays), take('PA_FILE_SYSTEM', manyInTenDays)];
  const since = (await fx.control.state()).now;
  const { result, report, byId } = await drill(
    resources.map((r) => r.id),
    { recoveryPoint: { select: 'random', windowDays: 10 } },
  );

  expect(result.summary).toMatchObject({ total: 2, passed: 2, verdict: 'PASS' });
  const windowStart = Date.parse(report.startedAt) - 10 * DAY_MS;
  for (const resource of resources) {
    const row = byId.get(resource.id);
    const candidates = inWindow(resource.id, report.startedAt, 10);
    const point = row?.recoveryPoint;
    expect(point).toMatchObject({ selection: 'random', windowDays: 10 });
    expect(point?.draw?.candidates).toBe(candidates.length);
    const index = point?.draw?.index ?? -1;
    expect(Number.isInteger(index)).toBe(true);
    expect(index).toBeGreaterThanOrEqual(0);
    expect(index).toBeLessThan(candidates.length);
    // Index 0 is the newest: the draw names the point among the window's snapshots.
    expect(point?.snapshotId).toBe(candidates[index]?.id);
    const at = Date.parse(point?.pointInTime ?? '');
    expect(at).toBeGreaterThanOrEqual(windowStart);
    expect(at).toBeLessThan(Date.parse(report.startedAt));
    expect(restoredSnapshot(row)).toBe(point?.snapshotId);
    expect(row?.rpoSeconds).toBe(rpoOf(report, point?.pointInTime ?? ''));
    expect(row?.backupJobId).toBeUndefined();
  }
  const { backups, restores } = await jobsSince(since);
  expect([...backups.keys()]).toEqual([]);
  for (const resource of resources) expect(restores.get(resource.id)).toHaveLength(1);
});

test('fresh: one backup, its snapshot restored, and the newest snapshot before the drill reported apart', async () => {
  const resource = take('PA_VM', snapshotted);
  const since = (await fx.control.state()).now;
  const { result, report, byId } = await drill([resource.id], { recoveryPoint: { select: 'fresh' } });

  expect(result.summary).toMatchObject({ total: 1, passed: 1, verdict: 'PASS' });
  const row = byId.get(resource.id);
  const { backups, restores } = await jobsSince(since);
  expect(backups.get(resource.id)).toEqual([row?.backupJobId]);
  expect(restores.get(resource.id)).toEqual([row?.restoreJobId]);
  const backup = fx.sim.ctx.state.backupJobs[row?.backupJobId ?? ''];
  expect(backup?.backupType).toBe('ON_DEMAND');
  const taken = fx.sim.ctx.state.snapshots[backup?.snapshotId ?? ''];
  expect(row?.recoveryPoint).toEqual({ snapshotId: taken?.id, pointInTime: taken?.pointInTime, selection: 'fresh' });
  expect(restoredSnapshot(row)).toBe(taken?.id);
  // Taken during the drill: nothing before the drill's start is lost.
  expect(row?.rpoSeconds).toBe(Math.max(0, rpoOf(report, taken?.pointInTime ?? '')));
  // The newest snapshot before the drill is reported apart, with its age, and is not the one restored.
  const [prior] = inWindow(resource.id, report.startedAt, 365);
  expect(row?.rpoPoint).toEqual({ snapshotId: prior?.id, pointInTime: prior?.pointInTime });
  expect(row?.rpoPoint?.snapshotId).not.toBe(taken?.id);
  expect(row?.newestBeforeDrillSeconds).toBe(rpoOf(report, prior?.pointInTime ?? ''));
});

test('a resource without a recovery point in the window fails with that finding; the drill completes and restores the others', async () => {
  // Its newest snapshot is the oldest of the unused object stores'. The seeded newest snapshots are 18 to 48 hours old
  // by the hour of the day: when even this one is inside a 1-day window, its snapshots are moved back two days.
  const newestOf = (r: InventoryResource) => Math.max(...snapshotsOf(r.id).map(capturedAt));
  const stores = Object.values(fx.sim.ctx.state.resources)
    .map((r) => r.resource)
    .filter((r) => r.resourceType === 'PA_OBJECT_STORE' && !used.has(r.id) && snapshotted(r))
    .sort((a, b) => newestOf(a) - newestOf(b));
  const old = take('PA_OBJECT_STORE', (r) => r.id === stores[0]?.id);
  if (newestOf(old) >= Date.now() - DAY_MS) {
    for (const s of snapshotsOf(old.id)) {
      s.pointInTime = new Date(capturedAt(s) - 2 * DAY_MS).toISOString();
      s.createdTime = new Date(Date.parse(s.createdTime) - 2 * DAY_MS).toISOString();
    }
  }
  const none = take('PA_FILE_SYSTEM', (r) => !snapshotted(r));
  // Backed up just now, outside the drill: inside any window.
  const recent = take('PA_VM', snapshotted);
  const jobId = await fx.service.takeSnapshot(recent.id, { vaultId, retentionDays: 3 });
  const snapshot = await eventually(`the snapshot of backup job ${jobId}`, async () => {
    await fx.service.getBackupJob(jobId);
    return snapshotsOf(recent.id).find((s) => s.jobId === jobId);
  });
  const since = (await fx.control.state()).now;

  const handle = await startDrill(
    drillInput([old.id, none.id, recent.id], { recoveryPoint: { select: 'latest', windowDays: 1 } }),
  );
  const { result, report, byId } = await finish(handle);

  // A finding, not an error: the run completed, with its report.
  expect((await handle.describe()).status.name).toBe('COMPLETED');
  expect(result.summary).toMatchObject({ total: 3, passed: 1, failed: 2, verdict: 'FAIL' });
  expect(snapshotsOf(old.id).length).toBeGreaterThan(0);
  expect(inWindow(old.id, report.startedAt, 1)).toEqual([]);
  const { backups, restores } = await jobsSince(since);
  for (const resource of [old, none]) {
    const row = byId.get(resource.id);
    expect(row).toMatchObject({ verdict: 'FAIL', reasons: ['no recovery point in the last 1 days'] });
    expect(row?.recoveryPoint).toBeUndefined();
    expect(row?.restoreJobId).toBeUndefined();
    expect(row?.rpoSeconds).toBeUndefined();
    // Nothing was restored for it, and no backup taken instead.
    expect(restores.get(resource.id)).toBeUndefined();
    expect(backups.get(resource.id)).toBeUndefined();
  }
  const restored = byId.get(recent.id);
  expect(restored?.verdict).toBe('PASS');
  expect(restored?.recoveryPoint).toMatchObject({ snapshotId: snapshot.id, selection: 'latest', windowDays: 1 });
  expect(restoredSnapshot(restored)).toBe(snapshot.id);
  expect([...backups.keys()]).toEqual([]);
});

test('a partial restore is PARTIAL, counted apart from the passed, and the drill does not pass', async () => {
  const partial = take('PA_FILE_SYSTEM', snapshotted);
  const whole = take('PA_VM', snapshotted);
  await fx.control.jobsConfig({ outcomes: { [partial.id]: 'JOB_PARTIAL' } });
  const handle = await startDrill(drillInput([partial.id, whole.id]));
  const { result, report, byId } = await finish(handle);

  expect(result.summary).toMatchObject({ total: 2, passed: 1, partial: 1, failed: 0, verdict: 'PARTIAL' });
  expect(report.summary).toEqual(result.summary);
  const row = byId.get(partial.id);
  expect(row).toMatchObject({ verdict: 'PARTIAL', restoreStatus: 'JOB_PARTIAL', rpoMet: true, rtoMet: true });
  expect(row?.reasons).toEqual(['restore partial: some items could not be restored']);
  expect(byId.get(whole.id)?.verdict).toBe('PASS');
  // Announced as a drill that did not pass.
  const announced = deliveriesTo('/ops', handle.workflowId);
  expect(announced.map((p) => p.event)).toEqual(['drill.failed']);
  expect(announced[0]?.data).toMatchObject({ verdict: 'PARTIAL', passed: 1, partial: 1 });
});

test('the RTO counts a slow SQL check: restore plus validation', async () => {
  const QUERY_SECONDS = 5;
  const { databases } = await fx.control.state();
  const db = databases.find((d) => d.tables.includes('customers') && !used.has(d.resourceId));
  if (!db) throw new Error('no unused relational database with a customers table');
  const relational = take('PA_RELATIONAL_DB', (r) => r.id === db.resourceId);
  await fx.control.jobsConfig({ querySeconds: QUERY_SECONDS });
  const since = Date.now();
  const { result, byId } = await drill([relational.id], {
    sqlCheck: {
      databaseName: db.databaseName,
      query: 'SELECT id FROM customers',
      expectation: 'rows >= 1',
      destination: bucketDestination(`query-results-${vaultRegion}`, 'points-checks'),
    },
  });

  expect(result.summary).toMatchObject({ total: 1, passed: 1, verdict: 'PASS' });
  const row = byId.get(relational.id);
  expect(row?.check).toMatchObject({ status: 'passed', passed: true });
  // The check ran on the point restored, and took the simulator's query time.
  const queries = Object.values(fx.sim.ctx.state.queries).filter(
    (q) => q.resourceId === relational.id && q.createdAt >= since,
  );
  expect(queries.map((q) => q.snapshotId)).toEqual([row?.recoveryPoint?.snapshotId]);
  expect(((queries[0]?.endAt ?? 0) - (queries[0]?.createdAt ?? 0)) / 1000).toBe(QUERY_SECONDS);
  expect(row?.rtoValidationSeconds).toBeGreaterThanOrEqual(QUERY_SECONDS);
  expect(row?.rtoRestoreSeconds).toBeCloseTo(restoreSeconds(row), 0);
  expect(row?.rtoSeconds).toBe((row?.rtoRestoreSeconds ?? NaN) + (row?.rtoValidationSeconds ?? NaN));
  expect(result.summary.worstRtoSeconds).toBe(row?.rtoSeconds);
});

test('outside validation: a pass and a fail through the update, refusals for a resource not waiting and for a second answer', async () => {
  const passing = take('PA_VM', snapshotted);
  const failing = take('PA_OBJECT_STORE', snapshotted);
  const input = drillInput([passing.id, failing.id], { validation: { windowHours: 1, notify: 'validators' } });
  const handle = await startDrill(input);
  const verdict = (v: DrillValidationVerdict) => handle.executeUpdate(drillValidationUpdate, { args: [v] });

  await eventually('both resources waiting for a verdict', async () => {
    const status = await handle.query(statusQuery);
    return [passing.id, failing.id].every((id) => status.waitingFor?.includes(id)) && status;
  });
  // Not a resource of this drill: never waiting.
  const stranger = `not-drilled-${randomUUID()}`;
  await expectRefused(verdict({ resourceId: stranger, result: 'pass' }), `resource ${stranger}`, 'is not waiting');

  expect(await verdict({ resourceId: passing.id, result: 'pass', message: 'boots, app answers' })).toEqual({
    taken: true,
    resourceId: passing.id,
    result: 'pass',
  });
  await expectRefused(verdict({ resourceId: passing.id, result: 'fail' }), `resource ${passing.id}`, 'already');
  // The first answer stands; the other resource still waits.
  const status = await handle.query(statusQuery);
  expect(status.waitingFor).toContain(failing.id);
  expect(status.waitingFor).not.toContain(passing.id);
  expect(await verdict({ resourceId: failing.id, result: 'fail', message: 'objects missing under logs/' })).toEqual({
    taken: true,
    resourceId: failing.id,
    result: 'fail',
  });
  const { result, report, byId } = await finish(handle);

  expect(result.summary).toMatchObject({ total: 2, passed: 1, failed: 1, verdict: 'FAIL' });
  const passed = byId.get(passing.id);
  const failed = byId.get(failing.id);
  expect(passed).toMatchObject({ verdict: 'PASS', reasons: [] });
  expect(passed?.validation).toMatchObject({ status: 'passed', message: 'boots, app answers' });
  expect(failed).toMatchObject({ verdict: 'FAIL' });
  expect(failed?.validation).toMatchObject({ status: 'failed', message: 'objects missing under logs/' });
  expect(failed?.reasons).toEqual(['validation failed: objects missing under logs/']);
  for (const row of [passed, failed]) {
    const v = row?.validation;
    const requested = Date.parse(v?.requestedAt ?? '');
    expect(Date.parse(v?.deadline ?? '') - requested).toBe(3600 * 1000);
    expect(Date.parse(v?.answeredAt ?? '')).toBeGreaterThanOrEqual(requested);
    expect(Date.parse(v?.answeredAt ?? '')).toBeLessThanOrEqual(Date.parse(report.finishedAt));
    // Waiting for the verdict is part of the RTO.
    expect(row?.rtoValidationSeconds).toBeGreaterThan(0);
    expect(row?.rtoSeconds).toBe((row?.rtoRestoreSeconds ?? NaN) + (row?.rtoValidationSeconds ?? NaN));
  }

  // Refused verdicts leave no trace in history: two updates accepted, the two taken.
  const { events } = await handle.fetchHistory();
  expect((events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes)).toHaveLength(2);
  // The named target was asked, once per resource, with where the restore put the data; the other target was not.
  const requests = deliveriesTo('/validators', handle.workflowId).filter(
    (p) => p.event === 'drill.validation.requested',
  );
  expect(requests.map((p) => (p.data as { resourceId: string }).resourceId).sort()).toEqual(
    [passing.id, failing.id].sort(),
  );
  for (const request of requests) {
    const row = byId.get((request.data as { resourceId: string }).resourceId);
    expect(request.data).toMatchObject({
      name: input.name,
      restoreJobId: row?.restoreJobId,
      restoredTo: input.destination,
      recoveryPoint: { snapshotId: row?.recoveryPoint?.snapshotId, pointInTime: row?.recoveryPoint?.pointInTime },
      deadline: row?.validation?.deadline,
    });
    expect((request.data as { answerWith: string }).answerWith).toContain(
      `runbooks drill validate ${handle.workflowId} --resource ${row?.resourceId}`,
    );
  }
  expect(deliveriesTo('/ops', handle.workflowId).map((p) => p.event)).toEqual(['drill.failed']);
});

/** An update refused by its validator: it fails with the reason, naming the resource. */
async function expectRefused(update: Promise<unknown>, ...texts: string[]): Promise<void> {
  const err = await update.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
  const message = (err as WorkflowUpdateFailedError).cause?.message ?? '';
  for (const text of texts) expect(message).toContain(text);
}
