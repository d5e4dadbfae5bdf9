// A cleanPoint search whose worker is killed (SIGKILL) mid-search: it resumes on another worker, asks no point whose
// answer it recorded again, and finds the same point as a search that was never interrupted.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { CleanPointInput } from '../../runbooks/clean-point/contract';
import { cleanPoint } from '../../runbooks/workflows';
import { lineOf } from '../worker/worker-process';
import {
  dailyDatabaseSnapshots,
  eventually,
  setupE2E,
  startKillableWorker,
  startWorker,
  teardownE2E,
  type E2E,
} from './helpers';

let fx: E2E;
let input: CleanPointInput;
let snapshots: string[] = [];

beforeAll(async () => {
  fx = await setupE2E();
  const database = await dailyDatabaseSnapshots(fx, 32);
  snapshots = database.snapshots;
  const { resourceId, restoreAccountId, before, check } = database;
  input = { resourceId, restoreAccountId, before, check, windowDays: 33 };
  await fx.control.corrupt(resourceId, { from: snapshots[19], kind: 'rows-changed' });
}, 240_000);

afterAll(() => teardownE2E(fx), 60_000);

/** The points whose check completed, from the run's history. */
async function pointsAnswered(handle: WorkflowHandle): Promise<number> {
  const events = (await handle.fetchHistory()).events ?? [];
  const checks = new Set(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'checkRecoveryPoint')
      .map((e) => Number(e.eventId)),
  );
  return events.filter((e) => checks.has(Number(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? -1)))
    .length;
}

test('killed mid-search, the search resumes elsewhere, asks no answered point again, and finds the same point', async () => {
  const undisturbed = await fx.env.client.workflow.execute(cleanPoint, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `clean-point-${randomUUID()}`,
    args: [input],
  });
  expect(undisturbed.clean?.snapshotId).toBe(snapshots[18]);

  // Queries that take seconds, so that the kill falls inside a point's check.
  await fx.control.jobsConfig({ querySeconds: 2 });
  const queried: string[] = [];
  const stopWatching = fx.proxy.watch((r) => {
    const match = /\/snapshots\/([^/]+)\/databases\/query$/.exec(r.path);
    if (r.method === 'POST' && match?.[1] && r.status === 202) queried.push(match[1]);
  });
  const dir = await mkdtemp(join(tmpdir(), 'clean-point-crash-'));
  const taskQueue = `clean-point-crash-${randomUUID()}`;
  const doomed = await startKillableWorker(fx, taskQueue, join(dir, 'data'), 180_000);
  let rescuer: Awaited<ReturnType<typeof startWorker>> | undefined;
  try {
    await lineOf(doomed, /"msg":"worker running"/);
    const handle = await fx.env.client.workflow.start(cleanPoint, {
      taskQueue,
      workflowId: `clean-point-${randomUUID()}`,
      args: [input],
    });
    // Two points answered, the third asked: then the worker dies.
    await eventually('two points answered', async () => (await pointsAnswered(handle)) >= 2, 60_000, 100);
    await eventually('the third point queried', () => queried.length >= 3, 30_000, 50);
    doomed.process.kill('SIGKILL');
    await doomed.exited;
    const answeredBeforeKill = await pointsAnswered(handle);
    rescuer = await startWorker(fx, { taskQueue });
    const resumed = await handle.result();

    expect(resumed.clean?.snapshotId).toBe(undisturbed.clean?.snapshotId);
    expect(resumed.examined.map((p) => p.snapshotId)).toEqual(undisturbed.examined.map((p) => p.snapshotId));
    // Each point answered before the kill was queried once; only the point whose check the kill cut short may have
    // been queried again.
    const answered = resumed.examined.slice(0, answeredBeforeKill).map((p) => p.snapshotId);
    for (const id of answered) expect([id, queried.filter((q) => q === id).length]).toEqual([id, 1]);
    expect(queried.length).toBeLessThanOrEqual(resumed.examined.length + 1);
  } finally {
    stopWatching();
    doomed.process.kill('SIGKILL');
    await rescuer?.stop();
    await fx.control.jobsConfig({ querySeconds: 0 });
    await rm(dir, { recursive: true, force: true });
  }
}, 300_000);
