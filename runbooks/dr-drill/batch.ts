// One batch of a drill fanned out (see ./fan-out.ts for the design): a child workflow that drills its resources in
// lanes, as the drill did in one workflow before, keeps their results in a part file and tells the drill only a
// summary. Its history stays under 1,000 events: the drill sizes it from the events a resource costs (`batchSizeFor`).
import { CancellationScope, getExternalWorkflowHandle, isCancellation, setHandler } from '@temporalio/workflow';
import { serviceCalls } from '../../runtime/calls';
import { JobWatcher } from '../../runtime/job-watcher';
import { RunbookTracker } from '../../runtime/tracker';
import type { Activities } from '../activities';
import { drillInLanes, resourceDriller } from './drill-one';
import { SnapshotSlots } from '../snapshot-slots/calls';
import {
  PROGRESS_EVERY_MS,
  batchEndedSignal,
  batchProgressSignal,
  batchVerdictSignal,
  type BatchEnded,
  type BatchProgress,
  type BatchSummary,
  type DrillBatchInput,
} from './fan-out-contract';
import type { DrillResourceResult } from './report';
import { ValidationDesk } from './validation-desk';
import { summarize } from './verdicts';

const service = serviceCalls<Activities>();

export async function drDrillBatch(batch: DrillBatchInput): Promise<BatchSummary> {
  // Validated by the drill that started the batch.
  const input = batch.drill;
  const tracker = new RunbookTracker('drDrillBatch', { tag: false });
  const desk = new ValidationDesk(batch.drillWorkflowId);
  setHandler(batchVerdictSignal, (verdict) => desk.takeForwarded(verdict));
  const drill = getExternalWorkflowHandle(batch.drillWorkflowId);
  const startedAt = new Date(batch.startedAt);

  // Every worker's starts share the project's limit (runbooks/snapshot-slots).
  const snapshotSlots = new SnapshotSlots();
  const progress: BatchProgress = {
    batch: batch.batch,
    sent: 0,
    done: 0,
    failed: 0,
    running: 0,
    waitingForSlot: 0,
    awaiting: [],
    lanesDone: false,
  };
  let lastSent = Number.NEGATIVE_INFINITY;
  /** Sends the progress; unless `now`, at most once every PROGRESS_EVERY_MS (workflow time: the same on replay). */
  const report = (now: boolean) => {
    if (!now && Date.now() - lastSent < PROGRESS_EVERY_MS) return;
    lastSent = Date.now();
    progress.waitingForSlot = snapshotSlots.waiting;
    progress.sent += 1;
    // Not awaited: a lane goes on while the signal is on its way; a drill that has ended no longer needs it.
    drill.signal(batchProgressSignal, { ...progress, awaiting: [...progress.awaiting] }).catch(() => undefined);
  };

  try {
    const resources = await service.readDrillBatch({
      resources: batch.resources,
      offset: batch.offset,
      count: batch.count,
    });
    const results = new Array<DrillResourceResult>(resources.length);
    tracker.phase('drilling', { progress: { done: 0, total: resources.length, unit: 'resources' } });
    const drillOne = resourceDriller({
      input,
      selection: input.recoveryPoint,
      startedAt,
      drillWorkflowId: batch.drillWorkflowId,
      tracker,
      desk,
      // A batch begins with this code: every change the drill's patches mark is in.
      patched: () => true,
      onBehalfOf: { runbook: 'drDrill', workflowId: batch.drillWorkflowId, runId: batch.drillRunId },
      // Many lanes' jobs in one list call per look: a batch is where many jobs are in flight.
      jobWatchers: {
        backup: new JobWatcher('backup', { nudges: () => tracker.nudged }),
        restore: new JobWatcher('restore', { nudges: () => tracker.nudged }),
      },
      snapshotSlots,
      onWaiting: (ids) => {
        progress.awaiting = ids;
        tracker.waitingFor(ids.length === 0 ? undefined : `validation of ${ids.join(', ')}`, ids);
        report(true);
      },
    });
    const finished = (index: number, result: DrillResourceResult) => {
      results[index] = result;
      progress.done += 1;
      progress.running -= 1;
      if (result.verdict === 'FAIL') progress.failed += 1;
      tracker.progress(progress.done, resources.length, 'resources');
      report(false);
    };

    // The drill's lanes, as in one workflow before: a wait for a verdict leaves its lane.
    const taken = () => {
      progress.running += 1;
    };
    const validating = await drillInLanes(resources, batch.lanes, drillOne, { taken, finished });
    if (validating.length > 0) {
      progress.lanesDone = true;
      report(true);
    }
    await Promise.all(validating);

    const part = await service.writeDrillPart({
      workflowId: batch.drillWorkflowId,
      runId: batch.drillRunId,
      batch: batch.batch,
      results,
    });
    const { total, passed, partial = 0, failed, worstRpoSeconds, worstRtoSeconds } = summarize(results);
    const summary: BatchSummary = {
      batch: batch.batch,
      total,
      passed,
      partial,
      failed,
      ...(worstRpoSeconds === undefined ? {} : { worstRpoSeconds }),
      ...(worstRtoSeconds === undefined ? {} : { worstRtoSeconds }),
      part,
    };
    await ended({ batch: batch.batch, summary });
    return summary;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    await ended({ batch: batch.batch, error: why, ...(isCancellation(err) ? { cancelled: true } : {}) });
    throw err;
  }

  /**
   * Tells the drill the batch has ended, even when it was cancelled: the drill counts its batches by these signals,
   * since it may have continued as new since it started this one.
   */
  async function ended(end: BatchEnded): Promise<void> {
    await CancellationScope.nonCancellable(() =>
      // A drill that has ended (it was terminated) has no one left to tell.
      drill.signal(batchEndedSignal, end).catch(() => undefined),
    );
  }
}
