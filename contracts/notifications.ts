// What the runbooks tell people about, as webhooks (steps/notifications.ts sends them, runtime/calls.ts `notify`).

export const NOTIFICATION_EVENTS = [
  'approval.pending',
  'approval.decided',
  'drill.passed',
  'drill.failed',
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

export interface DrillNotice {
  name: string;
  verdict: 'PASS' | 'FAIL';
  total: number;
  passed: number;
  failed: number;
  worstRpoSeconds?: number;
  worstRtoSeconds?: number;
  report: { json: string; markdown: string };
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

/** One event as a workflow raises it; the activity adds the run's identity and the delivery ID. */
export type NotificationEvent =
  | { event: 'approval.pending'; data: ApprovalNotice }
  | {
      event: 'approval.decided';
      data: ApprovalNotice & { decision: 'approved' | 'denied' | 'expired' | 'canceled' };
    }
  | { event: 'drill.passed' | 'drill.failed'; data: DrillNotice }
  | { event: 'export.done'; data: ExportNotice }
  | { event: 'runbook.failed'; data: FailureNotice };

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

export interface NotificationActivities {
  notify(event: TimedNotificationEvent): Promise<NotificationOutcome>;
}
