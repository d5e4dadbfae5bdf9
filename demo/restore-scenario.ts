import type { Client } from '@temporalio/client';
import type {
  ApprovalGatedRestoreInput,
  ApprovalGatedRestoreResult,
} from '../runbooks/approval-gated-restore/contract';
import { nudgeSignal } from '../contracts';
import { CliError } from '../operator/errors';
import { formatDuration, formatProgress } from '../operator/progress';
import { queryStatus } from '../operator/watch';
import { startRunbook } from '../operator/start-run';
import type { DemoTargets } from './discover';
import { Deadline, follow, sleep, waitForStatus } from './follow';
import { approvalsOf, type SimulatorControlClient } from '../simulator/control-client';
import type { StepReport } from './report';

export const REVIEWERS = ['alice@example.com', 'bob@example.com'];

const between = (from: string | undefined, to: string | undefined) =>
  from && to ? formatDuration(Date.parse(to) - Date.parse(from)) : 'n/a';

/**
 * The approval-gated bucket restore: it asks for approval, waits (visibly) while the reviewers take their time, and
 * restores once both have approved. The demo plays the reviewers through the simulator's control API.
 */
export async function restoreScenario(
  client: Client,
  taskQueue: string,
  sim: SimulatorControlClient,
  targets: DemoTargets,
  deadline: Deadline,
): Promise<StepReport> {
  const { resource, snapshotId } = targets.bucket;
  const input: ApprovalGatedRestoreInput = {
    resourceId: resource.id,
    snapshotId,
    kind: 'bucket',
    restoreAccountId: targets.restoreAccount.id,
    // Named by concept, as the demo's other destinations: the runbooks send it in the service's own dialect.
    destination: { amazonBucket: { bucketName: `restored-${resource.region}`, prefix: `${resource.resourceName}/` } },
    comment: 'demo: objects were deleted by mistake; restoring the bucket from its latest snapshot',
  };
  console.log(`  bucket ${resource.resourceName} (${resource.region}), snapshot ${snapshotId}`);
  console.log(
    `  into restore account ${targets.restoreAccount.name}, under a policy that needs ${REVIEWERS.length} approvals`,
  );
  const startedAt = Date.now();
  const { workflowId } = await startRunbook(client, taskQueue, 'approvalGatedRestore', input);
  console.log(`  started ${workflowId}`);
  const handle = client.workflow.getHandle(workflowId);

  const waiting = await waitForStatus(
    handle,
    deadline,
    'waiting for approval',
    (s) => s.phase === 'waiting for approval',
  );
  const requestId = waiting.ids.requestId;
  if (!requestId) throw new CliError(`the runbook's status names no action request: ${JSON.stringify(waiting)}`);
  console.log(
    `  action request ${requestId} submitted; the runbook waits (its retry policy polls, history stays small)`,
  );

  // A visible wait: nobody has reviewed yet.
  for (let second = 0; second < 4; second++) {
    const status = (await queryStatus(handle)) ?? waiting;
    const progress = status.progress ? formatProgress(status.progress) : '';
    console.log(`    [+${second} s] ${status.phase} ${progress}`);
    await sleep(1_000);
  }

  for (const [index, reviewer] of REVIEWERS.entries()) {
    deadline.remaining('playing the reviewers');
    const review = { reviewerEmail: reviewer, comment: 'checked the incident ticket' };
    const view = (await sim.approve(requestId, review)).actionApprovalRequest;
    const approvals = approvalsOf(view);
    const bar = formatProgress({ done: approvals.current, total: approvals.required, unit: 'approvals' });
    console.log(`  reviewer ${reviewer} approved: ${bar} (request ${view.status})`);
    if (index < REVIEWERS.length - 1) await sleep(1_500);
  }
  // The runbook would notice at its next poll; a nudge makes it look now.
  await handle.signal(nudgeSignal);
  console.log('  nudged the runbook: it checks the request at once');

  const { result, tookMs } = await follow<ApprovalGatedRestoreResult>(client, workflowId, deadline, startedAt);
  const t = result.timings;
  return {
    title: 'Approval-gated restore',
    workflowId,
    tookMs,
    outcome: `${result.job.status} (request ${result.approval?.status ?? 'not needed'})`,
    lines: [
      `restore job ${result.job.jobId}: ${result.job.status}${result.job.statusMessage ? ` (${result.job.statusMessage})` : ''}`,
      `waited for approval ${between(t.startedAt, t.approvedAt)}, restore job ran ${between(t.restoreStartedAt, t.finishedAt)}, total ${between(t.startedAt, t.finishedAt)}`,
    ],
    files: [],
  };
}
