// What the runbooks tell people about, as webhooks (steps/notifications.ts sends them, runtime/calls.ts `notify`).

export const NOTIFICATION_EVENTS = [
  'approval.pending',
  'approval.decided',
  'drill.passed',
  'drill.failed',
  'drill.validation.requested',
  'export.done',
  'runbook.failed',
] as const;
export type NotificationEventName = (typeof NOTIFICATION_EVENTS)[number];

export interface ApprovalNotice {
  requestId: string;
  resourceId: string;
  status: string;
  approvals: { current: number; required: number };
  /** Reviewers must decide before this. */
  approvalExpirationTime?: string | null;
  /** The approved restore must run before this; set once approved, `executionWindowHours` after the approval. */
  executionExpirationTime?: string | null;
  executionWindowHours?: number;
  resolvedTime?: string | null;
}

/**
 * What a drill's resources came to: in its summary, in a batch's share of it, in the history's index and in its
 * notification (runbooks/dr-drill/report.ts re-exports it).
 */
export interface DrillCounts {
  total: number;
  passed: number;
  /** Partial restores: not passed, not failed. Absent in reports before the PARTIAL verdict. */
  partial?: number;
  failed: number;
  worstRpoSeconds?: number;
  worstRtoSeconds?: number;
}

export interface DrillNotice extends DrillCounts {
  name: string;
  /** drill.passed carries PASS only; PARTIAL and FAIL go out as drill.failed. */
  verdict: 'PASS' | 'PARTIAL' | 'FAIL';
  report: { json: string; markdown: string };
}

/** A restored resource waits for someone to validate it, until `deadline`. */
export interface DrillValidationNotice {
  name: string;
  resourceId: string;
  resourceName: string;
  resourceType: string;
  restoreJobId: string;
  /** Where the restore put the data (the drill's destination, as the service names it). */
  restoredTo: unknown;
  recoveryPoint: { snapshotId: string; pointInTime: string };
  deadline: string;
  /** The command that answers. */
  answerWith: string;
  /**
   * Set when a search for the last clean point asks (not a drill): the restored point is candidate `index` (0 = the
   * newest) of `candidates`, judged for the check named `check`. Its verdict names the snapshot.
   */
  search?: { check: string; index: number; candidates: number };
}

export interface ExportNotice {
  export: 'query' | 'cost';
  file: string;
  rows: number;
  bytes: number;
  sha256: string;
}

export interface FailureNotice {
  failureType: string;
  message: string;
}

/** The run a notification speaks for. */
export interface NotifyingRun {
  runbook: string;
  workflowId: string;
  runId: string;
}

/**
 * One event as a workflow raises it; the activity adds the run's identity and the delivery ID. `onBehalfOf`: another
 * run's identity instead (a drill's batch speaks for its drill: people answer the drill, not the batch).
 */
export type NotificationEvent = { onBehalfOf?: NotifyingRun } & (
  | { event: 'approval.pending'; data: ApprovalNotice }
  | {
      event: 'approval.decided';
      data: ApprovalNotice & { decision: 'approved' | 'denied' | 'expired' | 'canceled' };
    }
  | { event: 'drill.passed' | 'drill.failed'; data: DrillNotice }
  | { event: 'drill.validation.requested'; data: DrillValidationNotice }
  | { event: 'export.done'; data: ExportNotice }
  | { event: 'runbook.failed'; data: FailureNotice }
);

/** What one delivery came to, per target (never its URL: a Slack webhook URL is a secret). */
export interface NotificationOutcome {
  deliveryId: string;
  delivered: string[];
  /** Refused for good (a 4xx other than 408 and 429): recorded here, never retried, never failing the runbook. */
  rejected: { target: string; status: number }[];
  /** Targets that do not take this event, or none configured. */
  skipped: string[];
}

/** An event with the moment it happened (workflow time). */
export type TimedNotificationEvent = NotificationEvent & { occurredAt: string };

/** Targets a delivery is done with: sent, or refused for good. */
export type NotificationProgress = Pick<NotificationOutcome, 'delivered' | 'rejected'>;

export interface NotificationActivities {
  /** `earlier`: targets an activity already sent this event to (see `SentNotification`), which are not sent it again. */
  /** `target`: that one target alone (by name), whatever events it lists. */
  notify(event: TimedNotificationEvent, earlier?: NotificationProgress, target?: string): Promise<NotificationOutcome>;
}

/**
 * A notification sent from inside the activity that saw its event (the `lean-history` patch), so that it costs
 * no activity of its own. `retry` is set when a target could not be reached: the runbook resends it with `notify`.
 */
export interface SentNotification extends NotificationOutcome {
  retry?: TimedNotificationEvent;
}

/** What an activity that may send a notification returns besides its own result. */
export interface Notified {
  notified?: SentNotification;
}

/** The request's fields a notification carries. */
export type ApprovalNoticeSource = Omit<ApprovalNotice, 'resourceId'> & { requestId: string };

export function approvalNoticeOf(state: ApprovalNoticeSource, resourceId: string): ApprovalNotice {
  const { requestId, status, approvals, approvalExpirationTime, executionExpirationTime, resolvedTime } = state;
  const times = {
    approvalExpirationTime,
    executionExpirationTime,
    executionWindowHours: state.executionWindowHours,
    resolvedTime,
  };
  return { requestId, resourceId, status, approvals, ...times };
}

export function decisionOf(status: string): 'approved' | 'denied' | 'expired' | 'canceled' {
  if (status === 'APPROVED') return 'approved';
  if (status === 'DENIED') return 'denied';
  return status.startsWith('EXPIRED') ? 'expired' : 'canceled';
}
