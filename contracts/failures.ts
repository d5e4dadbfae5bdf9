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
