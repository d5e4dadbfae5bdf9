import { redact } from './redact';

export type ServiceErrorCode =
  | 'INVALID_ARGUMENT'
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'TOO_MANY_REQUESTS'
  | 'SERVER_ERROR'
  | 'UNEXPECTED_STATUS'
  | 'NETWORK_ERROR'
  | 'INVALID_RESPONSE';

interface ErrorContext {
  method?: string;
  path?: string;
  status?: number;
  /** The service's `{error}` text. */
  serviceMessage?: string;
}

/** Base of every error the client throws. Its text is always scrubbed of secrets. */
export class BackupServiceError extends Error {
  readonly method?: string;
  readonly path?: string;
  readonly status?: number;
  readonly serviceMessage?: string;

  constructor(
    readonly code: ServiceErrorCode,
    message: string,
    /** Whether repeating the same call may succeed. */
    readonly retryable: boolean,
    context: ErrorContext = {},
  ) {
    super(redact(message));
    this.name = new.target.name;
    this.method = context.method;
    this.path = context.path;
    this.status = context.status;
    this.serviceMessage = context.serviceMessage === undefined ? undefined : redact(context.serviceMessage);
  }
}

/** A bad argument caught before anything was sent. */
export class InvalidArgumentError extends BackupServiceError {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super('INVALID_ARGUMENT', `invalid argument ${field}: ${problem}`, false);
  }
}

function where(context: ErrorContext, fallback: string): string {
  return context.method && context.path ? `${context.method} ${context.path}` : fallback;
}

function describe(status: number, context: ErrorContext, fallback: string): string {
  return `${where(context, 'request')} failed with ${status}: ${context.serviceMessage || fallback}`;
}

/** The base of the error for one status that repeating the call cannot fix; `fallback` stands in for the service's text. */
function statusError(code: ServiceErrorCode, status: number, fallback: string) {
  return class extends BackupServiceError {
    constructor(context: ErrorContext) {
      super(code, describe(status, context, fallback), false, { ...context, status });
    }
  };
}

export class BadRequestError extends statusError('BAD_REQUEST', 400, 'invalid request') {}
export class UnauthorizedError extends statusError('UNAUTHORIZED', 401, 'unauthorized') {}
export class ForbiddenError extends statusError('FORBIDDEN', 403, 'forbidden') {}
export class NotFoundError extends statusError('NOT_FOUND', 404, 'not found') {}
export class ConflictError extends statusError('CONFLICT', 409, 'conflict') {}

const ERROR_FOR_STATUS: Readonly<Record<number, new (context: ErrorContext) => BackupServiceError>> = {
  400: BadRequestError,
  401: UnauthorizedError,
  403: ForbiddenError,
  404: NotFoundError,
  409: ConflictError,
};

export class TooManyRequestsError extends BackupServiceError {
  constructor(
    context: ErrorContext,
    /** Seconds from the `Retry-After` header, when the service sent one. */
    readonly retryAfterSeconds?: number,
  ) {
    super('TOO_MANY_REQUESTS', describe(429, context, 'too many requests'), true, { ...context, status: 429 });
  }
}
export class ServerError extends BackupServiceError {
  constructor(status: number, context: ErrorContext) {
    super('SERVER_ERROR', describe(status, context, 'server error'), true, { ...context, status });
  }
}
export class UnexpectedStatusError extends BackupServiceError {
  constructor(status: number, context: ErrorContext) {
    super('UNEXPECTED_STATUS', describe(status, context, 'unexpected status'), false, { ...context, status });
  }
}
/** The call may or may not have reached the service: a reset, a refused connection or a timeout. */
export class NetworkError extends BackupServiceError {
  constructor(
    context: ErrorContext,
    cause: string,
    readonly timedOut: boolean,
  ) {
    super(
      'NETWORK_ERROR',
      `${where(context, 'request')} ${timedOut ? 'timed out' : 'failed'}: ${cause}`,
      true,
      context,
    );
  }
}
/** The service answered with a body this client cannot read. */
export class InvalidResponseError extends BackupServiceError {
  constructor(context: ErrorContext, problem: string) {
    super('INVALID_RESPONSE', `${where(context, 'response')} returned an unreadable body: ${problem}`, false, context);
  }
}

/** Parses `Retry-After` as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

export function errorForStatus(status: number, context: ErrorContext, retryAfter?: string): BackupServiceError {
  const Fixed = ERROR_FOR_STATUS[status];
  if (Fixed) return new Fixed(context);
  if (status === 429) return new TooManyRequestsError(context, parseRetryAfter(retryAfter));
  return status >= 500 ? new ServerError(status, context) : new UnexpectedStatusError(status, context);
}
