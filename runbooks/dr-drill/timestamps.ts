import { ParentClosePolicy, proxyActivities, startChild, workflowInfo } from '@temporalio/workflow';
import { TIMESTAMP_TOLERANCE_MS } from '../../runtime/evidence-timestamp-rules';
import type { Activities } from '../activities';
import type { DrDrillResult } from './contract';
import type { PendingTimestamps, ReportTimestamps } from './timestamp-activities';

/**
 * Timestamps that could not be had when a drill's report was sealed are added later, by a run of their own that
 * outlives the drill: the drill's verdict never waits on an authority. The run asks again with backoff for as long as
 * a token would still agree with the seal's time (the tolerance), then gives up and the report stays untimestamped.
 */
export async function drillEvidenceTimestamps(pending: PendingTimestamps): Promise<{ stamped: string[] }> {
  // A little short of the tolerance, so that the token's time is still within it.
  const deadline = Date.parse(pending.sealedAt) + TIMESTAMP_TOLERANCE_MS - 10 * 60_000;
  const left = deadline - Date.now();
  if (left <= 0) return { stamped: [] };
  const { addEvidenceTimestamps } = proxyActivities<Activities>({
    startToCloseTimeout: '2 minutes',
    scheduleToCloseTimeout: left,
    retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '15 minutes' },
  });
  return addEvidenceTimestamps({ targets: pending.targets, ...(pending.folder ? { folder: pending.folder } : {}) });
}

/**
 * Starts the retry of a report's missing timestamps, when some are missing; the run (a drill's, a recovery plan's)
 * does not wait for it.
 */
export async function timestampsLater(pending: PendingTimestamps | undefined): Promise<void> {
  if (!pending || pending.targets.length === 0) return;
  const { workflowId, runId } = workflowInfo();
  await startChild(drillEvidenceTimestamps, {
    workflowId: `${workflowId}--timestamps--${runId}`,
    parentClosePolicy: ParentClosePolicy.ABANDON,
    args: [pending],
  });
}

/** What the drill's result says of its report's timestamps; nothing when no authority is configured. */
export function timestampsOutcome(timestamps: ReportTimestamps | undefined): Pick<DrDrillResult, 'timestamps'> {
  if (!timestamps) return {};
  if (!timestamps.pending) return { timestamps: { status: 'added', files: timestamps.added.length } };
  return { timestamps: { status: 'pending', files: timestamps.added.length, reason: timestamps.pending.error } };
}
