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

function describe(status: number, context: ErrorContext, fallback: string): string {
  const where = context.method && context.path ? `${context.method} ${context.path}` : 'request';
  return `${where} failed with ${status}: ${context.serviceMessage || fallback}`;
}

export class BadRequestError extends BackupServiceError {
  constructor(context: ErrorContext) {
    super('BAD_REQUEST', describe(400, context, 'invalid request'), false, { ...context, status: 400 });
  }
}
export class UnauthorizedError extends BackupServiceError {
  constructor(context: ErrorContext) {
    super('UNAUTHORIZED', describe(401, context, 'unauthorized'), false, { ...context, status: 401 });
  }
}
export class ForbiddenError extends BackupServiceError {
  constructor(context: ErrorContext) {
    super('FORBIDDEN', describe(403, context, 'forbidden'), false, { ...context, status: 403 });
  }
}
export class NotFoundError extends BackupServiceError {
  constructor(context: ErrorContext) {
    super('NOT_FOUND', describe(404, context, 'not found'), false, { ...context, status: 404 });
  }
}
export class ConflictError extends BackupServiceError {
  constructor(context: ErrorContext) {
    super('CONFLICT', describe(409, context, 'conflict'), false, { ...context, status: 409 });
  }
}
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
    const where = context.method && context.path ? `${context.method} ${context.path}` : 'request';
    super('NETWORK_ERROR', `${where} ${timedOut ? 'timed out' : 'failed'}: ${cause}`, true, context);
  }
}
/** The service answered with a body this client cannot read. */
export class InvalidResponseError extends BackupServiceError {
  constructor(context: ErrorContext, problem: string) {
    const where = context.method && context.path ? `${context.method} ${context.path}` : 'response';
    super('INVALID_RESPONSE', `${where} returned an unreadable body: ${problem}`, false, context);
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
  switch (status) {
    case 400:
      return new BadRequestError(context);
    case 401:
      return new UnauthorizedError(context);
    case 403:
      return new ForbiddenError(context);
    case 404:
      return new NotFoundError(context);
    case 409:
      return new ConflictError(context);
    case 429:
      return new TooManyRequestsError(context, parseRetryAfter(retryAfter));
    default:
      return status >= 500 ? new ServerError(status, context) : new UnexpectedStatusError(status, context);
  }
}
