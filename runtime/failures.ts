import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { BackupServiceError, TooManyRequestsError, type ServiceErrorCode } from '../api';
import { FailureType } from '../contracts';

const MAX_THROTTLE_DELAY_SECONDS = 60;
/**
 * The longest `Retry-After` obeyed. The service sends the time until a job slot frees, which can be an hour; a proxy
 * or a skewed clock can send a day. Asking again after five minutes costs one call and gets a fresh figure (another
 * 429 if still busy), while obeying blindly would park a runbook for as long as the header says, with no sign of it.
 */
export const MAX_RETRY_AFTER_SECONDS = 5 * 60;

/** The failure type of each client error code: a new code fails to compile until it is listed in contracts. */
const SERVICE_FAILURE: Record<ServiceErrorCode, FailureType> = {
  INVALID_ARGUMENT: FailureType.InvalidArgument,
  BAD_REQUEST: FailureType.BadRequest,
  UNAUTHORIZED: FailureType.Unauthorized,
  FORBIDDEN: FailureType.Forbidden,
  NOT_FOUND: FailureType.NotFound,
  CONFLICT: FailureType.Conflict,
  TOO_MANY_REQUESTS: FailureType.TooManyRequests,
  SERVER_ERROR: FailureType.ServerError,
  UNEXPECTED_STATUS: FailureType.UnexpectedStatus,
  NETWORK_ERROR: FailureType.NetworkError,
  INVALID_RESPONSE: FailureType.InvalidResponse,
};

/**
 * Maps a client error to the failure Temporal sees: 400/403/404/409 stop at once with the service's message; 429
 * waits for `Retry-After` up to MAX_RETRY_AFTER_SECONDS (or a capped, jittered backoff); 5xx and network errors go back to the retry policy.
 * Messages were already scrubbed of secrets by the client.
 */
export function toFailure(err: unknown, attempt = 1): unknown {
  if (!(err instanceof BackupServiceError)) return err;
  const details = [{ code: err.code, status: err.status ?? null, serviceMessage: err.serviceMessage ?? null }];
  if (err instanceof TooManyRequestsError) {
    const asked = err.retryAfterSeconds;
    if (asked !== undefined && asked > MAX_RETRY_AFTER_SECONDS) {
      warn('Retry-After capped', { retryAfterSeconds: asked, cappedAtSeconds: MAX_RETRY_AFTER_SECONDS });
    }
    const seconds = asked === undefined ? throttleBackoffSeconds(attempt) : Math.min(asked, MAX_RETRY_AFTER_SECONDS);
    return ApplicationFailure.create({
      message: err.message,
      type: FailureType.TooManyRequests,
      details,
      nextRetryDelay: `${Math.max(1, seconds)}s`,
    });
  }
  return ApplicationFailure.create({
    message: err.message,
    type: SERVICE_FAILURE[err.code],
    nonRetryable: !err.retryable,
    details,
  });
}

/** The activity's logger when called in one (as the activities do), else the process's warnings. */
function warn(message: string, meta: Record<string, unknown>): void {
  let context: Context | undefined;
  try {
    context = Context.current();
  } catch {
    context = undefined;
  }
  if (context) context.log.warn(message, meta);
  else process.emitWarning(`${message}: ${JSON.stringify(meta)}`);
}

/** Exponential from 2 s, capped at a minute, with full jitter over its upper half so that workers spread out. */
export function throttleBackoffSeconds(attempt: number): number {
  const ceiling = Math.min(MAX_THROTTLE_DELAY_SECONDS, 2 ** Math.min(attempt, 6));
  return Math.ceil(ceiling / 2 + Math.random() * (ceiling / 2));
}

/** Runs one call of an activity, translating client errors into failures. */
export async function calling<T>(attempt: number, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toFailure(err, attempt);
  }
}

/**
 * "Not yet": the thing waited for has not happened. Retrying is the poll, scheduled by the activity's retry policy,
 * and attempts are not written to history. Benign, so it is logged at debug level only.
 */
export function notYet(message: string, nextLookMs?: number): ApplicationFailure {
  return ApplicationFailure.create({
    message,
    type: FailureType.NotYet,
    category: ApplicationFailureCategory.BENIGN,
    // The waiting step's own schedule (runtime/poll-delays.ts) instead of the retry policy's backoff.
    ...(nextLookMs === undefined ? {} : { nextRetryDelay: nextLookMs }),
  });
}

/** Whether an error leaves it unknown if the service acted on the call: a timeout, a reset or a 5xx. */
export function isAmbiguous(err: unknown): boolean {
  return err instanceof BackupServiceError && (err.code === 'NETWORK_ERROR' || err.code === 'SERVER_ERROR');
}
