import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import {
  BackupServiceError,
  errorForStatus,
  InvalidArgumentError,
  InvalidResponseError,
  NetworkError,
  type ServiceErrorCode,
} from '../api';
import { FailureType } from '../contracts';
import { MAX_RETRY_AFTER_SECONDS, notYet, throttleBackoffSeconds, toFailure } from './failures';

const CONTEXT = { method: 'POST', path: '/v1/snapshots', serviceMessage: 'vault is locked' };

function failureOf(err: unknown, attempt?: number): ApplicationFailure {
  const failure = toFailure(err, attempt);
  if (!(failure instanceof ApplicationFailure)) throw new Error(`not an ApplicationFailure: ${String(failure)}`);
  return failure;
}

function delayMs(failure: ApplicationFailure): number {
  if (failure.nextRetryDelay == null) throw new Error('no nextRetryDelay');
  return msToNumber(failure.nextRetryDelay);
}

/** A small seeded generator (mulberry32), so that the draws are many, varied and the same on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

afterEach(() => {
  jest.restoreAllMocks();
});

describe('429 Too Many Requests', () => {
  test.each([
    ['7', 7_000],
    ['120', 120_000],
    ['1.5', 1_500],
  ])('with Retry-After: %s waits that long before the next attempt', (retryAfter, expectedMs) => {
    const random = jest.spyOn(Math, 'random');
    const failure = failureOf(errorForStatus(429, CONTEXT, retryAfter), 3);
    expect(failure.type).toBe(FailureType.TooManyRequests);
    expect(failure.nonRetryable).toBe(false);
    expect(delayMs(failure)).toBe(expectedMs);
    // The service's figure is taken as it is: no jitter is drawn.
    expect(random).not.toHaveBeenCalled();
  });

  test('with Retry-After as an HTTP date waits until then', () => {
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    const seconds = delayMs(failureOf(errorForStatus(429, CONTEXT, inTenSeconds))) / 1000;
    // An HTTP date has whole seconds, so up to one is lost to rounding.
    expect(seconds).toBeGreaterThanOrEqual(9);
    expect(seconds).toBeLessThanOrEqual(10);
  });

  test.each([
    ['86400', 86_400],
    [new Date(Date.now() + 2 * 3_600_000).toUTCString(), 7_200],
  ])('a Retry-After past five minutes (%s) is capped at five, and the cap is logged', (retryAfter, asked) => {
    const warning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    expect(delayMs(failureOf(errorForStatus(429, CONTEXT, retryAfter)))).toBe(MAX_RETRY_AFTER_SECONDS * 1000);
    expect(MAX_RETRY_AFTER_SECONDS).toBe(300);
    expect(warning).toHaveBeenCalledTimes(1);
    const [text] = warning.mock.calls[0] ?? [];
    expect(String(text)).toMatch(/^Retry-After capped: \{"retryAfterSeconds":(\d+),"cappedAtSeconds":300\}$/);
    expect(Number(/"retryAfterSeconds":(\d+)/.exec(String(text))?.[1])).toBeGreaterThanOrEqual(asked - 1);
  });

  test('a Retry-After within the cap is obeyed as it is, with nothing logged', () => {
    const warning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    expect(delayMs(failureOf(errorForStatus(429, CONTEXT, '300')))).toBe(300_000);
    expect(warning).not.toHaveBeenCalled();
  });

  test('with Retry-After: 0 still waits a second', () => {
    expect(delayMs(failureOf(errorForStatus(429, CONTEXT, '0')))).toBe(1_000);
  });

  test.each([undefined, 'soon'])('without a usable Retry-After (%j) uses the backoff for the attempt', (retryAfter) => {
    jest.spyOn(Math, 'random').mockReturnValue(0);
    expect(delayMs(failureOf(errorForStatus(429, CONTEXT, retryAfter), 4))).toBe(8_000);
    jest.spyOn(Math, 'random').mockReturnValue(0.999999);
    expect(delayMs(failureOf(errorForStatus(429, CONTEXT, retryAfter), 4))).toBe(16_000);
  });

  test('keeps the code, status and service message as details', () => {
    const failure = failureOf(errorForStatus(429, CONTEXT, '5'));
    expect(failure.details).toEqual([{ code: 'TOO_MANY_REQUESTS', status: 429, serviceMessage: 'vault is locked' }]);
    expect(failure.message).toContain('vault is locked');
  });
});

describe('throttleBackoffSeconds', () => {
  // The upper half of min(60, 2^attempt) seconds: the ceiling doubles per attempt and stops at a minute.
  const BOUNDS: [attempt: number, low: number, high: number][] = [
    [1, 1, 2],
    [2, 2, 4],
    [3, 4, 8],
    [4, 8, 16],
    [5, 16, 32],
    [6, 30, 60],
    [7, 30, 60],
    [50, 30, 60],
  ];

  test.each(BOUNDS)('attempt %i waits between %i and %i s over many draws, up to the ceiling', (attempt, low, high) => {
    jest.spyOn(Math, 'random').mockImplementation(seeded(attempt));
    const draws = Array.from({ length: 2_000 }, () => throttleBackoffSeconds(attempt));
    expect(draws.filter((seconds) => !Number.isInteger(seconds) || seconds < low || seconds > high)).toEqual([]);
    expect(Math.max(...draws)).toBe(high);
  });

  test.each(BOUNDS)('attempt %i: the extreme draws give exactly %i and %i s', (attempt, low, high) => {
    const random = jest.spyOn(Math, 'random');
    random.mockReturnValue(0);
    expect(throttleBackoffSeconds(attempt)).toBe(low);
    random.mockReturnValue(1 - Number.EPSILON);
    expect(throttleBackoffSeconds(attempt)).toBe(high);
  });

  test('jitter spreads the workers: one attempt gives many different delays', () => {
    jest.spyOn(Math, 'random').mockImplementation(seeded(42));
    const distinct = new Set(Array.from({ length: 500 }, () => throttleBackoffSeconds(10)));
    expect(distinct.size).toBeGreaterThan(20);
  });
});

describe('client errors that stop at once', () => {
  test.each([
    [400, FailureType.BadRequest],
    [401, FailureType.Unauthorized],
    [403, FailureType.Forbidden],
    [404, FailureType.NotFound],
    [409, FailureType.Conflict],
  ])('%i is non-retryable as %s, with the service message', (status, type) => {
    const failure = failureOf(errorForStatus(status, CONTEXT));
    expect(failure.type).toBe(type);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.nextRetryDelay).toBeUndefined();
    expect(failure.message).toBe(`POST /v1/snapshots failed with ${status}: vault is locked`);
    expect(failure.details).toEqual([{ code: type, status, serviceMessage: 'vault is locked' }]);
  });

  test('an unexpected status, an unreadable body and a bad argument are non-retryable too', () => {
    expect(failureOf(errorForStatus(418, CONTEXT))).toMatchObject({
      type: FailureType.UnexpectedStatus,
      nonRetryable: true,
    });
    expect(failureOf(new InvalidResponseError(CONTEXT, 'not JSON'))).toMatchObject({
      type: FailureType.InvalidResponse,
      nonRetryable: true,
    });
    expect(failureOf(new InvalidArgumentError('vaultId', 'required'))).toMatchObject({
      type: FailureType.InvalidArgument,
      nonRetryable: true,
      details: [{ code: 'INVALID_ARGUMENT', status: null, serviceMessage: null }],
    });
  });
});

describe('errors the retry policy retries', () => {
  test.each([500, 502, 503, 504, 599])('%i is retryable as SERVER_ERROR, on the policy schedule', (status) => {
    const failure = failureOf(errorForStatus(status, CONTEXT));
    expect(failure.type).toBe(FailureType.ServerError);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBeUndefined();
    expect(failure.details).toEqual([{ code: 'SERVER_ERROR', status, serviceMessage: 'vault is locked' }]);
  });

  test.each([
    ['a reset', false],
    ['a timeout', true],
  ])('a network error (%s) is retryable as NETWORK_ERROR', (cause, timedOut) => {
    const failure = failureOf(new NetworkError({ method: 'GET', path: '/v1/jobs' }, cause, timedOut));
    expect(failure.type).toBe(FailureType.NetworkError);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toBe(`GET /v1/jobs ${timedOut ? 'timed out' : 'failed'}: ${cause}`);
  });
});

describe('the failure types', () => {
  // A Record, so that a new client error code fails to compile here until it is given an example.
  const EXAMPLES: Record<ServiceErrorCode, BackupServiceError> = {
    INVALID_ARGUMENT: new InvalidArgumentError('vaultId', 'required'),
    BAD_REQUEST: errorForStatus(400, CONTEXT),
    UNAUTHORIZED: errorForStatus(401, CONTEXT),
    FORBIDDEN: errorForStatus(403, CONTEXT),
    NOT_FOUND: errorForStatus(404, CONTEXT),
    CONFLICT: errorForStatus(409, CONTEXT),
    TOO_MANY_REQUESTS: errorForStatus(429, CONTEXT, '1'),
    SERVER_ERROR: errorForStatus(500, CONTEXT),
    UNEXPECTED_STATUS: errorForStatus(302, CONTEXT),
    NETWORK_ERROR: new NetworkError(CONTEXT, 'ECONNRESET', false),
    INVALID_RESPONSE: new InvalidResponseError(CONTEXT, 'not JSON'),
  };
  const LISTED: readonly string[] = Object.values(FailureType);

  test.each(Object.entries(EXAMPLES))('client error %s maps to a failure type listed in contracts', (code, err) => {
    expect(err.code).toBe(code);
    const failure = failureOf(err);
    expect(LISTED).toContain(failure.type);
    // Codes pass through unchanged, so one name means one thing in logs, history and the CLI.
    expect(failure.type).toBe(code);
    // Whether Temporal retries follows the client's own judgement of the error.
    expect(failure.nonRetryable).toBe(!err.retryable);
  });

  test('anything that is not a client error passes through untouched', () => {
    const own = new Error('a bug');
    const typed = ApplicationFailure.nonRetryable('denied', FailureType.ApprovalDenied);
    expect(toFailure(own)).toBe(own);
    expect(toFailure(typed)).toBe(typed);
    expect(toFailure('text')).toBe('text');
  });

  test('"not yet" is a benign NOT_YET failure that the retry policy retries', () => {
    const failure = notYet('job 7 is running');
    expect(failure.type).toBe(FailureType.NotYet);
    expect(failure.category).toBe(ApplicationFailureCategory.BENIGN);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toBe('job 7 is running');
  });
});
