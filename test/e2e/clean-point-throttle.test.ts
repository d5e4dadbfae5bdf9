// A cleanPoint search whose query reads the service throttles (429 with Retry-After) and fails (503): each read that
// fails retries the point's check, which polls the query it started instead of starting it again, so the search finds
// the point the corruption implies having started each query once.
import { randomUUID } from 'node:crypto';
import type { SeenRequest } from '../../bench/http-proxy';
import { cleanPoint } from '../../runbooks/workflows';
import { dailyDatabaseSnapshots, setupE2E, teardownE2E, type E2E } from './helpers';

const CANDIDATES = 8;
/** Snapshot number k (1 = the oldest) and every newer one are corrupted: the answer is number k - 1. */
const CORRUPT_FROM = 6;
/** 429s armed on the query reads that follow each query's start. */
const THROTTLED_PER_QUERY = 2;

const QUERY_START = /\/snapshots\/([^/]+)\/databases\/query$/;
const QUERY_READ = /\/queries\/[^/]+\/(status|results)$/;

let fx: E2E;

beforeAll(async () => {
  fx = await setupE2E();
}, 240_000);

afterAll(() => teardownE2E(fx), 60_000);

test('throttled and failed query reads resume the same query: no query started twice, the same clean point', async () => {
  const database = await dailyDatabaseSnapshots(fx, CANDIDATES);
  const { resourceId, restoreAccountId, before, check, snapshots } = database;
  await fx.control.corrupt(resourceId, { from: snapshots[CORRUPT_FROM - 1], kind: 'rows-changed' });

  const seen: SeenRequest[] = [];
  const stopWatching = fx.proxy.watch((r) => seen.push(r));
  // Armed before the service sees each start, so the reads that follow it are the ones answered 429.
  const removeThrottle = fx.proxy.add({
    method: 'POST',
    path: QUERY_START,
    action: async () => {
      await fx.control.faults({
        rate: 1,
        kinds: ['429'],
        retryAfterSeconds: 1,
        method: 'GET',
        pathPrefix: `/v1/projects/${fx.sim.projectId}/queries/`,
        times: THROTTLED_PER_QUERY,
      });
    },
  });
  // And the first results read fails outright once: a 5xx goes back to the retry policy, which resumes too.
  const removeFailure = fx.proxy.add({ method: 'GET', path: /\/queries\/[^/]+\/results$/, action: '503', times: 1 });
  const workflowId = `clean-point-throttle-${randomUUID()}`;
  try {
    const result = await fx.env.client.workflow.execute(cleanPoint, {
      taskQueue: fx.worker.taskQueue,
      workflowId,
      args: [{ resourceId, restoreAccountId, before, check, windowDays: CANDIDATES + 1 }],
    });

    expect(result.clean?.snapshotId).toBe(snapshots[CORRUPT_FROM - 2]);
    for (const point of result.examined) {
      const number = snapshots.indexOf(point.snapshotId) + 1;
      expect([number, point.verdict]).toEqual([number, number >= CORRUPT_FROM ? 'fail' : 'pass']);
    }

    // Each query the result records was started once, and is the query the service started.
    const starts = seen.filter((r) => r.method === 'POST' && QUERY_START.test(r.path) && r.status === 202);
    expect(starts).toHaveLength(result.queries.run);
    const started = starts.map((r) => (JSON.parse(r.answer ?? '{}') as { queryId?: string }).queryId).sort();
    const recorded = result.examined.flatMap((p) => p.queries.map((q) => q.queryId)).sort();
    expect(started).toEqual(recorded);
    expect(starts.map((r) => QUERY_START.exec(r.path)?.[1])).toEqual(result.examined.map((p) => p.snapshotId));

    // Every armed 429 was answered, and each 429 or 503 cost the point's check one attempt (then resumed).
    const throttled = seen.filter((r) => r.method === 'GET' && QUERY_READ.test(r.path) && r.status === 429);
    expect(throttled).toHaveLength(THROTTLED_PER_QUERY * result.queries.run);
    expect(result.queries.run).toBeGreaterThanOrEqual(3);
    const attempts = await checkAttempts(workflowId);
    expect(attempts).toHaveLength(result.examined.length);
    expect(attempts.reduce((sum, a) => sum + (a - 1), 0)).toBe(throttled.length + 1);
  } finally {
    removeThrottle();
    removeFailure();
    stopWatching();
    await fx.control.clearFaults();
  }
}, 120_000);

/** The attempt on which each point's check completed, from the run's history. */
async function checkAttempts(workflowId: string): Promise<number[]> {
  const events = (await fx.env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const checks = new Set(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'checkRecoveryPoint')
      .map((e) => Number(e.eventId)),
  );
  return events
    .filter((e) => checks.has(Number(e.activityTaskStartedEventAttributes?.scheduledEventId ?? -1)))
    .map((e) => Number(e.activityTaskStartedEventAttributes?.attempt ?? 0));
}
