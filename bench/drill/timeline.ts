// Where a drill's time between a backup's end and its restore goes, read from the run's history: each step from the
// service finishing the backup to the service creating the restore, per resource.
import type { WorkflowHandle } from '@temporalio/client';
import { completedOf, eventTime as at, startedOf, type HistoryEvent } from '../history-times';

/** One resource's backup-to-restore gap, in ms, step by step. */
export interface GapSteps {
  /** Backup end to the completion of the waiting activity that saw it: the looks' schedule and dispatch. */
  notice: number;
  /** That completion to the workflow task that scheduled the restore (dispatch and the task itself). */
  workflowTask: number;
  /** The restore activity, scheduled to started (the task queue). */
  queue: number;
  /** The restore activity's start to the service creating the restore job (its calls). */
  call: number;
}

export const GAP_STEPS: readonly (keyof GapSteps)[] = ['notice', 'workflowTask', 'queue', 'call'];
export const GAP_STEP_NAMES: Record<keyof GapSteps, string> = {
  notice: 'until the wait saw it',
  workflowTask: 'workflow task',
  queue: 'restore activity queued',
  call: 'restore activity to the job',
};

const inputText = (event: HistoryEvent) =>
  (event.activityTaskScheduledEventAttributes?.input?.payloads ?? [])
    .map((p) => Buffer.from(p.data ?? new Uint8Array()).toString('utf8'))
    .join(' ');

/**
 * The steps for each resource whose backup job id (and end) and restore job creation are given; resources whose
 * events are not all in one history are left out. A drill's resources are drilled in its batches (child workflows
 * named after it): their histories are read too.
 */
export async function gapSteps(
  handle: WorkflowHandle,
  jobs: readonly { backupJobId: string; backupEnd: number; resourceId: string; restoreCreated: number }[],
): Promise<GapSteps[]> {
  const histories = [(await handle.fetchHistory()).events ?? []];
  const query = `WorkflowType = 'drDrillBatch' AND WorkflowId STARTS_WITH '${handle.workflowId}--'`;
  for await (const batch of handle.client.list({ query })) {
    histories.push((await handle.client.getHandle(batch.workflowId, batch.runId).fetchHistory()).events ?? []);
  }
  return histories.flatMap((events) => stepsIn(events, jobs));
}

function stepsIn(
  events: HistoryEvent[],
  jobs: readonly { backupJobId: string; backupEnd: number; resourceId: string; restoreCreated: number }[],
): GapSteps[] {
  const byId = new Map(events.map((e) => [Number(e.eventId), e]));
  const scheduled = (name: string, text: string) =>
    events.find(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === name && inputText(e).includes(text),
    );
  const steps: GapSteps[] = [];
  for (const job of jobs) {
    const look = scheduled('checkBackupJob', job.backupJobId);
    const restore = scheduled('startRestore', job.resourceId);
    if (!look || !restore) continue;
    const lookDone = completedOf(events, look);
    // The workflow task that scheduled the restore completed just before it (its completion event comes first).
    const taskDone = byId.get(Number(restore.activityTaskScheduledEventAttributes?.workflowTaskCompletedEventId));
    steps.push({
      notice: at(lookDone) - job.backupEnd,
      workflowTask: at(taskDone) - at(lookDone),
      queue: at(startedOf(events, restore)) - at(restore),
      call: job.restoreCreated - at(startedOf(events, restore)),
    });
  }
  return steps.filter((s) => GAP_STEPS.every((k) => Number.isFinite(s[k])));
}
