import { ApplicationFailure } from '@temporalio/common';
import { CancellationScope, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { ApprovalState } from '../../steps/approvals';
import { leanHistory, notify, peekCalls, quickCalls, resend, serviceCalls, watchingCalls } from '../../runtime/calls';
import { recordApprovalWait } from '../../runtime/metrics';
import { RunbookTracker, parseInput } from '../../runtime/tracker';
import type { Activities } from '../activities';
import {
  ApprovalStatusKey,
  approvalNoticeOf,
  decisionOf,
  FailureType,
  type ApprovalNotice,
  type Notified,
  type RunbookApproval,
  type SentNotification,
} from '../../contracts';
import { ApprovalGatedRestoreInput, type ApprovalGatedRestoreResult } from './contract';

const REFUSALS: Record<string, FailureType> = {
  DENIED: FailureType.ApprovalDenied,
  EXPIRED_PENDING_APPROVAL: FailureType.ApprovalExpired,
  EXPIRED_APPROVED: FailureType.ApprovalExpired,
  CANCELED_PENDING_APPROVAL: FailureType.ApprovalCanceled,
  CANCELED_APPROVED: FailureType.ApprovalCanceled,
  DISCARDED: FailureType.ApprovalCanceled,
};

/** The request's state without the notification an activity sent along with it, which stays out of the result. */
function withoutNotice(state: ApprovalState & Notified): ApprovalState {
  const { notified: _sent, ...rest } = state;
  return rest;
}

const service = serviceCalls<Activities>();
const quick = quickCalls<Activities>();
const peek = peekCalls<Activities>();

/** Restores a bucket (or files), asking for and waiting on multi-party approval when a policy protects it. */
export async function approvalGatedRestore(raw: ApprovalGatedRestoreInput): Promise<ApprovalGatedRestoreResult> {
  const input = parseInput(ApprovalGatedRestoreInput, raw);
  const tracker = new RunbookTracker('approvalGatedRestore', { resource: input.resourceId });
  const startedAt = new Date().toISOString();
  // Reviewers take hours, a restore can too: each wait is one watch, not an activity task per look.
  const watch = watchingCalls<Activities>();
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
  let decided: SentNotification | undefined;
  let lean = false;
  let executed = false;
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
      // Asked once: the activities send the approval notifications themselves (see `leanHistory`).
      lean = leanHistory();
      const announce = lean ? { resourceId: input.resourceId } : undefined;
      const submitted = await quick.submitForApproval({
        requestId,
        comment: input.comment,
        ...(announce ? { announce } : {}),
      });
      approval = withoutNotice(submitted);
      tracker.tag(ApprovalStatusKey, approval.status);
      const undecided = approval.status === 'PENDING_APPROVAL' || approval.status === 'CREATED';
      if (undecided && lean) resend(submitted.notified);
      else if (undecided) notify({ event: 'approval.pending', data: approvalNotice(approval) });

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
        const looked = await tracker.waitNudgeable(
          () => watch.checkApproval(requestId, seen, announce),
          () => peek.checkApproval(requestId, seen, announce),
        );
        approval = withoutNotice(looked);
        decided = looked.notified;
      }
      // Lean runs tag an approval EXECUTED once its restore starts, a moment later; APPROVED only if it cannot start.
      if (!(lean && approval.status === 'APPROVED')) tracker.tag(ApprovalStatusKey, approval.status);
      if (undecided && lean) resend(decided);
      else if (undecided) {
        notify({
          event: 'approval.decided',
          data: { ...approvalNotice(approval), decision: decisionOf(approval.status) },
        });
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
      executed = true;
    } catch (err) {
      if (lean && approval?.status === 'APPROVED' && !executed && !isCancellation(err)) {
        tracker.tag(ApprovalStatusKey, 'APPROVED');
      }
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
    () => watch.checkRestoreJob(jobId),
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
    return approvalNoticeOf(state, input.resourceId);
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
