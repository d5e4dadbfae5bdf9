// RunbookTracker.waitNudgeable on Temporal's time-skipping test server, with a miniature of a runbook's wait.
import { randomUUID } from 'node:crypto';
import { activityInfo } from '@temporalio/activity';
import type { WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { nudgeSignal } from '../contracts';
import { ONE_LOOK_AT_A_TIME } from './tracker';
import type { JobActivities, WaitInput } from '../test/fixtures/tracker-workflows';
import { waitForJob, waitForJobs } from '../test/fixtures/tracker-workflows';
import { createWorker, startTimeSkippingEnv } from '../test/helpers/temporal';
import { notYet } from './failures';

const HOUR = 3600 * 1000;

/** What the fake service knows of one job, and what the activities saw of it. */
interface Job {
  /** What a poll returns once set; until then the poll says "not yet". */
  pollAnswer?: string;
  /** The poll's attempt from which it answers, when no `pollAnswer` is set. */
  readyAtAttempt?: number;
  /** What a peek returns; unset, the peek says "not yet". */
  peekAnswer?: string;
  polls: number;
  peeks: number;
  firstPoll: Deferred;
  firstPeek: Deferred;
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}

function deferred(): Deferred {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const jobs = new Map<string, Job>();
let looking = 0;
let mostLooksAtOnce = 0;

function job(jobId: string): Job {
  const found = jobs.get(jobId);
  if (found === undefined) throw new Error(`unknown job ${jobId}`);
  return found;
}

function newJob(settings: Partial<Pick<Job, 'peekAnswer' | 'readyAtAttempt'>> = {}): [string, Job] {
  const jobId = `job-${randomUUID()}`;
  const state: Job = { ...settings, polls: 0, peeks: 0, firstPoll: deferred(), firstPeek: deferred() };
  jobs.set(jobId, state);
  return [jobId, state];
}

const activities: JobActivities = {
  async pollJob(jobId) {
    const state = job(jobId);
    state.polls += 1;
    state.firstPoll.resolve();
    if (state.pollAnswer !== undefined) return `polled: ${state.pollAnswer}`;
    if (state.readyAtAttempt !== undefined && activityInfo().attempt >= state.readyAtAttempt) return 'polled: ready';
    throw notYet(`job ${jobId} is running`);
  },
  async peekJob(jobId) {
    const state = job(jobId);
    state.peeks += 1;
    state.firstPeek.resolve();
    looking += 1;
    mostLooksAtOnce = Math.max(mostLooksAtOnce, looking);
    // Long enough for a second look to start meanwhile, were looks not kept apart.
    await new Promise((resolve) => setTimeout(resolve, 200));
    looking -= 1;
    if (state.peekAnswer !== undefined) return `peeked: ${state.peekAnswer}`;
    throw notYet(`job ${jobId} is running`);
  },
  async noteDone() {},
};

let env: TestWorkflowEnvironment;

beforeAll(async () => {
  env = await startTimeSkippingEnv();
});

afterAll(async () => {
  await env?.teardown();
});

/** Runs a worker while `body` drives one workflow run. */
async function withRun<T>(
  input: WaitInput,
  body: (handle: WorkflowHandle<typeof waitForJob>) => Promise<T>,
): Promise<T> {
  const worker = await createWorker(env, {
    workflowsPath: require.resolve('../test/fixtures/tracker-workflows'),
    activities,
  });
  return worker.runUntil(async () => {
    const handle = await env.client.workflow.start(waitForJob, {
      args: [input],
      taskQueue: worker.options.taskQueue,
      workflowId: `wait-${input.jobId}`,
    });
    return body(handle);
  });
}

/** The history's event kinds in order, e.g. `activityTaskScheduled`. */
async function eventKinds(handle: WorkflowHandle): Promise<string[]> {
  const { events } = await handle.fetchHistory();
  return (events ?? []).map((event) => {
    const attributes = Object.entries(event).find(([key, value]) => key.endsWith('EventAttributes') && value != null);
    return attributes ? attributes[0].replace(/EventAttributes$/, '') : 'unknown';
  });
}

test('a nudge whose peek finds the answer ends the wait at once and cancels the poll', async () => {
  const [jobId, state] = newJob({ peekAnswer: 'done' });

  const { result, kinds, pollsAtNudge } = await withRun({ jobId, poll: 'waiting' }, async (handle) => {
    // The wait is under way: the poll has said "not yet" at least once.
    await state.firstPoll.promise;
    const pollsAtNudge = state.polls;
    await handle.signal(nudgeSignal);
    // The poll never answers: only the peek can end this wait before its 30 days.
    const result = await handle.result();
    return { result, kinds: await eventKinds(handle), pollsAtNudge };
  });

  expect(result).toBe('peeked: done');
  expect(state.peeks).toBe(1);
  // The poll's retries are cancelled with it, rather than left running until the wait's timeout.
  expect(kinds).toContain('activityTaskCancelRequested');
  expect(kinds.filter((kind) => kind === 'activityTaskScheduled')).toHaveLength(1);
  // "At once": from the signal to the end, only workflow tasks, the peek's marker and the poll's cancellation; no timer
  // and no further poll in between.
  const afterNudge = kinds.slice(kinds.indexOf('workflowExecutionSignaled') + 1);
  const allowed = new Set([
    'workflowTaskScheduled',
    'workflowTaskStarted',
    'workflowTaskCompleted',
    'markerRecorded',
    'activityTaskCancelRequested',
    // Recorded when the poll was between attempts, not when an attempt was running.
    'activityTaskCanceled',
    'workflowExecutionCompleted',
  ]);
  expect(afterNudge.filter((kind) => !allowed.has(kind))).toEqual([]);
  expect(afterNudge.filter((kind) => kind === 'markerRecorded')).toHaveLength(1);
  expect(afterNudge.at(-1)).toBe('workflowExecutionCompleted');
  expect(pollsAtNudge).toBeGreaterThanOrEqual(1);
});

test('a nudge whose peek finds nothing leaves the poll going, and the poll ends the wait', async () => {
  const [jobId, state] = newJob();

  const { result, kinds } = await withRun({ jobId, poll: 'waiting' }, async (handle) => {
    await state.firstPoll.promise;
    await handle.signal(nudgeSignal);
    await state.firstPeek.promise;
    // Only after the peek has said "not yet" does the job finish, so the answer can only come from the poll.
    state.pollAnswer = 'done';
    const result = await handle.result();
    return { result, kinds: await eventKinds(handle) };
  });

  expect(result).toBe('polled: done');
  expect(state.peeks).toBe(1);
  // The same poll went on: scheduled once, never cancelled, completed once.
  expect(kinds.filter((kind) => kind === 'activityTaskScheduled')).toHaveLength(1);
  expect(kinds).not.toContain('activityTaskCancelRequested');
  expect(kinds.filter((kind) => kind === 'activityTaskCompleted')).toHaveLength(1);
  // The failed peek is recorded; its "not yet" did not fail the run.
  expect(kinds.filter((kind) => kind === 'markerRecorded')).toHaveLength(1);
  expect(kinds.indexOf('markerRecorded')).toBeLessThan(kinds.indexOf('activityTaskCompleted'));
});

test('time skipping moves through a twelve-hour poll without waiting for it', async () => {
  // An hour between looks, and the job is done at the thirteenth: twelve hours on the server's clock.
  const [jobId, state] = newJob({ readyAtAttempt: 13 });
  const startedAt = await env.currentTimeMs();

  const { result, kinds } = await withRun({ jobId, poll: 'hourly' }, async (handle) => ({
    result: await handle.result(),
    kinds: await eventKinds(handle),
  }));

  expect(result).toBe('polled: ready');
  expect(state.polls).toBe(13);
  expect(state.peeks).toBe(0);
  expect((await env.currentTimeMs()) - startedAt).toBeGreaterThanOrEqual(12 * HOUR);
  // Twelve "not yet"s cost no history: one scheduled activity, started and completed once.
  expect(kinds.filter((kind) => kind.startsWith('activityTask'))).toEqual([
    'activityTaskScheduled',
    'activityTaskStarted',
    'activityTaskCompleted',
  ]);
});

test('lanes nudged at once look one after another, and the run replays', async () => {
  const lanes = [newJob({ peekAnswer: 'one' }), newJob({ peekAnswer: 'two' })];
  mostLooksAtOnce = 0;
  const worker = await createWorker(env, {
    workflowsPath: require.resolve('../test/fixtures/tracker-workflows'),
    activities,
  });
  const { result, history } = await worker.runUntil(async () => {
    const handle = await env.client.workflow.start(waitForJobs, {
      args: [lanes.map(([jobId]) => jobId)],
      taskQueue: worker.options.taskQueue,
      workflowId: `wait-lanes-${randomUUID()}`,
    });
    await Promise.all(lanes.map(([, state]) => state.firstPoll.promise));
    await handle.signal(nudgeSignal);
    return { result: await handle.result(), history: await handle.fetchHistory() };
  });

  expect(result).toEqual(['peeked: one', 'peeked: two']);
  expect(lanes.map(([, state]) => state.peeks)).toEqual([1, 1]);
  expect(mostLooksAtOnce).toBe(1);
  // The second look waited for the first: the run says so with the patch's marker, so old runs replay as they ran.
  const patchIds = (history.events ?? []).flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    const data = marker?.markerName === 'core_patch' ? marker.details?.['patch-data']?.payloads?.[0]?.data : undefined;
    return data ? [(JSON.parse(Buffer.from(data).toString('utf8')) as { id: string }).id] : [];
  });
  expect(patchIds).toEqual([ONE_LOOK_AT_A_TIME]);
  await expect(
    Worker.runReplayHistory(
      { workflowsPath: require.resolve('../test/fixtures/tracker-workflows'), replayName: 'lanes' },
      history,
    ),
  ).resolves.toBeUndefined();
});
