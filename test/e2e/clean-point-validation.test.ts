// cleanPoint by restore and validation: a VM (which the query call cannot reach) with 8 daily snapshots, each probed
// point restored and judged by a validator outside, within a budget of restores. The test plays the validator: it
// reads which snapshot the restore job holds (the notice names it too), and judges the newest three infected.
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { deliverVerdict } from '../../cli/drill-command';
import type { CleanPointInput } from '../../runbooks/clean-point/contract';
import { cleanPoint } from '../../runbooks/workflows';
import {
  bucketDestination,
  dailySnapshotsOf,
  drillVaultAndAccount,
  eventually,
  seededVmWithSnapshot,
  setupE2E,
  teardownE2E,
  type E2E,
} from './helpers';

const CANDIDATES = 8;

let fx: E2E;
let resourceId = '';
let snapshots: string[] = [];
let input: CleanPointInput;
/** The points the validator judges infected: the newest three. */
let infected = new Set<string>();

beforeAll(async () => {
  fx = await setupE2E();
  resourceId = seededVmWithSnapshot(fx).id;
  await fx.control.jobsConfig({ restoreSeconds: 1 });
  const daily = await dailySnapshotsOf(fx, resourceId, CANDIDATES);
  snapshots = daily.snapshots;
  infected = new Set(snapshots.slice(-3));
  input = {
    resourceId,
    restoreAccountId: drillVaultAndAccount(fx).account.id,
    windowDays: CANDIDATES + 1,
    before: daily.before,
    validation: {
      name: 'no ransom note',
      destination: bucketDestination('dr-drill-restores', 'clean-point/'),
      windowHours: 1,
    },
  };
}, 120_000);

afterAll(() => teardownE2E(fx), 60_000);

function start(validation: Partial<NonNullable<CleanPointInput['validation']>> = {}) {
  return fx.env.client.workflow.start(cleanPoint, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `clean-point-${randomUUID()}`,
    args: [{ ...input, validation: { ...input.validation!, ...validation } }],
  });
}

interface Waiting {
  jobId: string;
  snapshotId: string;
}

/**
 * The restore the search waits on a verdict for, now: its job and the snapshot it holds, read from the job as a
 * validator reads it from the notice. Undefined once the search has ended. `answered`: jobs judged already.
 */
async function waitingPoint(handle: WorkflowHandle, answered: ReadonlySet<string>): Promise<Waiting | undefined> {
  const found = await eventually<Waiting | { done: true }>(`a point of ${handle.workflowId} to validate`, async () => {
    const description = await handle.describe();
    if (description.status.name !== 'RUNNING') return { done: true as const };
    const status = await handle.query<{ awaitingVerdict?: string[]; ids: { jobId?: string } }>('status');
    const jobId = status.ids.jobId;
    if (!status.awaitingVerdict?.includes(resourceId) || !jobId || answered.has(jobId)) return undefined;
    const snapshotId = fx.sim.ctx.state.restoreJobs[jobId]?.snapshotId;
    return snapshotId === undefined ? undefined : { jobId, snapshotId };
  });
  return 'done' in found ? undefined : found;
}

/** Answers every point the search asks about, as the validator; returns the snapshots judged, in order. */
async function validateUntilDone(handle: WorkflowHandle, answered = new Set<string>()): Promise<string[]> {
  const judged: string[] = [];
  for (let point = await waitingPoint(handle, answered); point; point = await waitingPoint(handle, answered)) {
    const result = infected.has(point.snapshotId) ? 'fail' : 'pass';
    await deliverVerdict(fx.env.client, handle.workflowId, { resourceId, snapshotId: point.snapshotId, result });
    answered.add(point.jobId);
    judged.push(point.snapshotId);
  }
  return judged;
}

const restoresOf = () => Object.values(fx.sim.ctx.state.restoreJobs).filter((j) => j.resourceId === resourceId);

test('each probed point is restored and judged outside: the newest clean one within ⌈log2 8⌉ + 1 restores', async () => {
  const restoredBefore = restoresOf().length;
  const handle = await start();
  const judged = await validateUntilDone(handle);
  const result = await handle.result();

  expect(result.clean?.snapshotId).toBe(snapshots[CANDIDATES - 4]);
  expect(result.verdict).toMatch(/^clean as of no ransom note: /);
  expect(result.check.by).toBe('restores');
  expect(result.restores).toMatchObject({ run: judged.length, budget: 4, bound: 4 });
  expect(judged.length).toBeLessThanOrEqual(4);
  // One restore per point judged, no more: every verdict in the result has its own restore job.
  expect(restoresOf().length - restoredBefore).toBe(judged.length);
  expect(result.examined.map((p) => p.snapshotId)).toEqual(judged);
  for (const point of result.examined) {
    expect(point.verdict).toBe(infected.has(point.snapshotId) ? 'fail' : 'pass');
    expect(point.queries).toEqual([]);
    expect(point.validation?.restoreJobId).toEqual(expect.any(String));
  }
  expect(result.queries.run).toBe(0);
}, 120_000);

test('a verdict naming another snapshot is refused; with a budget of 2 restores the search stops and says what it knows', async () => {
  const handle = await start({ maxRestores: 2 });
  const first = await waitingPoint(handle, new Set());
  if (!first) throw new Error('the search asked for no verdict');
  const other = snapshots.find((s) => s !== first.snapshotId) ?? '';
  await expect(
    deliverVerdict(fx.env.client, handle.workflowId, { resourceId, snapshotId: other, result: 'pass' }),
  ).rejects.toThrow(`waits for a verdict on snapshot ${first.snapshotId}; this one names ${other}`);
  await expect(deliverVerdict(fx.env.client, handle.workflowId, { resourceId, result: 'pass' })).rejects.toThrow(
    'this one names none',
  );

  const judged = await validateUntilDone(handle);
  const result = await handle.result();
  expect(judged).toHaveLength(2);
  expect(result.clean).toBeNull();
  expect(result.restores).toMatchObject({ run: 2, budget: 2 });
  expect(result.stopped?.reason).toBe('the budget of 2 restores was spent before the search was done');
  // Bisection of 8: index 3 (5th newest, clean), then index 1 (infected): the last clean point is older than 1.
  expect(result.stopped?.bracket).toEqual({
    oldestFailed: { snapshotId: snapshots[CANDIDATES - 2], index: 1 },
    newestPassed: { snapshotId: snapshots[CANDIDATES - 4], index: 3 },
  });
  expect(result.verdict).toMatch(/^search stopped: the budget of 2 restores/);
}, 120_000);
