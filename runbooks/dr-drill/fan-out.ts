// A drill of up to 5,000 resources, fanned out so that no history grows with the estate.
//
// Design. The drill (this workflow, type drDrill) resolves its selection into a file of resources (one activity) and
// starts child workflows (./batch.ts), one per batch of resources (`batchSizeFor`), each with its own lanes. The
// drill's `parallelism` is shared by the batches running at once: a batch gets as many lanes as it has resources, up
// to the lanes free, and starts while lanes are free, so no more than `parallelism` resources are drilled at once. A
// batch whose resources only wait for verdicts gives its lanes back.
//
// A batch writes its per-resource results to a part file (./parts.ts) and tells the drill, by signal, a summary: its
// counts, worst RPO and RTO, and the part's path and sha256. While it runs it signals its progress (on changes of its
// lanes or of the verdicts it waits for, otherwise at most every PROGRESS_EVERY_MS). The drill sums these for `status`.
// It never holds per-resource results: the report's activity reads the parts.
//
// The drill's history grows by about ten events per batch and four per signal, so it continues as new past
// PARENT_HISTORY_BOUND events, carrying `FanOutState` (its batches' summaries and what the running ones last said).
// Batches are started with the ABANDON parent-close policy so that they outlive that hand-over, and they report their
// end by signal to the drill's workflow ID, which reaches whichever run is current. Cancelling the drill cancels each
// running batch (its activities are cancelled and it starts nothing more) and waits for each to say it stopped.
//
// Verdicts (`runbooks drill validate <drill>`) still go to the drill: its validator refuses what no batch waits for,
// and it forwards the verdict by signal to the batch holding the resource. A nudge is forwarded to the running batches.
import {
  CancellationScope,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  isCancellation,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { nudgeSignal } from '../../contracts';
import { resend, serviceCalls } from '../../runtime/calls';
import { RunbookTracker } from '../../runtime/tracker';
import type { Activities } from '../activities';
import { drDrillBatch } from './batch';
import { drillValidationUpdate, type DrDrillInput, type DrDrillResult, type DrillInput } from './contract';
import {
  batchEndedSignal,
  batchProgressSignal,
  batchVerdictSignal,
  batchWorkflowId,
  type BatchEnded,
  type BatchProgress,
  type BatchSummary,
  type DrillFile,
} from './fan-out-contract';
import type { BatchOutcome } from './parts';
import { checkVerdictShape } from './validation-desk';
import type { drDrill } from './workflow';

const service = serviceCalls<Activities>();

/** A batch's history stays under this many events (Temporal warns at 10,240). */
export const BATCH_HISTORY_BOUND = 1_000;
/** Events of a batch that do not grow with its resources: its start, its files, its last signals, its end. */
const BATCH_OVERHEAD = 100;
/**
 * Events one activity of a resource costs a batch: scheduled, started, completed, and at most one workflow task (three
 * events) to act on its result.
 */
const EVENTS_PER_STEP = 6;
/** A progress signal a finished resource may send (at most one every PROGRESS_EVERY_MS): sent, acknowledged, a task. */
const EVENTS_PER_SIGNAL = 5;
/**
 * A snapshot started in a slot of the project's limiter costs as much as three steps: the request and the release
 * signalled, the grant received, the timer that asks again, the start itself.
 */
const SLOTTED_START_STEPS = 3;
/**
 * A job watched with the others of its batch (runtime/job-watcher.ts) costs as much as one step and a half: it
 * restarts the batch's look (a cancel, a new look, their tasks) as it joins and as the look returns.
 */
const WATCHED_JOB_STEPS = 1.5;

/**
 * Resources per batch, so that a batch stays under BATCH_HISTORY_BOUND: the steps a resource takes with this input
 * (activities, and the validation's timer and verdict) at EVENTS_PER_STEP each. `latest`: 34 resources a batch;
 * `fresh`: 16; a fresh snapshot with a SQL check and outside validation: 10. Measured with kills -9 of workers during
 * a fresh drill of 500 resources (bench:reliability, kill-worker-in-estate-drill): 52 events per resource in the
 * largest batch of 25, its overhead included, under the 53 counted here.
 */
export function batchSizeFor(input: DrillInput): number {
  const fresh = input.recoveryPoint.select === 'fresh';
  const point = fresh ? 1 + (input.reuseRecentSnapshot ? 1 : 0) + SLOTTED_START_STEPS + WATCHED_JOB_STEPS : 1;
  const restore = 1 + WATCHED_JOB_STEPS;
  const check = input.sqlCheck ? 3 : 0;
  const validation = input.validation && input.validation.windowHours > 0 ? 2 : 0;
  const perResource = EVENTS_PER_STEP * (point + restore + check + validation) + EVENTS_PER_SIGNAL;
  return Math.max(1, Math.floor((BATCH_HISTORY_BOUND - BATCH_OVERHEAD) / perResource));
}
/** Past this many events the drill continues as new (Temporal warns at 10,240; the drill keeps under 2,000). */
export const PARENT_HISTORY_BOUND = 1_500;
/** How often a drill asks after the batches an earlier run of it started, whose ends it cannot await. */
const CHECK_INHERITED_BATCHES_MS = 5 * 60_000;
/** How long a cancelled drill waits for its batches to say they stopped. */
const STOP_WAIT = '10 minutes';
/** The resources named in `status`'s text; `awaitingVerdict` lists them all. */
const NAMED_IN_TEXT = 20;

interface RunningBatch {
  batch: number;
  lanes: number;
  progress?: BatchProgress;
}

interface EndedBatch extends BatchOutcome {
  summary?: Omit<BatchSummary, 'part'>;
}

/** What a drill carries into its next run when it continues as new. Never per-resource results. */
export interface FanOutState {
  startedAt: string;
  /** The drill's first run: its report and files are named for it. */
  firstRunId: string;
  total: number;
  resources: DrillFile;
  /** Resources per batch (`batchSizeFor`), fixed when the drill began. */
  batchSize: number;
  /** The next batch to start. */
  next: number;
  ended: EndedBatch[];
  running: RunningBatch[];
  /** Verdicts taken for resources of running batches, so that a second one is refused as such. */
  answered: Record<string, { batch: number; result: 'pass' | 'fail'; answeredAt: string }>;
}

export async function drillFannedOut(
  raw: DrDrillInput,
  input: DrillInput,
  carried: FanOutState | undefined,
): Promise<DrDrillResult> {
  const tracker = new RunbookTracker('drDrill');
  const { workflowId } = workflowInfo();
  const state = carried ?? (await select());
  tracker.phase('drilling');
  const batches = Math.ceil(state.total / state.batchSize);
  const { resources: _selection, ...settings } = input;
  const childId = (batch: number) => batchWorkflowId(workflowId, state.firstRunId, batch);
  /** Bumped by every change the main loop should look at. */
  let version = 0;
  let starting = 0;
  /** Signals and cancellations to batches on their way (see `send`). */
  const signalling = new Set<Promise<void>>();
  /** Batches this run started: it awaits their ends; the others it asks after now and then. */
  const startedHere = new Set<number>();

  setHandler(batchProgressSignal, (progress) => {
    const running = state.running.find((r) => r.batch === progress.batch);
    if (!running || progress.sent <= (running.progress?.sent ?? -1)) return;
    running.progress = progress;
    version += 1;
  });
  setHandler(batchEndedSignal, (end) => batchEnded(end));
  // A nudge makes every running batch look again at once; one that cannot take it has closed without a word.
  setHandler(nudgeSignal, () => {
    for (const { batch } of state.running) {
      send(
        childId(batch),
        (h) => h.signal(nudgeSignal),
        () => closedSilently(batch, 'NOT_RUNNING'),
      );
    }
  });
  setHandler(
    drillValidationUpdate,
    async (verdict) => {
      const holder = holderOf(verdict.resourceId);
      const answeredAt = new Date().toISOString();
      if (holder === undefined) throw new Error(`resource ${verdict.resourceId} is not waiting`);
      state.answered[verdict.resourceId] = { batch: holder.batch, result: verdict.result, answeredAt };
      version += 1;
      await getExternalWorkflowHandle(childId(holder.batch))
        .signal(batchVerdictSignal, { ...verdict, answeredAt })
        .catch(() => {
          // The batch closed as the verdict came (its window ended): it can take no more.
          delete state.answered[verdict.resourceId];
          throw new Error(`resource ${verdict.resourceId} of drill ${workflowId} stopped waiting: its batch has ended`);
        });
      return { taken: true as const, resourceId: verdict.resourceId, result: verdict.result };
    },
    { validator: (verdict) => void checkVerdict(verdict) },
  );

  try {
    for (;;) {
      startBatches();
      show();
      if (state.ended.length === batches) break;
      if (workflowInfo().historyLength > PARENT_HISTORY_BOUND || workflowInfo().continueAsNewSuggested) {
        await condition(() => starting === 0 && allHandlersFinished());
        await Promise.all([...signalling]);
        return await continueAsNew<typeof drDrill>(raw, state);
      }
      const seen = version;
      const inherited = state.running.filter((r) => !startedHere.has(r.batch));
      if (inherited.length === 0) await condition(() => version !== seen);
      else if (!(await condition(() => version !== seen, CHECK_INHERITED_BATCHES_MS))) await askAfter(inherited);
    }
  } catch (err) {
    if (isCancellation(err)) await stopBatches();
    throw err;
  }

  tracker.phase('writing report');
  const written = await service.writeDrillReportFromParts({
    header: {
      name: input.name,
      workflowId,
      runId: state.firstRunId,
      startedAt: state.startedAt,
      finishedAt: new Date().toISOString(),
      targets: input.targets,
    },
    resources: state.resources,
    batches: state.ended.map(({ summary: _summary, ...outcome }) => outcome),
  });
  const { notified, summary, ...paths } = written;
  tracker.phase('completed', { detail: `${summary.verdict}: ${summary.passed}/${summary.total} passed` });
  resend(notified);
  return { report: paths, summary };

  async function select(): Promise<FanOutState> {
    const startedAt = new Date().toISOString();
    const { firstExecutionRunId: firstRunId } = workflowInfo();
    tracker.phase('selecting resources');
    const selected = await service.selectDrillResources({ selection: input.resources, workflowId, runId: firstRunId });
    const batchSize = batchSizeFor(input);
    return { startedAt, firstRunId, ...selected, batchSize, next: 0, ended: [], running: [], answered: {} };
  }

  /**
   * Starts batches while lanes are free, each with as many lanes as it has resources (up to the parallelism): few
   * batches at once, each with many jobs in flight, so that one look at a batch's jobs covers many of them.
   */
  function startBatches(): void {
    const perBatch = Math.min(input.parallelism, state.batchSize);
    for (;;) {
      const held = state.running.reduce((sum, r) => sum + (r.progress?.lanesDone ? 0 : r.lanes), 0);
      const free = input.parallelism - held;
      if (state.next >= batches || free < 1) return;
      const batch = state.next++;
      const offset = batch * state.batchSize;
      const count = Math.min(state.batchSize, state.total - offset);
      const lanes = Math.min(free, perBatch, count);
      state.running.push({ batch, lanes });
      start(batch, offset, count, lanes);
    }
  }

  function start(batch: number, offset: number, count: number, lanes: number): void {
    starting += 1;
    startedHere.add(batch);
    // Not cancellable with the drill: a cancelled drill cancels its batches itself, the same way whichever run
    // started them (see `stopBatches`).
    const started = CancellationScope.nonCancellable(() =>
      startChild(drDrillBatch, {
        workflowId: childId(batch),
        parentClosePolicy: ParentClosePolicy.ABANDON,
        args: [
          {
            drill: settings,
            drillWorkflowId: workflowId,
            drillRunId: state.firstRunId,
            startedAt: state.startedAt,
            resources: state.resources,
            batch,
            offset,
            count,
            lanes,
          },
        ],
      }),
    );
    started
      .finally(() => {
        starting -= 1;
        version += 1;
      })
      .then((handle) => handle.result())
      // A batch tells its end by signal; one that could not (it was terminated, or never started) ends here.
      .then(
        () => undefined,
        (err: unknown) => batchEnded({ batch, error: err instanceof Error ? err.message : String(err) }),
      );
  }

  /** Batches of an earlier run that closed without a word (terminated from outside) end here, as failed. */
  async function askAfter(batchesAsked: RunningBatch[]): Promise<void> {
    const closed = await service.closedDrillBatches({ workflowIds: batchesAsked.map((r) => childId(r.batch)) });
    for (const { workflowId: id, status } of closed) {
      const batch = batchesAsked.find((r) => childId(r.batch) === id)?.batch;
      if (batch !== undefined) closedSilently(batch, status);
    }
  }

  function closedSilently(batch: number, status: string): void {
    batchEnded({ batch, error: `batch closed (${status}) without telling its end` });
  }

  function batchEnded(end: BatchEnded): void {
    const index = state.running.findIndex((r) => r.batch === end.batch);
    if (index < 0) return;
    state.running.splice(index, 1);
    for (const [id, answer] of Object.entries(state.answered)) {
      if (answer.batch === end.batch) delete state.answered[id];
    }
    const offset = end.batch * state.batchSize;
    const count = Math.min(state.batchSize, state.total - offset);
    const outcome: EndedBatch = { batch: end.batch, offset, count };
    if (end.summary) {
      const { part, ...summary } = end.summary;
      Object.assign(outcome, { part, summary });
    } else outcome.error = end.error ?? 'ended without results';
    state.ended.push(outcome);
    version += 1;
  }

  /** The running batch that waits for a verdict on this resource, if one does. */
  function holderOf(resourceId: string): RunningBatch | undefined {
    if (state.answered[resourceId]) return undefined;
    return state.running.find((r) => r.progress?.awaiting.includes(resourceId));
  }

  function checkVerdict(given: unknown): void {
    const verdict = checkVerdictShape(given);
    const about = `resource ${verdict.resourceId} of drill ${workflowId}`;
    const answered = state.answered[verdict.resourceId];
    if (answered) throw new Error(`${about} was validated already: ${answered.result} at ${answered.answeredAt}`);
    if (!holderOf(verdict.resourceId)) {
      throw new Error(`${about} is not waiting for a validation verdict (not restored yet, or not validated this way)`);
    }
  }

  /** Progress over every batch, as each last reported; and the verdicts waited for. */
  function show(): void {
    let done = 0;
    let failed = 0;
    for (const { summary, count } of state.ended) {
      done += summary?.total ?? count;
      failed += summary ? summary.failed : count;
    }
    let running = 0;
    let waitingForSlot = 0;
    const awaiting: string[] = [];
    for (const { progress } of state.running) {
      if (!progress) continue;
      done += progress.done;
      failed += progress.failed;
      running += progress.running;
      waitingForSlot += progress.waitingForSlot;
      awaiting.push(...progress.awaiting.filter((id) => !state.answered[id]));
    }
    const batchCounts = { total: batches, done: state.ended.length, running: state.running.length };
    const waitingForVerdict = awaiting.length;
    tracker.drillProgress({
      total: state.total,
      done,
      failed,
      running,
      waitingForSlot,
      waitingForVerdict,
      batches: batchCounts,
    });
    const named = awaiting.slice(0, NAMED_IN_TEXT).join(', ');
    const more = awaiting.length > NAMED_IN_TEXT ? ` and ${awaiting.length - NAMED_IN_TEXT} more` : '';
    const answer = `runbooks drill validate ${workflowId} --resource <id> --result pass|fail`;
    tracker.waitingFor(awaiting.length === 0 ? undefined : `validation of ${named}${more}: ${answer}`, awaiting);
  }

  /** Cancels every running batch and waits (not cancellable itself) until each has said it stopped. */
  async function stopBatches(): Promise<void> {
    await CancellationScope.nonCancellable(async () => {
      await condition(() => starting === 0);
      for (const { batch } of state.running) {
        send(childId(batch), (h) => h.cancel());
      }
      await Promise.all([...signalling]);
      await condition(() => state.running.length === 0, STOP_WAIT);
    });
  }

  /** A signal or cancellation to a batch, not awaited; one that has ended needs neither. */
  function send(
    id: string,
    what: (h: ReturnType<typeof getExternalWorkflowHandle>) => Promise<void>,
    failed: () => void = () => undefined,
  ): void {
    const sent: Promise<void> = what(getExternalWorkflowHandle(id))
      .catch(failed)
      .finally(() => signalling.delete(sent));
    signalling.add(sent);
  }
}
