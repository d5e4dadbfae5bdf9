import { ApplicationFailure } from '@temporalio/common';
import { CancellationScope, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { ApprovalState } from '../../steps/approvals';
import { notify, peekCalls, quickCalls, serviceCalls, waitingCalls } from '../../runtime/calls';
import { recordApprovalWait } from '../../runtime/metrics';
import { RunbookTracker, parseInput } from '../../runtime/tracker';
import type { Activities } from '../activities';
import { ApprovalStatusKey, FailureType, type ApprovalNotice, type RunbookApproval } from '../../contracts';
import { ApprovalGatedRestoreInput, type ApprovalGatedRestoreResult } from './contract';

const REFUSALS: Record<string, FailureType> = {
  DENIED: FailureType.ApprovalDenied,
  EXPIRED_PENDING_APPROVAL: FailureType.ApprovalExpired,
  EXPIRED_APPROVED: FailureType.ApprovalExpired,
  CANCELED_PENDING_APPROVAL: FailureType.ApprovalCanceled,
  CANCELED_APPROVED: FailureType.ApprovalCanceled,
  DISCARDED: FailureType.ApprovalCanceled,
};

function decisionOf(state: ApprovalState): 'approved' | 'denied' | 'expired' | 'canceled' {
  if (state.status === 'APPROVED') return 'approved';
  if (state.status === 'DENIED') return 'denied';
  return state.status.startsWith('EXPIRED') ? 'expired' : 'canceled';
}

const service = serviceCalls<Activities>();
const quick = quickCalls<Activities>();
const peek = peekCalls<Activities>();

/** Restores a bucket (or files), asking for and waiting on multi-party approval when a policy protects it. */
export async function approvalGatedRestore(raw: ApprovalGatedRestoreInput): Promise<ApprovalGatedRestoreResult> {
  const input = parseInput(ApprovalGatedRestoreInput, raw);
  const tracker = new RunbookTracker('approvalGatedRestore', { resource: input.resourceId });
  const startedAt = new Date().toISOString();
  const wait = waitingCalls<Activities>();
  const restore = {
    resourceId: input.resourceId,
    snapshotId: input.snapshotId,
    kind: input.kind,
    bucket:
      input.kind === 'bucket'
        ? { destination: input.destination, restoreAccountId: input.restoreAccountId }
        : undefined,
    files:
      input.kind === 'files'
        ? { destination: input.destination, files: input.files ?? [], restoreAccountId: input.restoreAccountId }
        : undefined,
  };

  tracker.phase('requesting restore');
  const first = await service.startRestore(restore);
  const possibleLeftoverRequests = first.possibleLeftoverRequests;
  const leftovers =
    possibleLeftoverRequests > 0
      ? `; up to ${possibleLeftoverRequests} earlier action request(s) may be left in CREATED (a lost answer)`
      : '';
  let jobId: string;
  let approval: ApprovalState | undefined;
  let approvedAt: string | undefined;
  if (first.kind === 'started') {
    jobId = first.jobId;
  } else {
    const requestId = first.requestId;
    try {
      // Submitting runs inside this workflow task, so the request is never seen CREATED: no tag for that.
      tracker.phase('submitting for approval', {
        ids: { requestId },
        detail: `action request ${requestId}${leftovers}`,
      });
      const submittedAt = Date.now();
      approval = await quick.submitForApproval({ requestId, comment: input.comment });
      tracker.tag(ApprovalStatusKey, approval.status);
      const undecided = approval.status === 'PENDING_APPROVAL' || approval.status === 'CREATED';
      if (undecided) notify({ event: 'approval.pending', data: approvalNotice(approval) });

      const waitingFor = `approval of action request ${requestId} before ${approval.approvalExpirationTime ?? 'its deadline'}`;
      // Each look returns when the count of approvals moves, so that the status always shows the current one.
      while (approval.status === 'PENDING_APPROVAL' || approval.status === 'CREATED') {
        tracker.phase('waiting for approval', {
          waitingFor,
          detail: leftovers ? leftovers.slice(2) : undefined,
          progress: { done: approval.approvals.current, total: approval.approvals.required, unit: 'approvals' },
          approval: approvalView(approval),
        });
        const seen: number = approval.approvals.current;
        approval = await tracker.waitNudgeable(
          () => wait.checkApproval(requestId, seen),
          () => peek.checkApproval(requestId, seen),
        );
      }
      tracker.tag(ApprovalStatusKey, approval.status);
      if (undecided) {
        notify({ event: 'approval.decided', data: { ...approvalNotice(approval), decision: decisionOf(approval) } });
      }
      recordApprovalWait((Date.now() - submittedAt) / 1000, approval.status);
      refuseUnlessApproved(approval);
      approvedAt = new Date().toISOString();

      tracker.phase('executing approved restore', { detail: `before ${approval.executionExpirationTime ?? 'n/a'}` });
      const repeat = await service.startRestore({ ...restore, approvalRequestId: requestId });
      if (repeat.kind !== 'started') {
        throw ApplicationFailure.nonRetryable(
          'the service asked for approval again on an approved request',
          FailureType.Conflict,
        );
      }
      jobId = repeat.jobId;
      tracker.tag(ApprovalStatusKey, 'EXECUTED');
    } catch (err) {
      if (isCancellation(err)) {
        // The run is going away: leave no request behind that someone could still approve.
        await CancellationScope.nonCancellable(async () => {
          const withdrawn = await service.withdrawRequest(requestId);
          tracker.tag(ApprovalStatusKey, withdrawn.status);
        });
      }
      throw err;
    }
  }

  const restoreStartedAt = new Date().toISOString();
  tracker.phase('waiting for restore job', {
    ids: { jobId },
    waitingFor: `restore job ${jobId}`,
    detail: leftovers.slice(2) || undefined,
  });
  const job = await tracker.waitNudgeable(
    () => wait.checkRestoreJob(jobId),
    () => peek.checkRestoreJob(jobId),
  );
  if (!job.succeeded) {
    throw ApplicationFailure.create({
      type: FailureType.JobFailed,
      nonRetryable: true,
      message: `restore job ${jobId} ended ${job.status}: ${job.errorCode ?? ''} ${job.statusMessage ?? ''}`.trim(),
      details: [job],
    });
  }
  tracker.phase(job.outcome === 'PARTIAL' ? 'completed with warnings' : 'completed', {
    detail: [job.statusMessage, leftovers.slice(2)].filter(Boolean).join('; ') || undefined,
  });
  return {
    job,
    approval,
    possibleLeftoverRequests,
    timings: { startedAt, approvedAt, restoreStartedAt, finishedAt: new Date().toISOString() },
  };

  function approvalNotice(state: ApprovalState): ApprovalNotice {
    const { requestId, status, approvals, approvalExpirationTime, executionExpirationTime, resolvedTime } = state;
    const times = {
      approvalExpirationTime,
      executionExpirationTime,
      executionWindowHours: state.executionWindowHours,
      resolvedTime,
    };
    return { requestId, resourceId: input.resourceId, status, approvals, ...times };
  }

  function refuseUnlessApproved(state: ApprovalState): void {
    if (state.status === 'APPROVED') return;
    throw ApplicationFailure.create({
      type: REFUSALS[state.status] ?? FailureType.ApprovalCanceled,
      nonRetryable: true,
      message: `action request ${state.requestId} ended ${state.status}: the restore of ${input.resourceId} in ${workflowInfo().workflowId} did not run`,
      details: [state],
    });
  }
}

/** What `runbooks approvals` shows of a request; only the status query carries it, never history. */
function approvalView(state: ApprovalState): RunbookApproval {
  return {
    requestId: state.requestId,
    status: state.status,
    requestedAt: state.requestedAt,
    approvals: state.approvals,
    approvalDeadline: state.approvalExpirationTime ?? undefined,
    executionDeadline: state.executionExpirationTime ?? undefined,
    executionWindowHours: state.executionWindowHours,
  };
}
