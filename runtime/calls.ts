import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import {
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { z } from 'zod';
import type { Activities } from '../runbooks/activities';
import { issueField, issueMessage, issuesInOrder } from './input-rules';
import {
  FailureType,
  nudgeSignal,
  RunbookKindKey,
  RunbookResourceKey,
  statusQuery,
  type RunbookStatus,
} from '../contracts';

/**
 * An activity's ApplicationFailure (a 404, a failed query, a refused delete) raised as the runbook's own typed failure,
 * so that it reads `type` and the service's message rather than "Activity task failed"; the activity failure stays as
 * its cause. Cancellations and timeouts pass unchanged.
 */
export function typedFailure(err: unknown): unknown {
  if (!(err instanceof ActivityFailure) || !(err.cause instanceof ApplicationFailure)) return err;
  const failure = err.cause;
  return ApplicationFailure.create({
    type: failure.type ?? undefined,
    message: failure.message,
    nonRetryable: true,
    details: failure.details ? [...failure.details] : undefined,
    cause: err,
  });
}

/** Activity proxies whose failures are typed (see `typedFailure`). */
export function typedCalls<T extends object>(calls: T): T {
  return new Proxy(calls, {
    get(target, name, receiver) {
      const call: unknown = Reflect.get(target, name, receiver);
      if (typeof call !== 'function') return call;
      return (...args: unknown[]) =>
        (call as (...args: unknown[]) => Promise<unknown>)(...args).catch((err: unknown) => {
          throw typedFailure(err);
        });
    },
  });
}

/**
 * Every activity heartbeats every 2 s while it runs (activities/heartbeat.ts), so a worker killed inside one is
 * noticed after this long and the call is retried elsewhere: the crash costs seconds, not a start-to-close timeout.
 */
export const CRASH_DETECTION = '10 seconds';

/** Calls to the service: retried on throttling, 5xx and network errors; typed client errors stop at once. */
export const serviceCalls = typedCalls(
  proxyActivities<Activities>({
    startToCloseTimeout: '5 minutes',
    heartbeatTimeout: CRASH_DETECTION,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
  }),
);

/**
 * Waits that cost nothing: each attempt is one check, a "not yet" failure lets the retry policy schedule the next,
 * and attempts are not written to history. Looks at most 10 s apart, so that an approval or a finished job is noticed
 * within seconds even without a nudge.
 */
export function waitingCalls(scheduleToCloseMs = 30 * 24 * 3600 * 1000) {
  return typedCalls(
    proxyActivities<Activities>({
      startToCloseTimeout: '1 minute',
      heartbeatTimeout: CRASH_DETECTION,
      scheduleToCloseTimeout: scheduleToCloseMs,
      retry: { initialInterval: '1 second', backoffCoefficient: 1.5, maximumInterval: '10 seconds' },
    }),
  );
}

/**
 * Short calls that are safe to repeat, run as local activities: inside the workflow task, one marker event each
 * instead of three events and a workflow task of their own. Never for calls that start jobs.
 */
export const quickCalls = typedCalls(
  proxyLocalActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
  }),
);

/** One look, no retry: what a `nudge` asks for. The waiting activity keeps polling whatever this finds. */
export const peekCalls = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
});

/** Long work inside one activity that heartbeats (exports, query polling); a crash resumes from the last beat. */
export const heartbeatingCalls = typedCalls(
  proxyActivities<Activities>({
    startToCloseTimeout: '2 hours',
    heartbeatTimeout: CRASH_DETECTION,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
  }),
);

/** Validates a runbook's input; a bad one fails the run at once, naming the field. */
export function parseInput<T extends z.ZodType>(schema: T, raw: unknown): z.output<T> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issue = issuesInOrder(result.error.issues)[0];
  const field = issue ? issueField(issue) : 'input';
  throw ApplicationFailure.create({
    type: FailureType.InvalidInput,
    nonRetryable: true,
    message: `invalid input${field === 'input' ? '' : ` ${field}`}: ${issue ? issueMessage(issue) : 'invalid'}`,
    details: [{ field }],
  });
}

/** The runbook's `status` query, its kind and resource search attributes, and a counter of `nudge` signals. */
export class RunbookTracker {
  private status: RunbookStatus;
  private nudges = 0;

  constructor(runbook: string, options: { resource?: string; now?: () => Date } = {}) {
    this.now = options.now ?? (() => new Date());
    this.status = { runbook, phase: 'starting', updatedAt: this.now().toISOString() };
    setHandler(statusQuery, () => this.status);
    setHandler(nudgeSignal, () => {
      this.nudges += 1;
    });
    // One upsert, one history event.
    upsertSearchAttributes([
      { key: RunbookKindKey, value: runbook },
      ...(options.resource === undefined ? [] : [{ key: RunbookResourceKey, value: options.resource }]),
    ]);
  }

  private readonly now: () => Date;

  phase(phase: string, extra: Partial<Omit<RunbookStatus, 'runbook' | 'phase' | 'updatedAt'>> = {}): void {
    this.status = { runbook: this.status.runbook, phase, ...extra, updatedAt: this.now().toISOString() };
  }

  progress(done: number, total: number, unit: string): void {
    this.status = { ...this.status, progress: { done, total, unit }, updatedAt: this.now().toISOString() };
  }

  tag(key: typeof RunbookKindKey, value: string): void {
    upsertSearchAttributes([{ key, value }]);
  }

  /**
   * Waits with `poll` (a waiting activity); each `nudge` signal takes one extra look with `peek` (a local activity).
   * When the look finds the answer the poll is cancelled; when it does not, the poll goes on untouched. A nudge thus
   * costs a signal, a workflow task and a marker, and polling itself adds nothing to history.
   */
  async waitNudgeable<T>(poll: () => Promise<T>, peek: () => Promise<T>): Promise<T> {
    const scope = new CancellationScope();
    const polling = scope.run(poll);
    for (;;) {
      const seen = this.nudges;
      const polled = await Promise.race([
        polling.then((value) => ({ value })),
        condition(() => this.nudges > seen).then(() => undefined),
      ]);
      if (polled) return polled.value;
      const peeked = await peek().then(
        (value) => ({ value }),
        (err: unknown) => {
          if (isCancellation(err)) throw err;
          // "Not yet", or the look failed: the poll will tell.
          return undefined;
        },
      );
      if (peeked) {
        scope.cancel();
        polling.catch(() => undefined);
        return peeked.value;
      }
    }
  }
}
