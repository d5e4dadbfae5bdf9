// A drill fanned out to batches (runbooks/dr-drill/fan-out.ts), on the dev server: histories bounded, the drill
// continues as new and still reports every resource once, progress over batches, and a cancel that leaves nothing
// running. The server suggests continuing as new early here, so that a drill of a hundred resources hands over.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { WorkflowHandle } from '@temporalio/client';
import { statusQuery } from '../../contracts';
import { DrDrillInput } from '../../runbooks/dr-drill/contract';
import { batchSizeFor, lanesWorthSharing } from '../../runbooks/dr-drill/fan-out';
import type { DrillReport } from '../../runbooks/dr-drill/report';
import { drDrill } from '../../runbooks/workflows';
import type { GeneratedInventory } from '../../simulator/seed-inventory-bulk';
import {
  bucketDestination,
  cancelRun,
  drillVaultAndAccount,
  eventually,
  phaseReached,
  setupE2E,
  teardownE2E,
  type E2E,
} from './helpers';

/** The history length past which the server suggests continuing as new (Temporal's default is 4 Ki events). */
const SUGGEST_CONTINUE_AS_NEW = 30;
const RESOURCES = 100;
/** Long enough that no restore ends on its own during a test. */
const RESTORE_HELD_SECONDS = 3_600;

let fx: E2E;

beforeAll(async () => {
  fx = await setupE2E({
    serverArgs: ['--dynamic-config-value', `limit.historyCount.suggestContinueAsNew=${SUGGEST_CONTINUE_AS_NEW}`],
  });
}, 120_000);

afterAll(() => teardownE2E(fx), 60_000);

/** A new account of `count` resources, each with one snapshot (restored as the drill's `latest` point), sorted. */
async function generatedResources(count: number): Promise<string[]> {
  const inventory = await fx.control.call<GeneratedInventory>('POST', '/inventory/generate', {
    resources: count,
    snapshotsPerResource: 1,
  });
  return Object.values(fx.sim.ctx.state.resources)
    .filter((r) => r.sourceAccountId === inventory.sourceAccountId)
    .map((r) => r.resource.id)
    .sort();
}

function drillInput(ids: string[], parallelism: number): DrDrillInput {
  const { vault, account } = drillVaultAndAccount(fx);
  return {
    name: `fan-out-${randomUUID().slice(0, 8)}`,
    resources: { ids },
    vaultId: vault.id,
    restoreAccountId: account.id,
    destination: bucketDestination('dr-drill-restores', 'drills/'),
    targets: { rpoSeconds: 30 * 86400, rtoSeconds: 600 },
    parallelism,
  };
}

async function start(input: DrDrillInput) {
  return fx.env.client.workflow.start(drDrill, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `drill-${input.name}`,
    args: [input],
  });
}

/** Every run of a workflow ID, oldest first, with its status and its history's length. */
async function runsOf(workflowId: string) {
  const runs: { runId: string; status: string; events: number }[] = [];
  for await (const run of fx.env.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    const { events } = await fx.env.client.workflow.getHandle(workflowId, run.runId).fetchHistory();
    runs.push({ runId: run.runId, status: run.status.name, events: events?.length ?? 0 });
  }
  return runs.reverse();
}

/** The drill's batches (child workflows), as the server lists them. */
async function batchesOf(handle: WorkflowHandle) {
  const batches: { workflowId: string; status: string; events: number }[] = [];
  const query = `WorkflowType = 'drDrillBatch' AND WorkflowId STARTS_WITH '${handle.workflowId}--'`;
  for await (const batch of fx.env.client.workflow.list({ query })) {
    const { events } = await fx.env.client.workflow.getHandle(batch.workflowId).fetchHistory();
    batches.push({ workflowId: batch.workflowId, status: batch.status.name, events: events?.length ?? 0 });
  }
  return batches;
}

test('a drill of 100 resources runs in batches with bounded histories, continues as new, and reports every resource once', async () => {
  await fx.control.jobsConfig({ restoreSeconds: 2 });
  const ids = await generatedResources(RESOURCES);
  const input = drillInput(ids, 60);
  const parsedInput = DrDrillInput.parse(input);
  // Parallelism 60 is over twice a batch: this drill's batches keep their lanes, and are sized for that.
  const batchSize = batchSizeFor(parsedInput, lanesWorthSharing(parsedInput));
  const handle = await start(input);

  // Progress over every batch, while they run.
  const during = await eventually('batches running', async () => {
    const status = await handle.query(statusQuery);
    return (status.drill?.batches.running ?? 0) >= 2 && status;
  });
  const batchCount = Math.ceil(RESOURCES / batchSize);
  expect(during.drill).toMatchObject({ total: RESOURCES, waitingForSlot: 0, batches: { total: batchCount } });
  expect(during.progress).toMatchObject({ total: RESOURCES, unit: 'resources' });

  const result = await handle.result();
  expect(result.summary).toMatchObject({ total: RESOURCES, passed: RESOURCES, failed: 0, verdict: 'PASS' });
  const report = JSON.parse(await readFile(result.report.json, 'utf8')) as DrillReport;
  expect(report.resources.map((r) => r.resourceId).sort()).toEqual(ids);
  expect(report.runId).toBe(handle.firstExecutionRunId);
  const restores = (await fx.control.jobs()).restoreJobs.filter((j) => ids.includes(j.resourceDetails?.id ?? ''));
  expect(new Set(restores.map((j) => j.resourceDetails?.id)).size).toBe(RESOURCES);
  expect(restores).toHaveLength(RESOURCES);

  // The drill handed over to new runs as the server suggested; no run and no batch grew past its bound.
  const runs = await runsOf(handle.workflowId);
  expect(runs.length).toBeGreaterThanOrEqual(2);
  expect(runs.slice(0, -1).every((r) => r.status === 'CONTINUED_AS_NEW')).toBe(true);
  expect(runs.at(-1)?.status).toBe('COMPLETED');
  const batches = await batchesOf(handle);
  expect(batches).toHaveLength(batchCount);
  expect(batches.every((b) => b.status === 'COMPLETED')).toBe(true);
  const largestBatch = Math.max(...batches.map((b) => b.events));
  const perResource = largestBatch / batchSize;
  console.log(
    `drill of ${RESOURCES} resources: runs ${runs.map((r) => r.events).join(', ')} events; batches ` +
      `${batches.map((b) => b.events).join(', ')} events (${perResource.toFixed(1)} per resource in a full batch)`,
  );
  expect(Math.max(...runs.map((r) => r.events))).toBeLessThan(2_000);
  expect(largestBatch).toBeLessThan(1_000);

  // The report puts the worst first, then every resource.
  const markdown = await readFile(result.report.markdown, 'utf8');
  expect(markdown).toContain(`Verdict: **PASS** (${RESOURCES} passed, 0 partial, 0 failed of ${RESOURCES})`);
  for (const row of report.resources) expect(markdown).toContain(row.restoreJobId);
});

test('cancelling a drill cancels its batches: none is left running, and no restore starts after', async () => {
  // Restores that cannot end before the cancel reaches every batch, however slow the machine: they end only when the
  // test moves the simulator's clock past them, after the stop.
  await fx.control.jobsConfig({ restoreSeconds: RESTORE_HELD_SECONDS });
  const ids = await generatedResources(RESOURCES);
  const input = drillInput(ids, 50);
  const parsed = DrDrillInput.parse(input);
  const firstBatchLanes = Math.min(parsed.parallelism, batchSizeFor(parsed, lanesWorthSharing(parsed)));
  const drilled = new Set(ids);
  const restores = async () =>
    (await fx.control.jobs()).restoreJobs.filter((j) => drilled.has(j.resourceDetails?.id ?? ''));
  const handle = await start(input);
  await phaseReached(handle, 'drilling');
  // More restores than the first batch has lanes: the second batch has some under way too.
  await eventually('restores under way in several batches', async () => {
    const status = await handle.query(statusQuery);
    const under = (await restores()).length;
    return (status.drill?.batches.running ?? 0) >= 2 && under > firstBatchLanes && { status, under };
  });

  await cancelRun(handle);
  const stoppedAt = Date.parse((await fx.control.state()).now);

  // Each batch said it stopped before the drill ended; its run closes right after.
  const batches = await eventually('every batch closed', async () => {
    const listed = await batchesOf(handle);
    return listed.every((b) => b.status !== 'RUNNING') && listed;
  });
  expect(batches.length).toBeGreaterThanOrEqual(2);
  expect(batches.map((b) => b.status)).toEqual(batches.map(() => 'CANCELLED'));
  const started = await restores();
  expect(started.length).toBeGreaterThan(0);
  expect(started.length).toBeLessThan(RESOURCES);
  // The restores under way finish on their own (the service has no cancel for a job); none started after the stop.
  await fx.control.advanceClock(RESTORE_HELD_SECONDS);
  const ended = await eventually('every restore job ended', async () => {
    const now = await restores();
    return now.every((j) => !['JOB_PENDING', 'JOB_RUNNING'].includes(j.jobExecutionDetails.status)) && now;
  });
  expect(ended).toHaveLength(started.length);
  expect(ended.filter((j) => Date.parse(j.jobExecutionDetails.createdTime) > stoppedAt)).toEqual([]);
});

test('a batch terminated from outside after the drill continued as new ends as failed when the drill is nudged', async () => {
  await fx.control.jobsConfig({ restoreSeconds: 6 });
  // A full batch in many lanes beside one of fewer lanes, which runs on after the drill has handed over: at
  // parallelism 51, over twice a batch, the batches keep their lanes (runbooks/dr-drill/fan-out.ts).
  const ids = await generatedResources(80);
  const handle = await start(drillInput(ids, 51));
  // A batch the first run started, still running once the drill has handed over to a new run.
  const firstRunBatches = await eventually('batches running', async () => {
    const running = (await batchesOf(handle)).filter((b) => b.status === 'RUNNING');
    return running.length > 0 && running;
  });
  await eventually('the drill continued as new', async () => (await runsOf(handle.workflowId)).length >= 2);
  const inherited = (await batchesOf(handle)).find(
    (b) => b.status === 'RUNNING' && firstRunBatches.some((f) => f.workflowId === b.workflowId),
  );
  if (!inherited) throw new Error('no batch of the first run still running after the drill continued as new');
  await fx.env.client.workflow.getHandle(inherited.workflowId).terminate('terminated from outside');

  await handle.signal('nudge');
  const result = await handle.result();
  expect(result.summary.total).toBe(ids.length);
  expect(result.summary.failed).toBeGreaterThan(0);
  expect(result.summary.verdict).toBe('FAIL');
  const report = JSON.parse(await readFile(result.report.json, 'utf8')) as DrillReport;
  expect(report.resources.map((r) => r.resourceId).sort()).toEqual(ids);
  const lost = report.resources.filter((r) => r.reasons.some((why) => why.includes('without telling its end')));
  expect(lost.length).toBeGreaterThan(0);
});
