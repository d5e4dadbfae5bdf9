import { activityInfo } from '@temporalio/activity';
import { ConflictError, type MpaRequest } from '../api';
import { approvalNoticeOf, decisionOf, type Notified } from '../contracts';
import type { ActivityDeps } from '../runtime/activity-deps';
import { calling, notYet, toFailure } from '../runtime/failures';
import { isWatch, watchPause } from '../runtime/heartbeat';
import { approvalPollDelayMs, MIN_APPROVAL_POLL_MS } from '../runtime/poll-delays';
import { notifyFromActivity } from './notifications';

export interface ApprovalState {
  requestId: string;
  status: string;
  approvalExpirationTime?: string | null;
  executionExpirationTime?: string | null;
  resolvedTime?: string | null;
  approvals: { current: number; required: number };
  /** Absent from results recorded before it was added. */
  requestedAt?: string;
  /** The shortest of the policies' execution windows: the deadline once approved is at most this far. */
  executionWindowHours?: number;
}

/** Set by runs that send their approval notifications from these activities (`lean-history`). */
export interface Announce {
  resourceId: string;
}

const undecided = (status: string) => status === 'PENDING_APPROVAL' || status === 'CREATED';

export function approvalActivities({ client, webhooks, waitLooks = 'watch', onApprovalLook }: ActivityDeps) {
  /** Tells the worker's approval gauges what a look saw. */
  const looked = (state: ApprovalState): ApprovalState => {
    onApprovalLook?.({
      requestId: state.requestId,
      runbook: activityInfo().workflowType ?? 'unknown',
      status: state.status,
      createdTime: state.requestedAt,
      approvalExpirationTime: state.approvalExpirationTime,
      serviceNowMs: client.serviceNow(),
    });
    return state;
  };
  return {
    /**
     * Submits a CREATED request for approval (CONFIRM) with the user's comment; with `announce`, sends
     * approval.pending when the request waits on reviewers.
     */
    async submitForApproval(input: {
      requestId: string;
      comment?: string;
      announce?: Announce;
    }): Promise<ApprovalState & Notified> {
      const attempt = activityInfo().attempt;
      try {
        await client.submitActionRequest(input.requestId, { action: 'CONFIRM', comment: input.comment });
      } catch (err) {
        // Past CREATED already: only this requester can submit, so an earlier attempt landed (a local activity
        // restarts at attempt 1 after a worker crash). The runbook goes on from the request's state as it is now.
        if (!(err instanceof ConflictError)) throw toFailure(err, attempt);
      }
      const state = looked(stateOf(await calling(attempt, () => client.getActionRequest(input.requestId))));
      if (!input.announce || !undecided(state.status)) return state;
      const data = approvalNoticeOf(state, input.announce.resourceId);
      return { ...state, notified: await notifyFromActivity(webhooks, { event: 'approval.pending', data }) };
    },

    /**
     * Looks at a request until reviewers decide, or the count of approvals moves from `seenApprovals` (so that the
     * runbook's status shows it); returns its state then. With `announce`, the look that sees the decision sends
     * approval.decided. Scheduled as a watch (see runtime/heartbeat.ts), it sleeps between looks on the schedule of
     * runtime/poll-delays.ts: the first look comes 30 s after the request was last read, except on a retry, which
     * looks at once. Otherwise (a nudge's local look, a run scheduled before watches) it takes one look, and "not yet"
     * asks the retry policy for the next one at the schedule's delay.
     */
    async checkApproval(
      requestId: string,
      seenApprovals?: number,
      announce?: Announce,
    ): Promise<ApprovalState & Notified> {
      const info = activityInfo();
      const watching = waitLooks === 'watch' && isWatch(info);
      if (watching && info.attempt === 1) await watchPause(MIN_APPROVAL_POLL_MS);
      for (;;) {
        const request = await calling(info.attempt, () => client.getActionRequest(requestId));
        const state = looked(stateOf(request));
        const pending = undecided(request.status);
        if (pending && (seenApprovals === undefined || state.approvals.current === seenApprovals)) {
          const now = client.serviceNow();
          const nextLook = approvalPollDelayMs(
            now - Date.parse(request.createdTime),
            Date.parse(request.approvalExpirationTime ?? '') - now,
          );
          const delay = Number.isFinite(nextLook) ? nextLook : undefined;
          if (watching) {
            await watchPause(delay ?? MIN_APPROVAL_POLL_MS);
            continue;
          }
          throw notYet(
            `action request ${requestId} is ${request.status} with ${state.approvals.current} approvals`,
            delay,
          );
        }
        if (!announce || pending) return state;
        const data = { ...approvalNoticeOf(state, announce.resourceId), decision: decisionOf(state.status) };
        return { ...state, notified: await notifyFromActivity(webhooks, { event: 'approval.decided', data }) };
      }
    },

    /** Withdraws a request the runbook no longer wants: discards it when CREATED, cancels it when pending or approved. */
    async withdrawRequest(requestId: string): Promise<ApprovalState> {
      const attempt = activityInfo().attempt;
      const request = await calling(attempt, () => client.getActionRequest(requestId));
      try {
        if (request.status === 'CREATED') {
          await client.submitActionRequest(requestId, { action: 'DISCARD' });
        } else if (request.status === 'PENDING_APPROVAL' || request.status === 'APPROVED') {
          await client.cancelActionRequest(requestId);
        }
      } catch (err) {
        // It moved on meanwhile (executed, expired): report where it is now.
        if (!(err instanceof ConflictError)) throw toFailure(err, attempt);
      }
      return looked(stateOf(await calling(attempt, () => client.getActionRequest(requestId))));
    },
  };
}

export function stateOf(request: MpaRequest): ApprovalState {
  const current = Math.min(...request.policyDetails.map((d) => d.currentApprovals));
  const required = Math.max(...request.policyDetails.map((d) => d.requiredApprovals));
  const executionWindowHours = Math.min(...request.policyDetails.map((d) => d.executionWindowHours));
  return {
    requestId: request.id,
    status: request.status,
    approvalExpirationTime: request.approvalExpirationTime,
    executionExpirationTime: request.executionExpirationTime,
    resolvedTime: request.resolvedTime,
    approvals: {
      current: Number.isFinite(current) ? current : 0,
      required: Number.isFinite(required) ? required : 0,
    },
    requestedAt: request.createdTime,
    ...(Number.isFinite(executionWindowHours) ? { executionWindowHours } : {}),
  };
}
