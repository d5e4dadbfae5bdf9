// drDrill end to end, worker restarts in the middle of waits, and retries under injected faults.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { InventoryResource } from '../../api';
import { approvalGatedRestore, drDrill } from '../../runbooks/workflows';
import type { DrDrillInput } from '../../runbooks/dr-drill/contract';
import type { DrillReport } from '../../runbooks/dr-drill/report';
import { RunbookKindKey } from '../../contracts';
import {
  APPROVAL,
  bucketDestination,
  eventually,
  expectRefusedInput,
  jobsPerResource,
  keepNudging,
  phaseReached,
  scanForSecrets,
  setupE2E,
  startWorker,
  teardownE2E,
  wireResourceType,
  type E2E,
  backedUp,
  drillVaultAndAccount,
} from './helpers';

let fx: E2E;
let vaultId: string;
let vaultRegion: string;
let restoreAccountId: string;
/** Resources no test has used yet, by type: each test takes its own, so that job counts are its own. */
let unused: Map<string, InventoryResource[]>;

beforeAll(async () => {
  fx = await setupE2E();
  const state = fx.sim.ctx.state;
  const { vault, account } = drillVaultAndAccount(fx);
  vaultId = vault.id;
  vaultRegion = vault.region;
  restoreAccountId = account.id;
  unused = new Map();
  for (const { resource } of Object.values(state.resources).sort((a, b) =>
    a.resource.id.localeCompare(b.resource.id),
  )) {
    unused.set(resource.resourceType, [...(unused.get(resource.resourceType) ?? []), resource]);
  }
}, 120_000);

afterAll(() => teardownE2E(fx), 60_000);

beforeEach(async () => {
  await fx.control.clearPolicies();
  await fx.control.jobsConfig({ outcomes: {}, backupSeconds: 1 });
});

function take(type: string, where = (r: InventoryResource) => backedUp(fx, r.id)): InventoryResource {
  const list = unused.get(type) ?? [];
  const index = list.findIndex(where);
  const [resource] = index < 0 ? [] : list.splice(index, 1);
  if (!resource) throw new Error(`no unused ${type} resource left`);
  return resource;
}

/** An unused resource of a type with a snapshot already taken, and that snapshot. */
function takeSnapshotted(type: string) {
  const snapshots = Object.values(fx.sim.ctx.state.snapshots);
  const resource = take(type, (r) => snapshots.some((s) => s.resourceId === r.id));
  const snapshot = snapshots.find((s) => s.resourceId === resource.id);
  if (!snapshot) throw new Error(`resource ${resource.id} has no snapshot`);
  return { resource, snapshot };
}

function drillInput(ids: string[], overrides: Partial<DrDrillInput> = {}): DrDrillInput {
  return {
    name: `e2e-${randomUUID().slice(0, 8)}`,
    resources: { ids },
    vaultId,
    restoreAccountId,
    destination: bucketDestination('dr-drill-restores', 'drills/'),
    // The seeded snapshots are one to two days old: this RPO target is met by every resource backed up before.
    targets: { rpoSeconds: 3 * 86400, rtoSeconds: 600 },
    retentionDays: 3,
    parallelism: 2,
    ...overrides,
  };
}

function startDrill(input: DrDrillInput) {
  return fx.env.client.workflow.start(drDrill, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `drill-${input.name}`,
    args: [input],
  });
}

/** A bucket restore into the seeded restore account, under whatever approval policy the test set. */
function startBucketRestore(resourceId: string, snapshotId: string, extra: { comment?: string } = {}) {
  return fx.env.client.workflow.start(approvalGatedRestore, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `restore-${randomUUID()}`,
    args: [
      {
        resourceId,
        snapshotId,
        restoreAccountId,
        destination: bucketDestination('restored-objects'),
        ...extra,
      },
    ],
  });
}

/**
 * The largest number of resources that were being drilled at the same moment: from the backup's creation (or the
 * restore's, when the drill took no backup) to the restore's end.
 */
function maxOverlap(report: DrillReport, jobs: Awaited<ReturnType<E2E['control']['jobs']>>): number {
  const times = (id: string | undefined, list: typeof jobs.backupJobs | typeof jobs.restoreJobs) =>
    list.find((j) => j.jobExecutionDetails.jobId === id)?.jobExecutionDetails;
  const spans = report.resources.map((r) => {
    const backup = times(r.backupJobId, jobs.backupJobs);
    const restore = times(r.restoreJobId, jobs.restoreJobs);
    const start = backup?.createdTime ?? restore?.createdTime ?? '';
    return [Date.parse(start), Date.parse(restore?.endTime ?? backup?.endTime ?? '')] as const;
  });
  return Math.max(...spans.map(([start]) => spans.filter(([s, e]) => s <= start && start < e).length));
}

test('a drill over resources of several types restores their latest recovery points, reports RPO, RTO, checks and verdicts, and one failure does not stop the others', async () => {
  const { databases } = await fx.control.state();
  const takenDb = databases.find((d) => d.tables.includes('customers') && unusedHas(d.resourceId));
  if (!takenDb) throw new Error('no relational database in /_simulator/state');
  const relational = takeById('PA_RELATIONAL_DB', takenDb.resourceId);
  const vm = take('PA_VM');
  const bucket = take('PA_OBJECT_STORE');
  const files = take('PA_FILE_SYSTEM');
  const broken = take('PA_KEYVALUE_DB');
  await fx.control.jobsConfig({ outcomes: { [broken.id]: 'JOB_FAILED' } });
  const since = (await fx.control.state()).now;

  // No recoveryPoint: the default, the latest snapshot of the last 30 days.
  const input = drillInput([relational.id, vm.id, bucket.id, files.id, broken.id], {
    sqlCheck: {
      databaseName: takenDb.databaseName,
      query: 'SELECT id, name FROM customers',
      expectation: 'rows >= 100',
      destination: bucketDestination(`query-results-${vaultRegion}`, 'drill-checks'),
    },
  });
  const handle = await startDrill(input);
  const stop = keepNudging(handle);
  const result = await handle.result().finally(stop);

  // The result holds the report's paths and the summary, nothing else.
  expect(Object.keys(result).sort()).toEqual(['report', 'summary']);
  expect(Object.keys(result.report).sort()).toEqual(['html', 'json', 'markdown']);
  expect(result.summary).toMatchObject({ total: 5, passed: 4, partial: 0, failed: 1, verdict: 'FAIL' });

  const report = JSON.parse(await readFile(result.report.json, 'utf8')) as DrillReport;
  expect(report).toMatchObject({ name: input.name, workflowId: handle.workflowId, targets: input.targets });
  expect(report.schemaVersion).toBe(3);
  expect(report.summary).toEqual(result.summary);
  const byId = new Map(report.resources.map((r) => [r.resourceId, r]));
  const restoreJobs = fx.sim.ctx.state.restoreJobs;
  for (const resource of [relational, vm, bucket, files]) {
    const row = byId.get(resource.id);
    // The report names the type as the service does; the state the test took it from is neutral in both dialects.
    const resourceType = wireResourceType(resource.resourceType);
    expect(row).toMatchObject({ verdict: 'PASS', resourceType, rpoMet: true, rtoMet: true, snapshotReused: false });
    // The newest snapshot before the drill was restored, and RPO is measured on it: no backup was taken.
    const newest = newestSnapshotBefore(resource.id, report.startedAt);
    expect(row?.recoveryPoint).toEqual({
      snapshotId: newest.id,
      pointInTime: newest.pointInTime,
      selection: 'latest',
      windowDays: 30,
    });
    expect(row?.backupJobId).toBeUndefined();
    expect(row?.rpoPoint).toBeUndefined();
    expect(row?.snapshotId).toBe(newest.id);
    expect(row?.rpoSeconds).toBe((Date.parse(report.startedAt) - Date.parse(newest.pointInTime ?? '')) / 1000);
    expect(restoreJobs[row?.restoreJobId ?? '']?.snapshotId).toBe(newest.id);
    expect(row?.rtoRestoreSeconds).toBeGreaterThan(0);
    expect(row?.rtoSeconds).toBe((row?.rtoRestoreSeconds ?? NaN) + (row?.rtoValidationSeconds ?? 0));
  }
  // The SQL check is the relational database's validation: its time is part of the RTO.
  const checked = byId.get(relational.id);
  expect(checked?.check).toMatchObject({ passed: true, expectation: 'rows >= 100' });
  expect(checked?.check?.rows).toBeGreaterThanOrEqual(100);
  expect(checked?.rtoValidationSeconds).toBeGreaterThan(0);
  // The check cannot run on a VM: the report says so, and by default the VM still passes, with nothing validated.
  expect(byId.get(vm.id)?.check).toEqual({
    query: 'SELECT id, name FROM customers',
    expectation: 'rows >= 100',
    passed: false,
    status: 'notRun',
    detail: 'check not run: not a relational database',
  });
  expect(byId.get(vm.id)?.rtoValidationSeconds).toBeUndefined();
  expect(byId.get(vm.id)?.reasons).toEqual(['check not run: not a relational database']);
  const failed = byId.get(broken.id);
  expect(failed).toMatchObject({ verdict: 'FAIL' });
  expect(failed?.backupJobId).toBeUndefined();
  // Its recovery point was found (it was backed up before); the restore of it failed.
  expect(failed?.recoveryPoint?.snapshotId).toBe(newestSnapshotBefore(broken.id, report.startedAt).id);
  expect(failed).toMatchObject({ restoreStatus: 'JOB_FAILED' });
  expect(failed?.reasons.join(' ')).toContain('CLOUD_OPERATION_FAILED');

  const markdown = await readFile(result.report.markdown, 'utf8');
  expect(markdown).toContain(`# Disaster-recovery drill: ${input.name}`);
  expect(markdown).toContain('Targets: RPO 3.0 d (259200 s), RTO 10.0 min (600 s)');
  expect(markdown).toContain('Verdict: **FAIL** (4 passed, 0 partial, 1 failed of 5)');
  for (const row of report.resources) {
    expect(markdown).toContain(row.resourceName);
    if (row.restoreJobId) expect(markdown).toContain(row.restoreJobId);
  }
  expect(markdown).toContain('## Not passed');

  // No backup at all, at most one restore per resource, never more than `parallelism` resources at once.
  const jobs = await fx.control.jobs();
  const backups = jobsPerResource(jobs.backupJobs, since);
  const restores = jobsPerResource(jobs.restoreJobs, since);
  expect([...backups.keys()]).toEqual([]);
  for (const resource of [relational, vm, bucket, files]) {
    expect(restores.get(resource.id)).toEqual([byId.get(resource.id)?.restoreJobId]);
  }
  expect(restores.get(broken.id)).toEqual([failed?.restoreJobId]);
  const overlap = maxOverlap(report, jobs);
  expect(overlap).toBeGreaterThanOrEqual(1);
  expect(overlap).toBeLessThanOrEqual(2);
  expect((await handle.describe()).typedSearchAttributes.get(RunbookKindKey)).toBe('drDrill');
});

test('runs survive a worker restart in the middle of their waits, and start each restore exactly once', async () => {
  await fx.control.addPolicy({ approvalWindowHours: 24, executionWindowHours: 4 });
  const since = (await fx.control.state()).now;
  const { resource: bucketResource, snapshot } = takeSnapshotted('PA_OBJECT_STORE');
  const restore = await startBucketRestore(bucketResource.id, snapshot.id, { comment: 'restart test' });
  const status = await phaseReached(restore, 'waiting for approval');
  const requestId = /action request (\S+)/.exec(status.waitingFor ?? '')?.[1] ?? '';

  // Backups long enough that the drill is certainly waiting on them when the worker goes away: a fresh recovery point.
  await fx.control.jobsConfig({ backupSeconds: 8 });
  const drilled = [take('PA_VM'), take('PA_FILE_SYSTEM')];
  const drill = await startDrill(
    drillInput(
      drilled.map((r) => r.id),
      { recoveryPoint: { select: 'fresh' } },
    ),
  );
  await eventually('both backup jobs', async () => {
    const backups = jobsPerResource((await fx.control.jobs()).backupJobs, since);
    return drilled.every((r) => backups.get(r.id)?.length === 1);
  });
  await fx.control.jobsConfig({ backupSeconds: 1 });

  await fx.worker.stop();
  // Approval arrives while no worker runs; the backups finish meanwhile too.
  await fx.control.approve(requestId, APPROVAL);
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  fx.worker = await startWorker(fx, { taskQueue: fx.worker.taskQueue });

  const stop = keepNudging(restore, drill);
  const [restored, drillResult] = await Promise.all([restore.result(), drill.result()]).finally(stop);
  expect(restored.job.succeeded).toBe(true);
  expect(restored.approval?.status).toBe('APPROVED');
  expect(drillResult.summary).toMatchObject({ total: 2, passed: 2, verdict: 'PASS' });

  const jobs = await fx.control.jobs();
  const restores = jobsPerResource(jobs.restoreJobs, since);
  expect(restores.get(bucketResource.id)).toEqual([restored.job.jobId]);
  const backups = jobsPerResource(jobs.backupJobs, since);
  for (const resource of drilled) {
    expect(restores.get(resource.id)).toHaveLength(1);
    expect(backups.get(resource.id)).toHaveLength(1);
  }
});

test('under injected faults and lost responses, a drill and a restore complete with exactly one job each', async () => {
  const drilled = [take('PA_VM'), take('PA_OBJECT_STORE'), take('PA_FILE_SYSTEM')];
  const { resource: restoreTarget, snapshot } = takeSnapshotted('PA_OBJECT_STORE');
  const since = (await fx.control.state()).now;

  // The service acts on these calls but the answer never reaches the worker: an ambiguous failure.
  const removers = [
    fx.proxy.add({ method: 'POST', path: /\/take-snapshot$/, action: 'reset-after', times: 2 }),
    fx.proxy.add({ method: 'POST', path: /\/restore-(files|bucket)$/, action: 'reset-after', times: 2 }),
  ];
  await fx.control.faults({ rate: 0.3, kinds: ['500', '503', '429', 'reset'], pathPrefix: '/v1/projects' });
  try {
    // Fresh recovery points, so that the drill takes snapshots through the faults too.
    const drill = await startDrill(
      drillInput(
        drilled.map((r) => r.id),
        { parallelism: 3, recoveryPoint: { select: 'fresh' } },
      ),
    );
    const restore = await startBucketRestore(restoreTarget.id, snapshot.id);
    const stop = keepNudging(drill, restore);
    const [drillResult, restored] = await Promise.all([drill.result(), restore.result()]).finally(stop);
    expect(drillResult.summary).toMatchObject({ total: 3, passed: 3, verdict: 'PASS' });
    expect(restored.job.succeeded).toBe(true);
  } finally {
    await fx.control.clearFaults();
    removers.forEach((remove) => remove());
  }

  console.log(`responses lost on purpose: ${fx.proxy.lost.join('; ')}`);
  expect(fx.proxy.lost.filter((l) => l.includes('take-snapshot -> 202')).length).toBeGreaterThanOrEqual(1);
  expect(fx.proxy.lost.filter((l) => /restore-(files|bucket) -> 202/.test(l)).length).toBeGreaterThanOrEqual(1);
  const jobs = await fx.control.jobs();
  const backups = jobsPerResource(jobs.backupJobs, since);
  const restores = jobsPerResource(jobs.restoreJobs, since);
  for (const resource of drilled) {
    expect(backups.get(resource.id)).toHaveLength(1);
    expect(restores.get(resource.id)).toHaveLength(1);
  }
  expect(restores.get(restoreTarget.id)).toHaveLength(1);
  expect(backups.get(restoreTarget.id)).toBeUndefined();
});

test('a drill by filters takes every resource that matches when they are within maxResources', async () => {
  const picked = [take('PA_VM'), take('PA_VM')];
  const since = (await fx.control.state()).now;
  const filters = { id: { in: picked.map((r) => r.id) } };
  const handle = await startDrill(drillInput([], { resources: { filters, maxResources: 2 } }));
  const stop = keepNudging(handle);
  const result = await handle.result().finally(stop);
  expect(result.summary).toMatchObject({ total: 2, passed: 2, verdict: 'PASS' });
  const jobs = await fx.control.jobs();
  const restores = jobsPerResource(jobs.restoreJobs, since);
  for (const resource of picked) expect(restores.get(resource.id)).toHaveLength(1);
  expect(jobsPerResource(jobs.backupJobs, since).size).toBe(0);
});

test.each([
  [{ name: 'Not A Valid Name' }, 'name'],
  [{ resources: {} }, 'resources'],
  [{ parallelism: 0 }, 'parallelism'],
  [{ targets: { rpoSeconds: 0, rtoSeconds: 60 } }, 'targets.rpoSeconds'],
] as const)('invalid input %j fails at once with InvalidInput naming %s', async (overrides, field) => {
  const handle = await fx.env.client.workflow.start(drDrill, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `drill-invalid-${randomUUID()}`,
    args: [{ ...drillInput(['some-id']), ...overrides }],
  });
  await expectRefusedInput(handle, `invalid input ${field}`);
});

test('with requireChecks, a resource the SQL check cannot run on fails, and every report says the check did not run', async () => {
  const vm = take('PA_VM');
  const input = drillInput([vm.id], {
    requireChecks: true,
    sqlCheck: {
      databaseName: 'app',
      query: 'SELECT 1',
      expectation: 'rows >= 1',
      destination: bucketDestination(`query-results-${vaultRegion}`),
    },
  });
  const handle = await startDrill(input);
  const stop = keepNudging(handle);
  const result = await handle.result().finally(stop);

  expect(result.summary).toMatchObject({ total: 1, passed: 0, failed: 1, verdict: 'FAIL' });
  const report = JSON.parse(await readFile(result.report.json, 'utf8')) as DrillReport;
  expect(report.schemaVersion).toBe(3);
  const [row] = report.resources;
  // The restore went well: the check alone fails it.
  expect(row).toMatchObject({ verdict: 'FAIL', rpoMet: true, rtoMet: true, restoreStatus: 'JOB_COMPLETED' });
  expect(row?.check).toMatchObject({ status: 'notRun', passed: false });
  expect(row?.check?.rows).toBeUndefined();
  expect(row?.reasons).toEqual(['check not run: not a relational database (requireChecks)']);
  // No query was started for it.
  expect(Object.values(fx.sim.ctx.state.queries).filter((q) => q.resourceId === vm.id)).toEqual([]);
  const markdown = await readFile(result.report.markdown, 'utf8');
  expect(markdown).toContain('| check not run: not a relational database |');
  expect(markdown).toContain('check not run: not a relational database (requireChecks)');
  const html = await readFile(result.report.html ?? '', 'utf8');
  expect(html).toContain('<td class="not-run">check not run: not a relational database</td>');
});

test('no secret or token appears in any workflow history or in the logs', async () => {
  await scanForSecrets(fx, 5);
});

function unusedHas(resourceId: string): boolean {
  return (unused.get('PA_RELATIONAL_DB') ?? []).some((r) => r.id === resourceId);
}

function takeById(type: string, id: string): InventoryResource {
  return take(type, (r) => r.id === id);
}

function newestSnapshotBefore(resourceId: string, before: string) {
  const prior = Object.values(fx.sim.ctx.state.snapshots)
    .filter((s) => s.resourceId === resourceId && s.pointInTime !== undefined && s.pointInTime < before)
    .sort((a, b) => (b.pointInTime ?? '').localeCompare(a.pointInTime ?? ''))[0];
  if (!prior) throw new Error(`resource ${resourceId} has no snapshot before ${before}`);
  return prior;
}
