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
  log,
  patched,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { drillValidationUpdate, nudgeSignal } from '../../contracts';
import { resend, serviceCalls } from '../../runtime/calls';
import { RunbookTracker } from '../../runtime/tracker';
import type { Activities } from '../activities';
import { drDrillBatch } from './batch';
import { type DrDrillInput, type DrDrillResult, type DrillInput, drDrillContract, type DrillPhase } from './contract';
import {
  batchEndedSignal,
  batchLanesSignal,
  batchProgressSignal,
  batchVerdictSignal,
  batchWorkflowId,
  type BatchEnded,
  type BatchProgress,
  type BatchSummary,
  type DrillFile,
  type DrillSettings,
} from './fan-out-contract';
import type { BatchOutcome } from './parts';
import type { DrillRotation } from './report';
import { LANES_SHARED_PATCH } from './patches';
import { feasibilityWarning } from './rotation-cadence';
import { checkVerdictShape } from '../../steps/validation-desk';
import { timestampsLater, timestampsOutcome } from './timestamps';
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
 * Lanes shared with the drill (LANES_SHARED_PATCH), at most once per resource each: a lane's end told (a signal sent,
 * as above) and a lane given (the signal received and its task).
 */
const EVENTS_PER_SHARED_LANE = EVENTS_PER_SIGNAL + 4;
/**
 * A snapshot started in a slot of the project's limiter costs as much as three steps: the request and the release
 * signalled, the grant received, the timer that asks again, the start itself.
 */
const SLOTTED_START_STEPS = 3;
/**
 * A job watched with the others of its batch (steps/job-watcher.ts) costs as much as one step and a half: it
 * restarts the batch's look (a cancel, a new look, their tasks) as it joins and as the look returns.
 */
const WATCHED_JOB_STEPS = 1.5;

/**
 * Resources per batch, so that a batch stays under BATCH_HISTORY_BOUND: the steps a resource takes with this input
 * (activities, and the validation's timer and verdict) at EVENTS_PER_STEP each, and the signals of its progress and
 * of shared lanes. `latest`: 25 resources a batch; `fresh`: 14; a fresh snapshot with a SQL check and outside
 * validation: 9. Measured with kills -9 of workers during a fresh drill of 500 resources (bench:reliability,
 * kill-worker-in-estate-drill): 52 events per resource in the largest batch of 25 before shared lanes, its overhead
 * included, under the 62 counted here.
 */
export function batchSizeFor(input: DrillInput, sharesLanes = true): number {
  const fresh = input.recoveryPoint.select === 'fresh';
  // A search for the clean point is a child workflow: its start, its end and their tasks, as a step and a half.
  const chosen = input.recoveryPoint.select === 'latest-clean' ? 1.5 : 1;
  const point = fresh ? 1 + (input.reuseRecentSnapshot ? 1 : 0) + SLOTTED_START_STEPS + WATCHED_JOB_STEPS : chosen;
  const restore = 1 + WATCHED_JOB_STEPS;
  const check = input.sqlCheck ? 3 : 0;
  const validation = input.validation && input.validation.windowHours > 0 ? 2 : 0;
  const signals = EVENTS_PER_SIGNAL + (sharesLanes ? EVENTS_PER_SHARED_LANE : 0);
  const perResource = EVENTS_PER_STEP * (point + restore + check + validation) + signals;
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
  /** With `coverage`: the scope, and whom this run took and why. */
  rotation?: DrillRotation;
  /** Resources per batch (`batchSizeFor`), fixed when the drill began. */
  batchSize: number;
  /** Its batches share lanes with it (LANES_SHARED_PATCH): fixed when the drill began, as their size counts on it. */
  sharesLanes?: boolean;
  /** The next batch to start. */
  next: number;
  ended: EndedBatch[];
  running: RunningBatch[];
  /** Verdicts taken for resources of running batches, so that a second one is refused as such. */
  answered: Record<string, { batch: number; result: 'pass' | 'fail'; answeredAt: string }>;
}

/** What the phases of one run of a drill share: the drill's state, and what is on its way between it and its batches. */
interface DrillRun {
  readonly input: DrillInput;
  /** The input as each batch takes it: all of it but the selection. */
  readonly settings: DrillSettings;
  readonly tracker: RunbookTracker<DrillPhase>;
  readonly workflowId: string;
  readonly state: FanOutState;
  /** Batches in all: the drill ends when each has. */
  readonly batches: number;
  /** Bumped by every change the main loop should look at. */
  version: number;
  /** Starts of batches on their way. */
  starting: number;
  /** Signals and cancellations to batches on their way (see `send`). */
  readonly signalling: Set<Promise<void>>;
  /** Batches this run started: it awaits their ends; the others it asks after now and then. */
  readonly startedHere: Set<number>;
}

/**
 * The drill, as it runs: it selects its resources (its first run only), listens to its batches and takes the verdicts
 * they wait for, then starts batches while lanes are free and waits for a change, until every batch has ended (then
 * it writes the report) or its history is long (then it continues as new).
 */
export async function drillFannedOut(
  raw: DrDrillInput,
  input: DrillInput,
  carried: FanOutState | undefined,
): Promise<DrDrillResult> {
  const tracker = new RunbookTracker(drDrillContract);
  const { workflowId } = workflowInfo();
  const state = carried ?? (await selectResources(input, tracker, workflowId));
  tracker.phase('drilling');
  const run = planBatches(input, tracker, workflowId, state);
  listenToBatches(run);
  takeVerdicts(run);

  // The loop's awaits stay in this function: behind a helper's await of its own, the loop would resume a microtask
  // later, and its commands could change places with those of a verdict taken in the same activation.
  try {
    for (;;) {
      startBatches(run);
      showProgress(run);
      if (state.ended.length === run.batches) break;
      if (historyIsLong()) {
        // Hands over to the next run once no start, handler, signal or cancellation of this one is on its way.
        await condition(() => run.starting === 0 && allHandlersFinished());
        await Promise.all([...run.signalling]);
        return await continueAsNew<typeof drDrill>(raw, state);
      }
      const seen = run.version;
      const inherited = inheritedBatches(run);
      if (inherited.length === 0) await condition(() => run.version !== seen);
      else if (!(await condition(() => run.version !== seen, CHECK_INHERITED_BATCHES_MS)))
        await askAfter(run, inherited);
    }
  } catch (err) {
    if (isCancellation(err)) await stopBatches(run);
    throw err;
  }

  tracker.phase('writing report');
  const written = await service.writeDrillReportFromParts(reportFromParts(run));
  await timestampsLater(written.timestamps?.pending);
  return reportWritten(run, written);
}

/** Resolves the drill's selection into a file of resources, and fixes the size of its batches. */
async function selectResources(
  input: DrillInput,
  tracker: RunbookTracker<DrillPhase>,
  workflowId: string,
): Promise<FanOutState> {
  const startedAt = new Date().toISOString();
  const { firstExecutionRunId: firstRunId } = workflowInfo();
  tracker.phase('selecting resources');
  const rotate = input.coverage ? { rotate: { drill: input.name, ...input.coverage, at: startedAt } } : {};
  const selected = await service.selectDrillResources({
    selection: input.resources,
    workflowId,
    runId: firstRunId,
    ...rotate,
  });
  const warning = selected.rotation ? feasibilityWarning(selected.rotation) : undefined;
  if (warning) {
    log.warn(`drill ${input.name}: ${warning}`);
    tracker.warn(warning);
  }
  const sharesLanes = patched(LANES_SHARED_PATCH) && lanesWorthSharing(input);
  const batchSize = batchSizeFor(input, sharesLanes);
  const shared = sharesLanes ? { sharesLanes } : {};
  return { startedAt, firstRunId, ...selected, batchSize, ...shared, next: 0, ended: [], running: [], answered: {} };
}

/**
 * Whether a drill's batches share its lanes: when a few batches hold them all (parallelism up to twice a batch), the
 * tail of each batch leaves lanes idle that the next batch needs. With more, many batches run at once, each batch's
 * tail is a small part of the lanes, and sharing them costs the drill a signal per lane: in a drill of 2,000 at
 * parallelism 100, it made the drill continue as new nine times, for 1.37× the ideal where the same drill without
 * sharing took 1.23–1.29× (bench/scale, docs/benchmarks.md).
 */
export function lanesWorthSharing(input: DrillInput): boolean {
  return input.parallelism <= 2 * batchSizeFor(input, true);
}

/** This run of the drill: how many batches there are, and nothing yet on its way. */
function planBatches(
  input: DrillInput,
  tracker: RunbookTracker<DrillPhase>,
  workflowId: string,
  state: FanOutState,
): DrillRun {
  const batches = Math.ceil(state.total / state.batchSize);
  const { resources: _selection, ...settings } = input;
  return {
    input,
    settings,
    tracker,
    workflowId,
    state,
    batches,
    version: 0,
    starting: 0,
    signalling: new Set<Promise<void>>(),
    startedHere: new Set<number>(),
  };
}

function childId(run: DrillRun, batch: number): string {
  return batchWorkflowId(run.workflowId, run.state.firstRunId, batch);
}

/** What the batches tell the drill (their progress, their end), and the nudges it passes on to them. */
function listenToBatches(run: DrillRun): void {
  const { state } = run;
  setHandler(batchProgressSignal, (progress) => {
    const running = state.running.find((r) => r.batch === progress.batch);
    if (!running || progress.sent <= (running.progress?.sent ?? -1)) return;
    running.progress = progress;
    run.version += 1;
  });
  setHandler(batchEndedSignal, (end) => batchEnded(run, end));
  // A nudge makes every running batch look again at once; one that cannot take it has closed without a word.
  setHandler(nudgeSignal, () => {
    for (const { batch } of state.running) {
      send(
        run,
        childId(run, batch),
        (h) => h.signal(nudgeSignal),
        () => closedSilently(run, batch, 'NOT_RUNNING'),
      );
    }
  });
}

/** Takes the verdicts that running batches wait for, and forwards each to the batch holding its resource. */
function takeVerdicts(run: DrillRun): void {
  const { state, workflowId } = run;
  setHandler(
    drillValidationUpdate,
    async (verdict) => {
      const holder = holderOf(run, verdict.resourceId);
      const answeredAt = new Date().toISOString();
      if (holder === undefined) throw new Error(`resource ${verdict.resourceId} is not waiting`);
      state.answered[verdict.resourceId] = { batch: holder.batch, result: verdict.result, answeredAt };
      run.version += 1;
      await getExternalWorkflowHandle(childId(run, holder.batch))
        .signal(batchVerdictSignal, { ...verdict, answeredAt })
        .catch(() => {
          // The batch closed as the verdict came (its window ended): it can take no more.
          delete state.answered[verdict.resourceId];
          throw new Error(`resource ${verdict.resourceId} of drill ${workflowId} stopped waiting: its batch has ended`);
        });
      return { taken: true as const, resourceId: verdict.resourceId, result: verdict.result };
    },
    { validator: (verdict) => void checkVerdict(run, verdict) },
  );
}

/**
 * Starts batches while lanes are free, each with as many lanes as it has resources (up to the parallelism): few
 * batches at once, each with many jobs in flight, so that one look at a batch's jobs covers many of them. In a drill
 * whose batches share lanes, free lanes go first to running batches with resources no lane has taken, so that the
 * lanes a batch frees one by one fill the batch started last instead of starting a batch each.
 */
function startBatches(run: DrillRun): void {
  const { input, state } = run;
  const perBatch = Math.min(input.parallelism, state.batchSize);
  let free = input.parallelism - lanesHeld(state.running);
  if (state.sharesLanes) free = giveLanes(run, free);
  while (free >= 1 && state.next < run.batches) {
    const batch = state.next++;
    const { offset, count } = resourcesOf(state, batch);
    const lanes = Math.min(free, perBatch, count);
    free -= lanes;
    state.running.push({ batch, lanes });
    startBatch(run, batch, offset, count, lanes);
  }
}

/** Where a batch's resources are in the drill's list: from `offset`, `count` of them (the last batch may hold fewer). */
function resourcesOf(state: FanOutState, batch: number): { offset: number; count: number } {
  const offset = batch * state.batchSize;
  return { offset, count: Math.min(state.batchSize, state.total - offset) };
}

/** Lanes in use: a batch's lanes, but those it said found no resource left, and none once its lanes are done. */
function lanesHeld(running: readonly RunningBatch[]): number {
  return running.reduce((sum, r) => sum + (r.progress?.lanesDone ? 0 : r.lanes - (r.progress?.lanesFree ?? 0)), 0);
}

/**
 * Gives free lanes to the running batches with the most resources no lane has taken, one lane per such resource, and
 * returns the lanes left. A batch that has not reported yet has all its resources but its first lanes' untaken; one
 * that has, what it said, less the lanes given since (each takes one).
 */
function giveLanes(run: DrillRun, free: number): number {
  const { state } = run;
  const spare = (r: RunningBatch) => {
    const { progress } = r;
    if (progress?.lanesDone) return 0;
    if (progress?.untaken === undefined || progress.lanes === undefined) {
      return resourcesOf(state, r.batch).count - r.lanes;
    }
    return progress.untaken - (r.lanes - progress.lanes);
  };
  const takers = state.running.filter((r) => spare(r) > 0).sort((a, b) => spare(b) - spare(a));
  for (const r of takers) {
    const lanes = Math.min(free, spare(r));
    if (lanes < 1) break;
    free -= lanes;
    r.lanes += lanes;
    send(run, childId(run, r.batch), (h) => h.signal(batchLanesSignal, { lanes }));
  }
  return free;
}

function startBatch(run: DrillRun, batch: number, offset: number, count: number, lanes: number): void {
  const { state } = run;
  run.starting += 1;
  run.startedHere.add(batch);
  // Not cancellable with the drill: a cancelled drill cancels its batches itself, the same way whichever run
  // started them (see `stopBatches`).
  const started = CancellationScope.nonCancellable(() =>
    startChild(drDrillBatch, {
      workflowId: childId(run, batch),
      parentClosePolicy: ParentClosePolicy.ABANDON,
      args: [
        {
          drill: run.settings,
          drillWorkflowId: run.workflowId,
          drillRunId: state.firstRunId,
          startedAt: state.startedAt,
          resources: state.resources,
          batch,
          offset,
          count,
          lanes,
          ...(state.sharesLanes ? { sharesLanes: true } : {}),
        },
      ],
    }),
  );
  started
    .finally(() => {
      run.starting -= 1;
      run.version += 1;
    })
    .then((handle) => handle.result())
    // A batch tells its end by signal; one that could not (it was terminated, or never started) ends here.
    .then(
      () => undefined,
      (err: unknown) => batchEnded(run, { batch, error: err instanceof Error ? err.message : String(err) }),
    );
}

function historyIsLong(): boolean {
  return workflowInfo().historyLength > PARENT_HISTORY_BOUND || workflowInfo().continueAsNewSuggested;
}

/** Running batches an earlier run started: this run cannot await their ends, it asks after them. */
function inheritedBatches(run: DrillRun): RunningBatch[] {
  return run.state.running.filter((r) => !run.startedHere.has(r.batch));
}

/** Batches of an earlier run that closed without a word (terminated from outside) end here, as failed. */
async function askAfter(run: DrillRun, batchesAsked: RunningBatch[]): Promise<void> {
  const closed = await service.closedDrillBatches({ workflowIds: batchesAsked.map((r) => childId(run, r.batch)) });
  for (const { workflowId: id, status } of closed) {
    const batch = batchesAsked.find((r) => childId(run, r.batch) === id)?.batch;
    if (batch !== undefined) closedSilently(run, batch, status);
  }
}

function closedSilently(run: DrillRun, batch: number, status: string): void {
  batchEnded(run, { batch, error: `batch closed (${status}) without telling its end` });
}

function batchEnded(run: DrillRun, end: BatchEnded): void {
  const { state } = run;
  const index = state.running.findIndex((r) => r.batch === end.batch);
  if (index < 0) return;
  state.running.splice(index, 1);
  for (const [id, answer] of Object.entries(state.answered)) {
    if (answer.batch === end.batch) delete state.answered[id];
  }
  const outcome: EndedBatch = { batch: end.batch, ...resourcesOf(state, end.batch) };
  if (end.summary) {
    const { part, ...summary } = end.summary;
    Object.assign(outcome, { part, summary });
  } else outcome.error = end.error ?? 'ended without results';
  state.ended.push(outcome);
  run.version += 1;
}

/** The running batch that waits for a verdict on this resource, if one does. */
function holderOf(run: DrillRun, resourceId: string): RunningBatch | undefined {
  if (run.state.answered[resourceId]) return undefined;
  return run.state.running.find((r) => r.progress?.awaiting.includes(resourceId));
}

function checkVerdict(run: DrillRun, given: unknown): void {
  const verdict = checkVerdictShape(given);
  const about = `resource ${verdict.resourceId} of drill ${run.workflowId}`;
  const answered = run.state.answered[verdict.resourceId];
  if (answered) throw new Error(`${about} was validated already: ${answered.result} at ${answered.answeredAt}`);
  if (!holderOf(run, verdict.resourceId)) {
    throw new Error(`${about} is not waiting for a validation verdict (not restored yet, or not validated this way)`);
  }
}

/** Progress over every batch, as each last reported; and the verdicts waited for. */
function showProgress(run: DrillRun): void {
  const { state, tracker } = run;
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
  const batchCounts = { total: run.batches, done: state.ended.length, running: state.running.length };
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
  const answer = `runbooks drill validate ${run.workflowId} --resource <id> --result pass|fail`;
  tracker.waitingFor(awaiting.length === 0 ? undefined : `validation of ${named}${more}: ${answer}`, awaiting);
}

/** Cancels every running batch and waits (not cancellable itself) until each has said it stopped. */
async function stopBatches(run: DrillRun): Promise<void> {
  await CancellationScope.nonCancellable(async () => {
    await condition(() => run.starting === 0);
    for (const { batch } of run.state.running) {
      send(run, childId(run, batch), (h) => h.cancel());
    }
    await Promise.all([...run.signalling]);
    await condition(() => run.state.running.length === 0, STOP_WAIT);
  });
}

/** A signal or cancellation to a batch, not awaited; one that has ended needs neither. */
function send(
  run: DrillRun,
  id: string,
  what: (h: ReturnType<typeof getExternalWorkflowHandle>) => Promise<void>,
  failed: () => void = () => undefined,
): void {
  const sent: Promise<void> = what(getExternalWorkflowHandle(id))
    .catch(failed)
    .finally(() => run.signalling.delete(sent));
  run.signalling.add(sent);
}

type ReportFromParts = Parameters<Activities['writeDrillReportFromParts']>[0];
type WrittenFromParts = Awaited<ReturnType<Activities['writeDrillReportFromParts']>>;

/** The report's header, and where its resources and its batches' results are: the activity reads them. */
function reportFromParts(run: DrillRun): ReportFromParts {
  const { input, state } = run;
  return {
    header: {
      name: input.name,
      workflowId: run.workflowId,
      runId: state.firstRunId,
      startedAt: state.startedAt,
      finishedAt: new Date().toISOString(),
      targets: input.targets,
    },
    resources: state.resources,
    batches: state.ended.map(({ summary: _summary, ...outcome }) => outcome),
    drillInput: input,
    ...(state.rotation ? { rotation: state.rotation } : {}),
  };
}

/** The drill's result, once its report is written; a notification the activity could not deliver is sent again. */
function reportWritten(run: DrillRun, written: WrittenFromParts): DrDrillResult {
  const { notified, summary, timestamps, ...paths } = written;
  run.tracker.phase('completed', { detail: `${summary.verdict}: ${summary.passed}/${summary.total} passed` });
  resend(notified);
  return { report: paths, summary, ...timestampsOutcome(timestamps) };
}
