import { setTimeout as sleep } from 'node:timers/promises';
import {
  WorkflowFailedError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowExecutionStatusName,
  type WorkflowHandle,
} from '@temporalio/client';
import { ApplicationFailure, TemporalFailure } from '@temporalio/common';
import { statusQuery, type RunbookStatus } from '../contracts';
import { InterruptedError, NotFoundError, RunFailedError } from './errors';

/** The runbook's own status, or undefined when it cannot answer (no worker is polling, or it has not started yet). */
export async function queryStatus(handle: WorkflowHandle): Promise<RunbookStatus | undefined> {
  try {
    return await handle.query(statusQuery);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw notFound(handle.workflowId);
    return undefined;
  }
}

/** Runs are asked for their status this many at a time. */
const STATUS_CONCURRENCY = 8;
/** A run whose worker does not answer this soon is shown without its status: a listing does not wait for it. */
const STATUS_TIMEOUT_MS = 5_000;

/** Each run's status, a few at a time; undefined for a run that did not answer in time or at all. */
export async function statusesOf(
  client: Client,
  runs: readonly { workflowId: string; runId?: string }[],
): Promise<(RunbookStatus | undefined)[]> {
  const statuses = new Array<RunbookStatus | undefined>(runs.length);
  for (let i = 0; i < runs.length; i += STATUS_CONCURRENCY) {
    await Promise.all(
      runs.slice(i, i + STATUS_CONCURRENCY).map(async (run, j) => {
        const status = queryStatus(client.workflow.getHandle(run.workflowId, run.runId));
        statuses[i + j] = await within(status, STATUS_TIMEOUT_MS).catch(() => undefined);
      }),
    );
  }
  return statuses;
}

function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

export function notFound(workflowId: string): NotFoundError {
  return new NotFoundError(`no workflow '${workflowId}' in this namespace (see \`runbooks list\`)`);
}

export interface WatchOptions {
  intervalMs?: number;
  /** Gives up (with an error naming the workflow) after this long. */
  timeoutMs?: number;
  /** Called on every poll while it runs, with its last known status. */
  onStatus?: (status: RunbookStatus | undefined) => void;
  /** Aborted (Ctrl-C): stop following at once with an InterruptedError; the run itself goes on. */
  signal?: AbortSignal;
  /** Runs each poll's calls, so that an interruption can cancel them (followUntilInterrupted's `calls`). */
  calls?: <T>(fn: () => Promise<T>) => Promise<T>;
}

/** Polls until the workflow closes; returns how it closed. */
export async function waitUntilClosed(
  handle: WorkflowHandle,
  options: WatchOptions = {},
): Promise<WorkflowExecutionStatusName> {
  const { signal } = options;
  if (!signal) return poll(handle, options);
  let onAbort = () => {};
  const interrupted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new InterruptedError(handle.workflowId));
  });
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await Promise.race([poll(handle, options), interrupted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

async function poll(handle: WorkflowHandle, options: WatchOptions): Promise<WorkflowExecutionStatusName> {
  const interval = options.intervalMs ?? 1_000;
  const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
  const calls = options.calls ?? ((fn) => fn());
  for (;;) {
    const { status, last } = await calls(async () => {
      const { status } = await handle.describe().catch((err: unknown) => {
        throw err instanceof WorkflowNotFoundError ? notFound(handle.workflowId) : err;
      });
      return { status, last: status.name === 'RUNNING' ? await queryStatus(handle) : undefined };
    });
    if (status.name !== 'RUNNING') return status.name;
    options.onStatus?.(last);
    if (Date.now() > deadline) {
      // Say what it was doing, so that a slow machine is told apart from a stuck run.
      const doing = last
        ? `; it was at '${last.phase}'${last.waitingFor ? `, waiting for ${last.waitingFor}` : ''}`
        : '';
      throw new RunFailedError(
        `${handle.workflowId} did not finish within ${Math.round((options.timeoutMs ?? 0) / 1000)} s${doing}`,
      );
    }
    // Interrupted mid-sleep, it wakes at once: no timer outlives the command.
    await sleep(interval, undefined, { signal: options.signal }).catch(() => undefined);
    if (options.signal?.aborted) return status.name;
  }
}

/** What followUntilInterrupted gives the code that follows a run. */
export interface Interruption {
  /** Aborted by Ctrl-C. */
  signal: AbortSignal;
  /**
   * Runs a round of client calls so that Ctrl-C cancels them, each round under a signal of its own: the client adds
   * a listener per call to the signal it is given and never removes it, so one signal for a watch of hours would
   * gather thousands.
   */
  calls: <T>(fn: () => Promise<T>) => Promise<T>;
}

/**
 * Runs `follow` with a signal that Ctrl-C (SIGINT) aborts, instead of killing the process mid-line: the wait ends
 * with an InterruptedError (exit 130) that says the run goes on and how to follow it again. The client's calls
 * under way are cancelled too: a status query waiting for a worker must not outlive the connection.
 */
export async function followUntilInterrupted<T>(
  client: Pick<Client, 'withAbortSignal'>,
  follow: (interruption: Interruption) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  const calls = async <R>(fn: () => Promise<R>): Promise<R> => {
    const round = new AbortController();
    const abortRound = () => round.abort();
    controller.signal.addEventListener('abort', abortRound, { once: true });
    try {
      return await client.withAbortSignal(round.signal, fn);
    } finally {
      controller.signal.removeEventListener('abort', abortRound);
    }
  };
  try {
    return await follow({ signal: controller.signal, calls });
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}

const CLOSED_HOW: Partial<Record<WorkflowExecutionStatusName, string>> = {
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'was cancelled',
  TERMINATED: 'was terminated',
  TIMED_OUT: 'timed out',
  CONTINUED_AS_NEW: 'continued as a new run',
};

/** How a closed run ended, in words: `completed at 2026-11-25T10:00:00.000Z`. */
export function closedHow(description: Pick<WorkflowExecutionDescription, 'status' | 'closeTime'>): string {
  const how = CLOSED_HOW[description.status.name] ?? description.status.name.toLowerCase();
  return description.closeTime ? `${how} at ${description.closeTime.toISOString()}` : how;
}

/** The innermost failure's type (an application failure's, such as APPROVAL_DENIED) and message. */
export function failureOf(err: unknown): { type?: string; message: string } {
  let failure: unknown = err instanceof WorkflowFailedError ? err.cause : err;
  while (failure instanceof TemporalFailure && failure.cause && !(failure instanceof ApplicationFailure)) {
    failure = failure.cause;
  }
  if (failure instanceof ApplicationFailure)
    return { type: failure.type ?? 'ApplicationFailure', message: failure.message };
  return { message: failure instanceof Error ? failure.message : String(failure) };
}

/** The innermost failure's type and message: what an operator needs to read. */
export function describeFailure(err: unknown): string {
  const { type, message } = failureOf(err);
  return type === undefined ? message : `${type}: ${message}`;
}

/** The workflow's result; its failure becomes a RunFailedError with the reason. */
export async function resultOf<T>(handle: WorkflowHandle): Promise<T> {
  try {
    return (await handle.result()) as T;
  } catch (err) {
    if (err instanceof WorkflowFailedError) {
      throw new RunFailedError(`${handle.workflowId} failed: ${describeFailure(err)}`);
    }
    throw err;
  }
}

/** Draws status lines: redrawn in place on a terminal, printed when they change otherwise. */
export function statusPrinter(prefix = '  '): { show(line: string): void; done(): void } {
  const tty = process.stdout.isTTY === true;
  let last = '';
  return {
    show(line) {
      if (line === last) return;
      last = line;
      if (tty) process.stdout.write(`\r\x1b[2K${prefix}${line}`);
      else process.stdout.write(`${prefix}${line}\n`);
    },
    done() {
      if (tty && last) process.stdout.write('\n');
      last = '';
    },
  };
}
