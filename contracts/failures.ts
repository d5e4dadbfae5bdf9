/**
 * Every `ApplicationFailure` type a runbook or an activity raises, in one casing. The service client's error codes
 * (api/errors.ts) pass through unchanged, so they are listed too; runtime/failures.ts checks that none is missing.
 */
export const FailureType = {
  // The runbooks' own.
  NotYet: 'NOT_YET',
  InvalidInput: 'INVALID_INPUT',
  ApprovalDenied: 'APPROVAL_DENIED',
  ApprovalExpired: 'APPROVAL_EXPIRED',
  ApprovalCanceled: 'APPROVAL_CANCELED',
  JobFailed: 'JOB_FAILED',
  QueryFailed: 'QUERY_FAILED',
  NoCommonPoint: 'NO_COMMON_POINT',
  NotificationUndelivered: 'NOTIFICATION_UNDELIVERED',
  TimestampUnavailable: 'TIMESTAMP_UNAVAILABLE',
  // The service's, as the client reports them.
  InvalidArgument: 'INVALID_ARGUMENT',
  BadRequest: 'BAD_REQUEST',
  Unauthorized: 'UNAUTHORIZED',
  Forbidden: 'FORBIDDEN',
  NotFound: 'NOT_FOUND',
  Conflict: 'CONFLICT',
  TooManyRequests: 'TOO_MANY_REQUESTS',
  ServerError: 'SERVER_ERROR',
  UnexpectedStatus: 'UNEXPECTED_STATUS',
  NetworkError: 'NETWORK_ERROR',
  InvalidResponse: 'INVALID_RESPONSE',
} as const;
export type FailureType = (typeof FailureType)[keyof typeof FailureType];

/** A failure's message with its cause's (an activity's failure says little without the error it wraps). */
export function failureMessage(err: unknown): string {
  const cause = (err as { cause?: { message?: string } } | undefined)?.cause?.message;
  const message = err instanceof Error ? err.message : String(err);
  return cause ? `${message}: ${cause}` : message;
}

/** The ApplicationFailure type of a failure or of its cause (a child's or an activity's failure wraps it). */
export function failureTypeOf(err: unknown): string | undefined {
  const typed = (e: unknown) => (e as { type?: unknown } | undefined)?.type;
  const type = typed(err) ?? typed((err as { cause?: unknown } | undefined)?.cause);
  return typeof type === 'string' ? type : undefined;
}

/** The failures of an approval that did not come: reviewers, not the service, spent that time. */
export const APPROVAL_REFUSALS: readonly string[] = [
  FailureType.ApprovalDenied,
  FailureType.ApprovalExpired,
  FailureType.ApprovalCanceled,
];
