// A drill's validation window, on the time-skipping test server: hours of waiting for a verdict pass at once while a
// test awaits the result. The simulator and the runbook worker are the real ones; only the Temporal server differs.
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { readFile } from 'node:fs/promises';
import { drDrill } from '../../runbooks/workflows';
import { drillValidationUpdate } from '../../contracts';
import type { DrDrillInput, DrDrillResult } from '../../runbooks/dr-drill/contract';
import type { DrillReport } from '../../runbooks/dr-drill/report';
import { statusQuery } from '../../contracts';
import {
  bucketDestination,
  eventually,
  setupE2E,
  startWorker,
  teardownE2E,
  type E2E,
  drillVaultAndAccount,
} from './helpers';

let fx: E2E;
let base: Omit<DrDrillInput, 'name' | 'resources'>;
/** Seeded resources with a snapshot in the last 30 days, not relational databases: validated from outside. */
let resources: string[];

beforeAll(async () => {
  // No sticky queues: a stopped worker's own queue would hold the drill's next task until its timeout, which this
  // server lets run out only while time skips. Every task replays the history instead, as on a new worker.
  fx = await setupE2E({ timeSkipping: true, worker: { maxCachedWorkflows: 0 } });
  // Jobs end as they start: a look that finds one running would wait on a retry timer, which this server fires only
  // while a test awaits a result.
  await fx.control.jobsConfig({ restoreSeconds: 0 });
  const state = fx.sim.ctx.state;
  const { vault, account } = drillVaultAndAccount(fx);
  const monthAgo = Date.now() - 30 * 86400_000;
  const recent = new Set(
    Object.values(state.snapshots)
      .filter((s) => Date.parse(s.pointInTime ?? s.createdTime) > monthAgo)
      .map((s) => s.resourceId),
  );
  resources = Object.values(state.resources)
    .map((r) => r.resource)
    .filter((r) => r.resourceType === 'PA_OBJECT_STORE' && recent.has(r.id))
    .map((r) => r.id)
    .sort();
  if (resources.length < 4) throw new Error('the seeded simulator has too few recently backed-up object stores');
  base = {
    vaultId: vault.id,
    restoreAccountId: account.id,
    destination: bucketDestination('dr-drill-restores', 'validated/'),
    targets: { rpoSeconds: 30 * 86400, rtoSeconds: 4 * 3600 },
    validation: { windowHours: 2 },
  };
}, 120_000);

afterAll(() => teardownE2E(fx), 60_000);

function startDrill(resourceId: string) {
  const name = `window-${randomUUID().slice(0, 8)}`;
  return fx.env.client.workflow.start(drDrill, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `drill-${name}`,
    args: [{ ...base, name, resources: { ids: [resourceId] } }],
  });
}

type Handle = Awaited<ReturnType<typeof startDrill>>;

/** Until the drill says it waits for a verdict on `resourceId` (its status query's `awaitingVerdict`). */
function waitingForVerdict(handle: Handle, resourceId: string) {
  return eventually(`${handle.workflowId} waiting for a verdict on ${resourceId}`, async () => {
    const status = await handle.query(statusQuery);
    return status.awaitingVerdict?.includes(resourceId) === true && status;
  });
}

/**
 * The drill's result and report. `skipping`: through the test server's own client, which lets time skip while it
 * waits (to the window's end, and then on past any timer left); otherwise through a plain client, in real time.
 */
async function reportOf(handle: Handle, { skipping = false } = {}) {
  const plain = new Client({ connection: fx.env.connection, namespace: fx.env.namespace ?? 'default' });
  const result: DrDrillResult = await (
    skipping ? handle : plain.workflow.getHandle<typeof drDrill>(handle.workflowId)
  ).result();
  const report = JSON.parse(await readFile(result.report.json, 'utf8')) as DrillReport;
  const row = report.resources[0];
  if (!row) throw new Error('the report has no resource');
  return { result, report, row };
}

const take = () => {
  const id = resources.shift();
  if (!id) throw new Error('no resource left');
  return id;
};

test('a pass within the window: the resource passes, and RTO adds the wait for the verdict to the restore', async () => {
  const resourceId = take();
  const handle = await startDrill(resourceId);
  await waitingForVerdict(handle, resourceId);
  const taken = await handle.executeUpdate(drillValidationUpdate, {
    args: [{ resourceId, result: 'pass', message: 'app answered its health check' }],
  });
  expect(taken).toEqual({ taken: true, resourceId, result: 'pass' });

  const { result, row } = await reportOf(handle);
  expect(result.summary).toMatchObject({ verdict: 'PASS', passed: 1, failed: 0 });
  expect(row.validation).toMatchObject({ status: 'passed', message: 'app answered its health check' });
  expect(row.validation?.answeredAt).toBeDefined();
  expect(row.rtoSeconds).toBeCloseTo((row.rtoRestoreSeconds ?? NaN) + (row.rtoValidationSeconds ?? NaN), 6);
  // A second verdict finds nothing waiting: refused, and the report keeps the first.
  await expect(
    handle.executeUpdate(drillValidationUpdate, { args: [{ resourceId, result: 'fail' }] }),
  ).rejects.toThrow();
});

test('a fail within the window: the resource fails with the validator message, and the drill is not PASS', async () => {
  const resourceId = take();
  const handle = await startDrill(resourceId);
  await waitingForVerdict(handle, resourceId);
  await handle.executeUpdate(drillValidationUpdate, {
    args: [{ resourceId, result: 'fail', message: 'login page returns 500' }],
  });
  const { result, row } = await reportOf(handle);
  expect(result.summary).toMatchObject({ verdict: 'FAIL', passed: 0, failed: 1 });
  expect(row).toMatchObject({ verdict: 'FAIL', validation: { status: 'failed', message: 'login page returns 500' } });
  expect(row.reasons.join('\n')).toContain('login page returns 500');
});

test('the wait survives a worker restart: a new worker takes the verdict and the drill passes', async () => {
  const resourceId = take();
  const handle = await startDrill(resourceId);
  await waitingForVerdict(handle, resourceId);
  await fx.worker.stop();
  fx.worker = await startWorker(fx, { taskQueue: fx.worker.taskQueue, maxCachedWorkflows: 0 });
  const taken = handle.executeUpdate(drillValidationUpdate, { args: [{ resourceId, result: 'pass' }] });
  expect(await taken).toMatchObject({ taken: true });
  const { result, row } = await reportOf(handle);
  expect(result.summary.verdict).toBe('PASS');
  expect(row.validation?.status).toBe('passed');
});

test('no verdict within the window: the resource fails with "validation timed out" once the window has passed', async () => {
  const resourceId = take();
  const handle = await startDrill(resourceId);
  const status = await waitingForVerdict(handle, resourceId);
  expect(status.waitingFor).toContain(`runbooks drill validate ${handle.workflowId}`);
  // Awaiting the result lets the test server skip the two hours of the window. Last in the file: the server's clock
  // then runs on far ahead of the simulator's.
  const { result, row } = await reportOf(handle, { skipping: true });
  expect(result.summary.verdict).toBe('FAIL');
  expect(row.validation).toMatchObject({ status: 'timedOut' });
  expect(row.validation?.answeredAt).toBeUndefined();
  expect(row.reasons).toContain('validation timed out: no verdict within 2 h');
  expect(Date.parse(row.validation?.deadline ?? '')).toBe(Date.parse(row.validation?.requestedAt ?? '') + 2 * 3600_000);
});
