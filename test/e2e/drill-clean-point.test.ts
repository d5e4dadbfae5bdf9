// A drill whose recovery point is `latest-clean`: each resource's newest snapshot that passes a check, found by a
// cleanPoint search on the snapshots, is restored, and the search is the report's evidence. On the simulator, whose
// database snapshots it corrupts, and a real dev server.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { DrDrillInput, DrDrillResult } from '../../runbooks/dr-drill/contract';
import type { DrillReport } from '../../runbooks/dr-drill/report';
import { drDrill } from '../../runbooks/workflows';
import { snapshotsOf } from '../../simulator/jobs';
import { databaseNameOf } from '../../simulator/seed-databases';
import { bucketDestination, drillVaultAndAccount, keepNudging, setupE2E, teardownE2E, type E2E } from './helpers';

let fx: E2E;
let resourceId = '';
/** A virtual machine with snapshots: no database to query. */
let machineId = '';
/** The database's seeded snapshots, newest first. */
let newestFirst: string[] = [];

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
    (r) => r.resource.resourceType === 'PA_VM' && snapshotsOf(state, r.resource.id).length > 0,
  );
  if (!machine) throw new Error('the seeded simulator has no virtual machine with a snapshot');
  machineId = machine.resource.id;
  newestFirst = snapshotsOf(state, resourceId)
    .sort((a, b) => Date.parse(b.pointInTime ?? b.createdTime) - Date.parse(a.pointInTime ?? a.createdTime))
    .map((s) => s.id);
}, 120_000);

afterAll(() => teardownE2E(fx), 60_000);

async function drill(expect: string, ids = [resourceId]): Promise<{ result: DrDrillResult; report: DrillReport }> {
  const { vault, account } = drillVaultAndAccount(fx);
  const input: DrDrillInput = {
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
  const handle = await fx.env.client.workflow.start(drDrill, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `drill-${input.name}`,
    args: [input],
  });
  const stop = keepNudging(handle);
  const result = await handle.result().finally(stop);
  const report = JSON.parse(await readFile(result.report.json, 'utf8')) as DrillReport;
  return { result, report };
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
    "latest-clean: not a relational database, and a clean point is found by queries on its snapshots' database",
  ]);
  expect(machine?.restoreJobId).toBeUndefined();
  expect(report.resources.find((r) => r.resourceId === resourceId)?.verdict).toBe('PASS');
}, 120_000);
