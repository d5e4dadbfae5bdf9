import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { TemporalConnectionOptions } from '../runtime/temporal-connection';

/** Temporal stayed unreachable for the whole start-up bound; the message names the address and the variables. */
export class TemporalUnreachableError extends Error {
  override name = 'TemporalUnreachableError';
}

export interface ConnectTemporalOptions {
  log: Logger;
  /** Keep trying this long (RUNBOOKS_TEMPORAL_CONNECT_TIMEOUT_MS); 0: one attempt. */
  timeoutMs: number;
  /** Aborted by SIGTERM or SIGINT: the wait and the attempt under way end at once. */
  signal?: AbortSignal;
  firstDelayMs?: number;
  maxDelayMs?: number;
}

export interface TemporalConnections {
  /** The worker's. */
  native: NativeConnection;
  /** The stack's client's. */
  client: Connection;
}

const asError = (reason: unknown): Error => (reason instanceof Error ? reason : new Error(String(reason)));

/**
 * Settles like `promise`, or rejects when `signal` aborts or `deadline` (epoch ms) passes first; a value that arrives
 * after that is handed to `discard`, so that a late connection is closed rather than leaked.
 */
export function abortable<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  discard: (value: T) => unknown = () => undefined,
  deadline?: number,
): Promise<T> {
  if (!signal && deadline === undefined) return promise;
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const settle = (fn: () => void) => {
      if (done) return;
      done = true;
      signal?.removeEventListener('abort', onAbort);
      clearTimeout(timer);
      fn();
    };
    const onAbort = () => settle(() => reject(asError(signal?.reason)));
    const timer =
      deadline === undefined
        ? undefined
        : setTimeout(() => settle(() => reject(new Error('no answer in time'))), Math.max(0, deadline - Date.now()));
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => (done ? void discard(value) : settle(() => resolve(value))),
      (err: unknown) => settle(() => reject(asError(err))),
    );
  });
}

const reasonOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';

/**
 * Both connections to Temporal, retried with exponential backoff while Temporal cannot be reached (it often starts
 * after the workers, under compose or Kubernetes), one log line per failed attempt, up to `timeoutMs`.
 */
export async function connectTemporal(
  connection: TemporalConnectionOptions,
  options: ConnectTemporalOptions,
): Promise<TemporalConnections> {
  const { log, signal, timeoutMs } = options;
  const firstDelayMs = options.firstDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  const close = (c: { close(): Promise<void> }) => c.close().catch(() => undefined);
  for (let attempt = 1; ; attempt += 1) {
    signal?.throwIfAborted();
    let native: NativeConnection | undefined;
    try {
      // An attempt against an address that drops packets gets what is left of the bound, at least 5 s.
      const attemptDeadline = Math.max(deadline, Date.now() + 5_000);
      native = await abortable(NativeConnection.connect(connection), signal, close, attemptDeadline);
      const client = await abortable(Connection.connect(connection), signal, close, attemptDeadline);
      if (attempt > 1) log.info({ temporalAddress: connection.address, attempt }, 'connected to Temporal');
      return { native, client };
    } catch (err) {
      if (native) await close(native);
      signal?.throwIfAborted();
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new TemporalUnreachableError(
          `cannot reach Temporal at ${connection.address} (TEMPORAL_ADDRESS) after ${attempt} attempt(s) in ` +
            `${Math.round(timeoutMs / 1000)} s (RUNBOOKS_TEMPORAL_CONNECT_TIMEOUT_MS): ${reasonOf(err)}`,
        );
      }
      const delay = Math.min(maxDelayMs, firstDelayMs * 2 ** (attempt - 1), left);
      log.warn(
        { temporalAddress: connection.address, attempt, retryInMs: delay, reason: reasonOf(err) },
        'cannot reach Temporal yet; retrying',
      );
      await sleep(delay, undefined, { signal });
    }
  }
}
