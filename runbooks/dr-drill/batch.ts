// One batch of a drill fanned out (see ./fan-out.ts for the design): a child workflow that drills its resources in
// lanes, as the drill did in one workflow before, keeps their results in a part file and tells the drill only a
// summary. Its history stays under 1,000 events: the drill sizes it from the events a resource costs (`batchSizeFor`).
import {
  CancellationScope,
  getExternalWorkflowHandle,
  isCancellation,
  patched,
  setHandler,
} from '@temporalio/workflow';
import { serviceCalls } from '../../runtime/calls';
import { JobWatcher } from '../../steps/job-watcher';
import { RunbookTracker } from '../../runtime/tracker';
import { drDrillContract, type DrillPhase } from './contract';
import type { Activities } from '../activities';
import { drillInLanes, resourceDriller, type DrillContext, type LaneHooks } from './drill-one';
import { SnapshotSlots } from '../snapshot-slots/calls';
import {
  PROGRESS_EVERY_MS,
  batchEndedSignal,
  batchLanesSignal,
  batchProgressSignal,
  batchVerdictSignal,
  type BatchEnded,
  type BatchProgress,
  type BatchSummary,
  type DrillBatchInput,
  type DrillFile,
} from './fan-out-contract';
import type { DrillResourceResult } from './report';
import { RPO_BESIDE_BACKUP_PATCH } from './patches';
import { ValidationDesk } from '../../steps/validation-desk';
import { summarize } from './verdicts';

const service = serviceCalls<Activities>();

/** The drill's patches made after batches began: a batch that started before one replays without it. */
const BATCH_ERA_PATCHES: readonly string[] = [RPO_BESIDE_BACKUP_PATCH];

/**
 * The batch, as it runs: it reads its resources, drills them in its lanes (telling the drill its progress), waits for
 * the verdicts still owed, writes its part and tells the drill its end, even when it fails or is cancelled.
 */
export async function drDrillBatch(batch: DrillBatchInput): Promise<BatchSummary> {
  const tracker = new RunbookTracker({ workflowType: 'drDrillBatch', phases: drDrillContract.phases }, { tag: false });
  const desk = new ValidationDesk(batch.drillWorkflowId);
  setHandler(batchVerdictSignal, (verdict) => desk.takeForwarded(verdict));
  const drill = getExternalWorkflowHandle(batch.drillWorkflowId);
  // Every worker's starts share the project's limit (runbooks/snapshot-slots).
  const snapshotSlots = new SnapshotSlots();
  const progress = progressTeller(batch.batch, drill, snapshotSlots);

  // The awaits stay in this function, as they ran: behind a helper's await of its own, the batch would resume a
  // microtask later, and its commands could change places with those of its lanes.
  try {
    const resources = await service.readDrillBatch({
      resources: batch.resources,
      offset: batch.offset,
      count: batch.count,
    });
    const results = new Array<DrillResourceResult>(resources.length);
    tracker.phase('drilling', { progress: { done: 0, total: resources.length, unit: 'resources' } });
    const drillOne = resourceDriller(drillContext(batch, tracker, desk, snapshotSlots, progress));
    // Only a drill that sized its batches for it shares lanes with them.
    const shared = batch.sharesLanes ? { resources: resources.length, lanes: batch.lanes } : undefined;
    const hooks = laneHooks(results, tracker, progress, shared);
    const validating = await drillInLanes(resources, batch.lanes, drillOne, hooks);
    if (validating.length > 0) {
      progress.state.lanesDone = true;
      progress.tell(true);
    }
    await Promise.all(validating);
    // Asked first, so that a run with none to wait for (every run recorded before) goes on as it did.
    if (snapshotSlots.releasesOnTheirWay > 0) await snapshotSlots.released();

    const part = await service.writeDrillPart({
      workflowId: batch.drillWorkflowId,
      runId: batch.drillRunId,
      batch: batch.batch,
      results,
    });
    const summary = summaryOf(batch.batch, results, part);
    await ended(drill, { batch: batch.batch, summary });
    return summary;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    if (snapshotSlots.releasesOnTheirWay > 0) await CancellationScope.nonCancellable(() => snapshotSlots.released());
    await ended(drill, { batch: batch.batch, error: why, ...(isCancellation(err) ? { cancelled: true } : {}) });
    throw err;
  }
}

type DrillHandle = ReturnType<typeof getExternalWorkflowHandle>;

/** The batch's progress, and how it is told to the drill. */
interface ProgressTeller {
  state: BatchProgress;
  /** Sends the progress; unless `now`, at most once every PROGRESS_EVERY_MS (workflow time: the same on replay). */
  tell: (now: boolean) => void;
  /** Sends it once this activation's other changes are in: lanes that end together are one signal. */
  tellSoon: () => void;
}

function progressTeller(batch: number, drill: DrillHandle, snapshotSlots: SnapshotSlots): ProgressTeller {
  const state: BatchProgress = {
    batch,
    sent: 0,
    done: 0,
    failed: 0,
    running: 0,
    waitingForSlot: 0,
    awaiting: [],
    lanesDone: false,
  };
  let lastSent = Number.NEGATIVE_INFINITY;
  const tell = (now: boolean) => {
    if (!now && Date.now() - lastSent < PROGRESS_EVERY_MS) return;
    lastSent = Date.now();
    state.waitingForSlot = snapshotSlots.waiting;
    state.sent += 1;
    // Not awaited: a lane goes on while the signal is on its way; a drill that has ended no longer needs it.
    drill.signal(batchProgressSignal, { ...state, awaiting: [...state.awaiting] }).catch(() => undefined);
  };
  let soon = false;
  const tellSoon = () => {
    if (soon) return;
    soon = true;
    // A microtask: it runs in this activation, after the lanes that end in it, on replay as live.
    void Promise.resolve().then(() => {
      soon = false;
      tell(true);
    });
  };
  return { state, tell, tellSoon };
}

/** What drilling a resource of this batch needs: the drill's input and IDs, and the batch's watchers and slots. */
function drillContext(
  batch: DrillBatchInput,
  tracker: RunbookTracker<DrillPhase>,
  desk: ValidationDesk,
  snapshotSlots: SnapshotSlots,
  progress: ProgressTeller,
): DrillContext {
  // Validated by the drill that started the batch.
  const input = batch.drill;
  return {
    input,
    selection: input.recoveryPoint,
    startedAt: new Date(batch.startedAt),
    drillWorkflowId: batch.drillWorkflowId,
    tracker,
    desk,
    // A batch begins with the drill's earlier changes in; those made since batches are asked as they come.
    patched: (patchId) => !BATCH_ERA_PATCHES.includes(patchId) || patched(patchId),
    onBehalfOf: { runbook: 'drDrill', workflowId: batch.drillWorkflowId, runId: batch.drillRunId },
    // Many lanes' jobs in one list call per look: a batch is where many jobs are in flight.
    jobWatchers: {
      backup: new JobWatcher('backup', { nudges: () => tracker.nudged }),
      restore: new JobWatcher('restore', { nudges: () => tracker.nudged }),
    },
    snapshotSlots,
    onWaiting: (ids) => {
      progress.state.awaiting = ids;
      tracker.waitingFor(ids.length === 0 ? undefined : `validation of ${ids.join(', ')}`, ids);
      progress.tell(true);
    },
  };
}

/**
 * The drill's lanes, as in one workflow before: a wait for a verdict leaves its lane. With shared lanes, a lane that
 * finds no resource left is told to the drill at once, and the drill may give the batch more lanes.
 */
function laneHooks(
  results: DrillResourceResult[],
  tracker: RunbookTracker<DrillPhase>,
  progress: ProgressTeller,
  shared: { resources: number; lanes: number } | undefined,
): LaneHooks {
  const { state } = progress;
  const taken = () => {
    state.running += 1;
    if (state.untaken !== undefined) state.untaken -= 1;
  };
  const finished = (index: number, result: DrillResourceResult) => {
    results[index] = result;
    state.done += 1;
    state.running -= 1;
    if (result.verdict === 'FAIL') state.failed += 1;
    tracker.progress(state.done, results.length, 'resources');
    progress.tell(false);
  };
  if (shared === undefined) return { taken, finished };
  Object.assign(state, { lanes: shared.lanes, lanesFree: 0, untaken: shared.resources });
  const left = () => {
    state.lanesFree = (state.lanesFree ?? 0) + 1;
    // When the last lane ends, the batch's end (or its lanes done) tells the drill.
    if (state.lanesFree < (state.lanes ?? 0)) progress.tellSoon();
  };
  const grow = (addLanes: (count: number) => void) =>
    setHandler(batchLanesSignal, ({ lanes }) => {
      state.lanes = (state.lanes ?? 0) + lanes;
      addLanes(lanes);
    });
  return { taken, finished, left, grow };
}

/** The batch's counts and worst times, and where its results are: all the drill is told of them. */
function summaryOf(batch: number, results: DrillResourceResult[], part: DrillFile): BatchSummary {
  const { total, passed, partial = 0, failed, worstRpoSeconds, worstRtoSeconds } = summarize(results);
  return {
    batch,
    total,
    passed,
    partial,
    failed,
    ...(worstRpoSeconds === undefined ? {} : { worstRpoSeconds }),
    ...(worstRtoSeconds === undefined ? {} : { worstRtoSeconds }),
    part,
  };
}

/**
 * Tells the drill the batch has ended, even when it was cancelled: the drill counts its batches by these signals,
 * since it may have continued as new since it started this one.
 */
async function ended(drill: DrillHandle, end: BatchEnded): Promise<void> {
  await CancellationScope.nonCancellable(() =>
    // A drill that has ended (it was terminated) has no one left to tell.
    drill.signal(batchEndedSignal, end).catch(() => undefined),
  );
}
