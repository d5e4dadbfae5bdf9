// A drill whose recovery point is `latest-clean`: each resource's newest snapshot that passes a check, found by a
// cleanPoint search on the snapshots, is restored, and the search is the report's evidence. On the simulator, whose
// database snapshots it corrupts, and a real dev server.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { deliverVerdict } from '../../cli/drill-command';
import type { RunbookStatus } from '../../contracts';
import type { DrDrillInput, DrDrillResult } from '../../runbooks/dr-drill/contract';
import type { DrillReport } from '../../runbooks/dr-drill/report';
import { drDrill } from '../../runbooks/workflows';
import { snapshotsOf } from '../../simulator/jobs';
import { databaseNameOf } from '../../simulator/seed-databases';
import { batchWorkflowId } from '../../runbooks/dr-drill/fan-out-contract';
import {
  bucketDestination,
  drillVaultAndAccount,
  eventually,
  keepNudging,
  setupE2E,
  teardownE2E,
  type E2E,
} from './helpers';

let fx: E2E;
let resourceId = '';
/** A virtual machine with snapshots: no database to query. */
let machineId = '';
/** The database's seeded snapshots, newest first. */
let newestFirst: string[] = [];
/** The machine's, newest first. */
let machineNewestFirst: string[] = [];

beforeAll(async () => {
  fx = await setupE2E();
  await fx.control.jobsConfig({ querySeconds: 0 });
  const state = fx.sim.ctx.state;
  const resource = Object.values(state.resources).find(
    (r) => r.resource.resourceType === 'PA_RELATIONAL_DB' && snapshotsOf(state, r.resource.id).length >= 2,
  );
  if (!resource) throw new Error('the seeded simulator has no database with two snapshots');
  resourceId = resource.resource.id;
  const machine = Object.values(state.resources).find(
    (r) => r.resource.resourceType === 'PA_VM' && snapshotsOf(state, r.resource.id).length >= 2,
  );
  if (!machine) throw new Error('the seeded simulator has no virtual machine with two snapshots');
  machineId = machine.resource.id;
  const newestFirstOf = (id: string) =>
    snapshotsOf(state, id)
      .sort((a, b) => Date.parse(b.pointInTime ?? b.createdTime) - Date.parse(a.pointInTime ?? a.createdTime))
      .map((s) => s.id);
  newestFirst = newestFirstOf(resourceId);
  machineNewestFirst = newestFirstOf(machineId);
}, 120_000);

afterAll(() => teardownE2E(fx), 60_000);

function startDrill(expect: string, ids: string[], extra: Partial<DrDrillInput> = {}) {
  const { vault, account } = drillVaultAndAccount(fx);
  const input: DrDrillInput = {
    ...extra,
    name: `clean-${randomUUID().slice(0, 8)}`,
    resources: { ids },
    vaultId: vault.id,
    restoreAccountId: account.id,
    destination: bucketDestination('dr-drill-restores', 'clean/'),
    targets: { rpoSeconds: 31 * 86400, rtoSeconds: 3600 },
    recoveryPoint: {
      select: 'latest-clean',
      windowDays: 30,
      check: {
        name: 'no encrypted emails',
        databaseName: databaseNameOf(fx.sim.ctx.state.seed, resourceId),
        destination: { bucketA: { bucketName: `query-results-${vault.region}` } },
        queries: [{ name: 'encrypted', sql: "SELECT count(*) FROM customers WHERE email LIKE 'ENC:%'", expect }],
      },
    },
  };
  return fx.env.client.workflow.start(drDrill, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `drill-${input.name}`,
    args: [input],
  });
}

async function finished(handle: WorkflowHandleWithFirstExecutionRunId<typeof drDrill>) {
  const stop = keepNudging(handle);
  const result = await handle.result().finally(stop);
  const report = JSON.parse(await readFile(result.report.json, 'utf8')) as DrillReport;
  return { result, report };
}

async function drill(expect: string, ids = [resourceId]): Promise<{ result: DrDrillResult; report: DrillReport }> {
  return finished(await startDrill(expect, ids));
}

/**
 * Plays the validator of `resource` on a run until `until` settles: each restore the run waits on is judged by the
 * snapshot it holds (read from the restore job, as the notice names it). Returns the snapshots judged, in order.
 */
async function validate(
  workflowId: string,
  resource: string,
  judge: (snapshotId: string) => 'pass' | 'fail',
  until: Promise<unknown>,
): Promise<string[]> {
  let settled = false;
  void until.finally(() => (settled = true)).catch(() => undefined);
  const judged: string[] = [];
  const answered = new Set<string>();
  const handle = fx.env.client.workflow.getHandle(workflowId);
  while (!settled) {
    const status = await handle.query<RunbookStatus>('status').catch(() => undefined);
    const jobId = status?.ids.jobId;
    const snapshotId = jobId === undefined ? undefined : fx.sim.ctx.state.restoreJobs[jobId]?.snapshotId;
    if (status?.awaitingVerdict?.includes(resource) && jobId && snapshotId && !answered.has(jobId)) {
      await deliverVerdict(fx.env.client, workflowId, { resourceId: resource, snapshotId, result: judge(snapshotId) });
      answered.add(jobId);
      judged.push(snapshotId);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return judged;
}

test('the newest snapshot damaged: the drill restores the one before it, and reports the search', async () => {
  await fx.control.corrupt(resourceId, { from: newestFirst[0], kind: 'rows-changed' });
  const { result, report } = await drill('value = 0');
  expect(result.summary).toMatchObject({ total: 1, passed: 1, verdict: 'PASS' });
  const [row] = report.resources;
  expect(row?.recoveryPoint).toMatchObject({ snapshotId: newestFirst[1], selection: 'latest-clean', windowDays: 30 });
  const clean = row?.recoveryPoint?.clean;
  expect(clean?.check.name).toBe('no encrypted emails');
  expect(clean?.check.sha256).toMatch(/^[0-9a-f]{64}$/);
  expect(clean?.verdict).toMatch(/^clean as of no encrypted emails: /);
  expect(clean?.behindNewest.points).toBe(1);
  expect(clean?.examined).toContainEqual(expect.objectContaining({ snapshotId: newestFirst[0], verdict: 'fail' }));
  expect(clean?.examined).toContainEqual(expect.objectContaining({ snapshotId: newestFirst[1], verdict: 'pass' }));
  expect(clean?.queries).toBe(clean?.examined.length);
  // The restore is of the clean point.
  expect(fx.sim.ctx.state.restoreJobs[row?.restoreJobId ?? '']?.snapshotId).toBe(newestFirst[1]);
}, 120_000);

test('no clean point in the window: the resource fails with the search as its finding, and nothing is restored', async () => {
  const { result, report } = await drill('value = 12345');
  expect(result.summary).toMatchObject({ total: 1, failed: 1, verdict: 'FAIL' });
  const [row] = report.resources;
  expect(row?.recoveryPoint).toBeUndefined();
  expect(row?.restoreJobId).toBeUndefined();
  expect(row?.reasons).toEqual([expect.stringMatching(/is clean as of no encrypted emails$/)]);
  expect(row?.cleanSearch?.examined.every((p) => p.verdict === 'fail')).toBe(true);
}, 120_000);

test('a resource with no database fails with that reason, and the database beside it is drilled', async () => {
  const { result, report } = await drill('value = 0', [resourceId, machineId]);
  expect(result.summary).toMatchObject({ total: 2, passed: 1, failed: 1 });
  const machine = report.resources.find((r) => r.resourceId === machineId);
  expect(machine?.verdict).toBe('FAIL');
  expect(machine?.reasons).toEqual([
    "latest-clean: not a relational database, and a clean point is found by queries on its snapshots' database " +
      "(or by restores the drill's validation judges, when it has one)",
  ]);
  expect(machine?.restoreJobId).toBeUndefined();
  expect(report.resources.find((r) => r.resourceId === resourceId)?.verdict).toBe('PASS');
}, 120_000);

test('a resource with no database, in a drill with validation: searched by restores that validation judges', async () => {
  const infected = machineNewestFirst[0] ?? '';
  const handle = await startDrill('value = 0', [machineId], { validation: { windowHours: 1 } });
  // The search is a child of the drill's one batch; the validator hears its ID in the notice (answerWith).
  const batch = batchWorkflowId(handle.workflowId, handle.firstExecutionRunId, 0);
  const search = `${batch}--clean-point--${machineId}`;
  await eventually(`search ${search}`, () => fx.env.client.workflow.getHandle(search).describe());
  const searchEnded = fx.env.client.workflow.getHandle(search).result();
  const judged = await validate(search, machineId, (s) => (s === infected ? 'fail' : 'pass'), searchEnded);
  // The drill then restores the point found, and its own validation is asked as for any restore.
  await eventually('the drill to wait on its validation', async () => {
    const status = await handle.query<RunbookStatus>('status');
    return status.awaitingVerdict?.includes(machineId);
  });
  await deliverVerdict(fx.env.client, handle.workflowId, { resourceId: machineId, result: 'pass' });
  const { result, report } = await finished(handle);

  expect(result.summary).toMatchObject({ total: 1, passed: 1, verdict: 'PASS' });
  const [row] = report.resources;
  const clean = row?.recoveryPoint?.clean;
  expect(row?.recoveryPoint?.snapshotId).toBe(machineNewestFirst[1]);
  expect(clean?.check).toMatchObject({ name: `${report.name} validation`, by: 'restores' });
  expect(clean?.restores).toBe(judged.length);
  expect(clean?.queries).toBe(0);
  expect(clean?.examined.map((p) => p.snapshotId)).toEqual(judged);
  expect(fx.sim.ctx.state.restoreJobs[row?.restoreJobId ?? '']?.snapshotId).toBe(machineNewestFirst[1]);
  expect(row?.validation?.status).toBe('passed');
}, 120_000);
