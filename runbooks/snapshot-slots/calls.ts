// Workflow-side helpers for runbooks that take snapshots in slots of the project's limiter (see workflow.ts).
import { CancellationScope, getExternalWorkflowHandle, log, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ActivityInterfaceFor } from '@temporalio/workflow';
import { CRASH_DETECTION, typedCalls } from '../../runtime/calls';
import type { SnapshotSlot, SnapshotSlotActivities } from './activities';
import { releaseSlotSignal } from './contract';

/**
 * The lease of one snapshot start of this run, named by `key` (the resource): the same on every attempt, so that a
 * retried start never takes a second slot, and known here, so that the run can give the slot back whatever happened.
 */
export function snapshotSlotLease(key: string): string {
  const { workflowId, runId } = workflowInfo();
  return `${workflowId}/${runId}/${key}`;
}

/**
 * The calls of the slot activities. Waiting for a slot can take as long as the backups ahead of it: the attempt
 * may run for days, heartbeating (every activity does), so a crash is noticed in seconds and the retry keeps the
 * lease's place.
 */
export function snapshotSlotCalls(): ActivityInterfaceFor<SnapshotSlotActivities> {
  return typedCalls(
    proxyActivities<SnapshotSlotActivities>({
      startToCloseTimeout: '7 days',
      heartbeatTimeout: CRASH_DETECTION,
      retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
    }),
  );
}

/**
 * Gives a slot back once its backup job has ended (or its start failed, or the run is cancelled): a signal to the
 * limiter when its ID is known (two events), else the release activity. Never fails the run: a slot that is not
 * given back returns when this run ends (the limiter checks its holders).
 */
export async function releaseSnapshotSlot(slot: SnapshotSlot | { leaseId: string; limiterId?: undefined }) {
  await CancellationScope.nonCancellable(async () => {
    try {
      if (slot.limiterId !== undefined) {
        await getExternalWorkflowHandle(slot.limiterId).signal(releaseSlotSignal, { leaseId: slot.leaseId });
      } else {
        await snapshotSlotCalls().releaseSnapshotSlot({ leaseId: slot.leaseId });
      }
    } catch (err) {
      log.warn('snapshot slot not released; the limiter reclaims it when this run ends', { error: String(err) });
    }
  });
}
