// The wait for reviewers as one watch: looks on the schedule inside one activity attempt, an approval seen without a
// nudge, and a wait that resumes on another worker when its worker goes away. Real dev server, simulator, worker.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { lineOf } from '../worker/worker-process';
import { approvalGatedRestore } from '../../runbooks/workflows';
import {
  APPROVAL,
  bucketDestination,
  eventually,
  restoreSuite,
  startKillableWorker,
  startWorker,
  waitingRequestId,
} from './helpers';

const { fx, target } = restoreSuite({ outcomes: {} });

function start(taskQueue = fx.worker.taskQueue) {
  return fx.env.client.workflow.start(approvalGatedRestore, {
    taskQueue,
    workflowId: `watch-${randomUUID()}`,
    args: [{ ...target, kind: 'bucket', destination: bucketDestination('restored-objects', 'watch/') }],
  });
}

/** Waits until the run's wait for reviewers runs on a worker. */
function watchRunning(handle: WorkflowHandle) {
  return eventually('the watch to run', async () => {
    const pending = (await handle.describe()).raw.pendingActivities ?? [];
    return pending.some((a) => a.activityType?.name === 'checkApproval' && a.lastStartedTime);
  });
}

/** Every read of an action request the worker makes, by time (epoch ms), from now on. */
function requestReads(): { of: (requestId: string) => number[]; stop: () => void } {
  const reads: { at: number; path: string }[] = [];
  const stop = fx.proxy.watch((r) => {
    if (r.method === 'GET' && /\/action-approvals\/my-requests\/[^/]+$/.test(r.path)) reads.push(r);
  });
  return { of: (id) => reads.filter((r) => r.path.endsWith(`/${id}`)).map((r) => r.at), stop };
}

/** The checkApproval activities the run scheduled, and the attempt each ended on, from its history. */
async function approvalWaits(handle: WorkflowHandle): Promise<{ scheduled: number; attempts: number[] }> {
  const events = (await handle.fetchHistory()).events ?? [];
  const ids = new Set(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'checkApproval')
      .map((e) => Number(e.eventId)),
  );
  const attempts = events
    .filter((e) => ids.has(Number(e.activityTaskStartedEventAttributes?.scheduledEventId ?? -1)))
    .map((e) => e.activityTaskStartedEventAttributes?.attempt ?? 0);
  return { scheduled: ids.size, attempts };
}

test('the wait looks on its schedule inside one attempt, and sees an approval without a nudge', async () => {
  await fx.control.addPolicy({ approvalWindowHours: 48, executionWindowHours: 24 });
  const reads = requestReads();
  try {
    const handle = await start();
    const requestId = await waitingRequestId(handle);
    // The submit reads the request; the watch's first look comes 30 s later.
    await eventually('the watch to look once', () => reads.of(requestId).length >= 2, 90_000, 500);
    await fx.control.approve(requestId, APPROVAL);
    const result = await handle.result();

    expect(result.approval).toMatchObject({ requestId, status: 'APPROVED' });
    const at = reads.of(requestId);
    const history = await approvalWaits(handle);
    // One activity, one attempt, several looks: the looks cost no activity task each.
    expect(history).toEqual({ scheduled: 1, attempts: [1] });
    expect(at.length).toBeGreaterThanOrEqual(3);
    // On the schedule (runtime/poll-delays.ts): 30 s after the submit's read, then half again the request's age.
    const gaps = at.slice(1).map((t, i) => t - (at[i] ?? t));
    expect(gaps[0]).toBeGreaterThanOrEqual(29_000);
    expect(gaps[1]).toBeGreaterThanOrEqual(40_000);
    const signals = ((await handle.fetchHistory()).events ?? []).filter(
      (e) => e.workflowExecutionSignaledEventAttributes,
    );
    expect(signals).toEqual([]);
  } finally {
    reads.stop();
  }
});

test('a wait whose worker shuts down resumes on another worker, as a retry of the same activity', async () => {
  await fx.control.addPolicy({ approvalWindowHours: 48, executionWindowHours: 24 });
  const handle = await start();
  const requestId = await waitingRequestId(handle);
  await watchRunning(handle);
  await fx.control.approve(requestId, APPROVAL);
  // The watch sleeps until its first look, 30 s on; its worker goes away meanwhile.
  await fx.worker.stop();
  fx.worker = await startWorker(fx, { taskQueue: fx.worker.taskQueue });
  const result = await handle.result();

  expect(result.approval).toMatchObject({ requestId, status: 'APPROVED' });
  // The same activity, retried on the new worker: its second attempt looked at once and saw the approval.
  expect(await approvalWaits(handle)).toEqual({ scheduled: 1, attempts: [2] });
});

test('a wait whose worker is killed (SIGKILL) resumes on another worker at its heartbeat timeout, exactly once', async () => {
  await fx.control.addPolicy({ approvalWindowHours: 48, executionWindowHours: 24 });
  const dir = await mkdtemp(join(tmpdir(), 'watch-crash-'));
  const taskQueue = `watch-crash-${randomUUID()}`;
  // The built worker, as a process that can be killed outright.
  const doomed = await startKillableWorker(fx, taskQueue, join(dir, 'data'), 120_000);
  let rescuer: Awaited<ReturnType<typeof startWorker>> | undefined;
  try {
    await lineOf(doomed, /"msg":"worker running"/);
    const since = (await fx.control.state()).now;
    const handle = await start(taskQueue);
    const requestId = await waitingRequestId(handle);
    await watchRunning(handle);
    await fx.control.approve(requestId, APPROVAL);
    doomed.process.kill('SIGKILL');
    await doomed.exited;
    rescuer = await startWorker(fx, { taskQueue });
    const result = await handle.result();

    expect(result.approval).toMatchObject({ requestId, status: 'APPROVED' });
    expect(await approvalWaits(handle)).toEqual({ scheduled: 1, attempts: [2] });
    // One restore, however the wait moved.
    const { restoreJobs } = await fx.control.jobs();
    const ours = restoreJobs.filter(
      (j) => j.snapshotDetails?.id === target.snapshotId && j.jobExecutionDetails.createdTime >= since,
    );
    expect(ours.map((j) => j.jobExecutionDetails.jobId)).toEqual([result.job.jobId]);
  } finally {
    doomed.process.kill('SIGKILL');
    await rescuer?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}, 300_000);
