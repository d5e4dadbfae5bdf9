import { ApplicationFailure } from '@temporalio/common';
import type { z } from 'zod';
import {
  CancellationScope,
  getExternalWorkflowHandle,
  isCancellation,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { ApprovalState } from '../../steps/approvals';
import { leanHistory, notify, peekCalls, quickCalls, resend, serviceCalls, watchingCalls } from '../../runtime/calls';
import { recordApprovalWait } from '../../runtime/metrics';
import { RunbookTracker, parseInput } from '../../runtime/tracker';
import type { Activities } from '../activities';
import {
  ApprovalStatusKey,
  approvalNoticeOf,
  decisionOf,
  failureMessage,
  failureTypeOf,
  FailureType,
  type Notified,
  type RunbookApproval,
  type SentNotification,
} from '../../contracts';
import {
  ApprovalGatedRestoreInput,
  type ApprovalGatedRestoreResult,
  approvalGatedRestoreContract,
  reportEndSignal,
  restoreEndedSignal,
  type RestoreEnded,
  type RestorePhase,
} from './contract';

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

// Reviewers take hours, a restore can too: each wait is one watch, not an activity task per look.
const watch = watchingCalls<Activities>();

type RestoreInput = z.output<typeof ApprovalGatedRestoreInput>;
type RestoreRequest = Parameters<Activities['startRestore']>[0];

/** What the phases of an approval share: the request, the restore it gates, and how far the approval has come. */
interface Gate {
  input: RestoreInput;
  tracker: RunbookTracker<RestorePhase>;
  restore: RestoreRequest;
  requestId: string;
  /** What the status says of earlier requests a lost answer may have left behind ('' when none; else '; ...'). */
  leftovers: string;
  /** The activities send the approval notifications themselves (see `leanHistory`). */
  lean: boolean;
  approval?: ApprovalState;
  approvedAt?: string;
  executed: boolean;
}

/** Restores a bucket (or files), asking for and waiting on multi-party approval when a policy protects it. */
export async function approvalGatedRestore(raw: ApprovalGatedRestoreInput): Promise<ApprovalGatedRestoreResult> {
  const input = parseInput(ApprovalGatedRestoreInput, raw);
  let reportTo: string | undefined;
  setHandler(reportEndSignal, ({ to }) => {
    reportTo = to;
  });
  try {
    const result = await restoreOnce(input);
    if (reportTo !== undefined) await tellEnd(reportTo, { result });
    return result;
  } catch (err) {
    if (reportTo !== undefined && !isCancellation(err)) {
      const errorType = failureTypeOf(err);
      const failed = { error: failureMessage(err), failedAt: new Date().toISOString() };
      await tellEnd(reportTo, { ...failed, ...(errorType ? { errorType } : {}) });
    }
    throw err;
  }
}

/** Tells `to` (a plan that may have continued as new) how the restore ended; one that is gone no longer asks. */
async function tellEnd(to: string, end: Omit<RestoreEnded, 'workflowId'>): Promise<void> {
  try {
    await getExternalWorkflowHandle(to).signal(restoreEndedSignal, { workflowId: workflowInfo().workflowId, ...end });
  } catch (err) {
    if (isCancellation(err)) throw err;
  }
}

async function restoreOnce(input: RestoreInput): Promise<ApprovalGatedRestoreResult> {
  const tracker = new RunbookTracker(approvalGatedRestoreContract, { resource: input.resourceId });
  const startedAt = new Date().toISOString();
  const restore = restoreRequestOf(input);

  tracker.phase('requesting restore');
  const first = await service.startRestore(restore);
  const possibleLeftoverRequests = first.possibleLeftoverRequests;
  const leftovers =
    possibleLeftoverRequests > 0
      ? `; up to ${possibleLeftoverRequests} earlier action request(s) may be left in CREATED (a lost answer)`
      : '';
  let gate: Gate | undefined;
  let jobId: string;
  if (first.kind === 'started') jobId = first.jobId;
  else {
    gate = { input, tracker, restore, requestId: first.requestId, leftovers, lean: false, executed: false };
    jobId = await restoreOnceApproved(gate);
  }

  const restoreStartedAt = new Date().toISOString();
  const job = await restoreJobOf(tracker, jobId, leftovers);
  tracker.phase(job.outcome === 'PARTIAL' ? 'completed with warnings' : 'completed', {
    detail: [job.statusMessage, leftovers.slice(2)].filter(Boolean).join('; ') || undefined,
  });
  return {
    job,
    approval: gate?.approval,
    possibleLeftoverRequests,
    timings: { startedAt, approvedAt: gate?.approvedAt, restoreStartedAt, finishedAt: new Date().toISOString() },
  };
}

function restoreRequestOf(input: RestoreInput): RestoreRequest {
  return {
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
}

/**
 * Submits the request, waits for the reviewers' decision and, once approved, starts the restore: its job ID. A
 * cancelled run withdraws the request.
 */
async function restoreOnceApproved(gate: Gate): Promise<string> {
  const { tracker, requestId } = gate;
  try {
    const submitted = await submitForApproval(gate);
    const { approval, decided } = await decisionOn(gate, submitted.approval, submitted.announce);
    decisionTold(gate, approval, decided, submitted);
    refuseUnlessApproved(gate, approval);
    gate.approvedAt = new Date().toISOString();

    tracker.phase('executing approved restore', { detail: `before ${approval.executionExpirationTime ?? 'n/a'}` });
    const repeat = await service.startRestore({ ...gate.restore, approvalRequestId: requestId });
    if (repeat.kind !== 'started') {
      throw ApplicationFailure.nonRetryable(
        'the service asked for approval again on an approved request',
        FailureType.Conflict,
      );
    }
    tracker.tag(ApprovalStatusKey, 'EXECUTED');
    gate.executed = true;
    return repeat.jobId;
  } catch (err) {
    if (gate.lean && gate.approval?.status === 'APPROVED' && !gate.executed && !isCancellation(err)) {
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

/** Submits the request for approval and says it is pending; what the wait and the decision's notice need. */
async function submitForApproval(gate: Gate) {
  const { tracker, requestId } = gate;
  // Submitting runs inside this workflow task, so the request is never seen CREATED: no tag for that.
  tracker.phase('submitting for approval', {
    ids: { requestId },
    detail: `action request ${requestId}${gate.leftovers}`,
  });
  const submittedAt = Date.now();
  // Asked once: the activities send the approval notifications themselves (see `leanHistory`).
  gate.lean = leanHistory();
  const announce = gate.lean ? { resourceId: gate.input.resourceId } : undefined;
  const submitted = await quick.submitForApproval({
    requestId,
    comment: gate.input.comment,
    ...(announce ? { announce } : {}),
  });
  const approval = withoutNotice(submitted);
  gate.approval = approval;
  tracker.tag(ApprovalStatusKey, approval.status);
  const undecided = approval.status === 'PENDING_APPROVAL' || approval.status === 'CREATED';
  if (undecided && gate.lean) resend(submitted.notified);
  else if (undecided) notify({ event: 'approval.pending', data: approvalNoticeOf(approval, gate.input.resourceId) });
  return { approval, submittedAt, undecided, announce };
}

/** Waits until the request is decided: its state, and the notification its last look sent, if one did. */
async function decisionOn(gate: Gate, submitted: ApprovalState, announce: { resourceId: string } | undefined) {
  const { tracker, requestId } = gate;
  let approval = submitted;
  let decided: SentNotification | undefined;
  const waitingFor = `approval of action request ${requestId} before ${approval.approvalExpirationTime ?? 'its deadline'}`;
  // Each look returns when the count of approvals moves, so that the status always shows the current one.
  while (approval.status === 'PENDING_APPROVAL' || approval.status === 'CREATED') {
    tracker.phase('waiting for approval', {
      waitingFor,
      detail: gate.leftovers ? gate.leftovers.slice(2) : undefined,
      progress: { done: approval.approvals.current, total: approval.approvals.required, unit: 'approvals' },
      approval: approvalView(approval),
    });
    const seen: number = approval.approvals.current;
    const looked = await tracker.waitNudgeable(
      () => watch.checkApproval(requestId, seen, announce),
      () => peek.checkApproval(requestId, seen, announce),
    );
    approval = withoutNotice(looked);
    gate.approval = approval;
    decided = looked.notified;
  }
  return { approval, decided };
}

/** Tags and announces the decision (unless the activity sent it), and records how long it took. */
function decisionTold(
  gate: Gate,
  approval: ApprovalState,
  decided: SentNotification | undefined,
  { undecided, submittedAt }: { undecided: boolean; submittedAt: number },
): void {
  const { tracker, lean } = gate;
  // Lean runs tag an approval EXECUTED once its restore starts, a moment later; APPROVED only if it cannot start.
  if (!(lean && approval.status === 'APPROVED')) tracker.tag(ApprovalStatusKey, approval.status);
  if (undecided && lean) resend(decided);
  else if (undecided) {
    notify({
      event: 'approval.decided',
      data: { ...approvalNoticeOf(approval, gate.input.resourceId), decision: decisionOf(approval.status) },
    });
  }
  recordApprovalWait((Date.now() - submittedAt) / 1000, approval.status);
}

function refuseUnlessApproved(gate: Gate, state: ApprovalState): void {
  if (state.status === 'APPROVED') return;
  throw ApplicationFailure.create({
    type: REFUSALS[state.status] ?? FailureType.ApprovalCanceled,
    nonRetryable: true,
    message: `action request ${state.requestId} ended ${state.status}: the restore of ${gate.input.resourceId} in ${workflowInfo().workflowId} did not run`,
    details: [state],
  });
}

/** Waits for the restore job; a job that did not succeed fails the run. */
async function restoreJobOf(tracker: RunbookTracker<RestorePhase>, jobId: string, leftovers: string) {
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
  return job;
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
