// cleanPoint end to end: a database resource with 32 daily snapshots, some of them corrupted by the simulator, and the
// search for the newest one that passes a check, by queries on the snapshots (nothing restored).
import { randomUUID } from 'node:crypto';
import type { CleanPointInput, CleanPointResult } from '../../runbooks/clean-point/contract';
import { cleanPoint } from '../../runbooks/workflows';
import { dailyDatabaseSnapshots, setupE2E, teardownE2E, type E2E } from './helpers';

const CANDIDATES = 32;

let fx: E2E;
let resourceId = '';
/** The resource's snapshots, oldest first: number k of the wording is `snapshots[k - 1]`. */
let snapshots: string[] = [];
let before = '';
let input: Omit<CleanPointInput, 'before'>;

beforeAll(async () => {
  fx = await setupE2E();
  const database = await dailyDatabaseSnapshots(fx, CANDIDATES);
  ({ resourceId, snapshots, before } = database);
  input = {
    resourceId,
    restoreAccountId: database.restoreAccountId,
    windowDays: CANDIDATES + 1,
    check: database.check,
  };
}, 240_000);

afterAll(() => teardownE2E(fx), 60_000);

function search(): Promise<CleanPointResult> {
  return fx.env.client.workflow.execute(cleanPoint, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `clean-point-${randomUUID()}`,
    args: [{ ...input, before }],
  });
}

/** Snapshot number k (1 = the oldest of the window) and every newer one are corrupted. */
const corruptFrom = (k: number, also: number[] = []) =>
  fx.control.corrupt(resourceId, {
    from: snapshots[k - 1],
    ...(also.length > 0 ? { snapshotIds: also.map((n) => snapshots[n - 1] ?? '') } : {}),
    kind: 'rows-changed',
  });

test.each([
  [CANDIDATES, 'the newest'],
  [20, 'one in the middle'],
  [1, 'the oldest: none in the window is clean'],
])(
  'corruption from snapshot %i of 32 (%s): the answer is the one before, within 6 queries',
  async (k) => {
    await corruptFrom(k);
    const result = await search();
    expect(result.window.candidates).toBe(CANDIDATES);
    if (k === 1) {
      expect(result.clean).toBeNull();
      expect(result.verdict).toBe(`none of the 32 recovery points in the window is clean as of no encrypted emails`);
    } else {
      expect(result.clean?.snapshotId).toBe(snapshots[k - 2]);
      expect(result.clean?.behindNewest.points).toBe(CANDIDATES - (k - 1));
      expect(result.verdict).toMatch(/^clean as of no encrypted emails: /);
    }
    expect(result.queries.run).toBeLessThanOrEqual(6);
    expect(result.queries.bound).toBe(6);
    // Every point examined was judged by its data: corrupted ones failed, the others passed.
    for (const point of result.examined) {
      const number = snapshots.indexOf(point.snapshotId) + 1;
      expect([number, point.verdict]).toEqual([number, number >= k ? 'fail' : 'pass']);
      expect(point.queries[0]?.firstValue === '0').toBe(point.verdict === 'pass');
    }
    expect(result.nonMonotone).toEqual([]);
    expect(result.check.sha256).toMatch(/^[0-9a-f]{64}$/);
  },
  120_000,
);

test('a corrupt point older than the clean one it found is reported as a non-monotone finding', async () => {
  // Snapshots 20 to 32 corrupted, and 18 as well: 19 is clean between two corrupted runs.
  await corruptFrom(20, [18]);
  const result = await search();
  expect(result.clean?.snapshotId).toBe(snapshots[18]);
  expect(result.nonMonotone).toEqual([{ passed: snapshots[18], failedOlder: snapshots[17] }]);
  expect(result.queries.run).toBeLessThanOrEqual(6);
}, 120_000);
