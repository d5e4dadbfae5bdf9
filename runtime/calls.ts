import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import {
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  type ActivityInterfaceFor,
  type LocalActivityInterfaceFor,
} from '@temporalio/workflow';
import { WATCH_HEARTBEAT_TIMEOUT_MS } from './poll-delays';
import type { NotificationActivities, NotificationEvent, SentNotification } from '../contracts';

// Activity-call presets for workflow code. Each takes the runbook's activity interface as `A`.

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
 * Every activity heartbeats every 2 s while it runs (runtime/heartbeat.ts), so a worker killed inside one is noticed
 * after this long and the call is retried elsewhere: the crash costs seconds, not a start-to-close timeout.
 */
export const CRASH_DETECTION = '10 seconds';

/**
 * Calls retried with backoff (1 s doubling to a minute) up to `maximumAttempts`, on throttling, 5xx and network
 * errors; typed client errors stop at once. Each attempt may run `startToCloseTimeout`.
 */
export function retriedCalls<A extends object>(
  startToCloseTimeout: string,
  maximumAttempts: number,
): ActivityInterfaceFor<A> {
  return typedCalls(
    proxyActivities<A>({
      startToCloseTimeout,
      heartbeatTimeout: CRASH_DETECTION,
      retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts },
    }),
  );
}

/** Calls to the service. */
export const serviceCalls = <A extends object>() => retriedCalls<A>('5 minutes', 10);

/**
 * Waits that cost nothing: each attempt is one check, a "not yet" failure lets the retry policy schedule the next,
 * and attempts are not written to history. Looks at most 10 s apart, so that an approval or a finished job is noticed
 * within seconds even without a nudge.
 */
export function waitingCalls<A extends object>(scheduleToCloseMs = 30 * 24 * 3600 * 1000): ActivityInterfaceFor<A> {
  return typedCalls(
    proxyActivities<A>({
      startToCloseTimeout: '1 minute',
      heartbeatTimeout: CRASH_DETECTION,
      scheduleToCloseTimeout: scheduleToCloseMs,
      retry: { initialInterval: '1 second', backoffCoefficient: 1.5, maximumInterval: '10 seconds' },
    }),
  );
}

/**
 * Waits that cost one activity task per wait, not one per look: the attempt is a watch (runtime/heartbeat.ts) that
 * looks on its schedule, sleeping between looks, and beats once a minute. A worker killed mid-wait is noticed at the
 * heartbeat timeout (2 minutes) and the wait resumes on another worker; a wait the workflow no longer needs (a nudge
 * found the answer) hears its cancellation at its next beat. The activity type and its arguments are those of a
 * waiting call, so a run recorded with one replays with the other: only the timeouts differ, and history does not
 * check them. Watches take no activity slot of the worker's (worker/slots.ts).
 */
export function watchingCalls<A extends object>(scheduleToCloseMs = 30 * 24 * 3600 * 1000): ActivityInterfaceFor<A> {
  return typedCalls(
    proxyActivities<A>({
      startToCloseTimeout: scheduleToCloseMs,
      heartbeatTimeout: WATCH_HEARTBEAT_TIMEOUT_MS,
      scheduleToCloseTimeout: scheduleToCloseMs,
      retry: { initialInterval: '1 second', backoffCoefficient: 1.5, maximumInterval: '10 seconds' },
    }),
  );
}

/**
 * Short calls that are safe to repeat, run as local activities: inside the workflow task, one marker event each
 * instead of three events and a workflow task of their own. Never for calls that start jobs.
 */
export function quickCalls<A extends object>(): LocalActivityInterfaceFor<A> {
  return typedCalls(
    proxyLocalActivities<A>({
      startToCloseTimeout: '30 seconds',
      retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
    }),
  );
}

/** One look, no retry: what a `nudge` asks for. The waiting activity keeps polling whatever this finds. */
export function peekCalls<A extends object>(): LocalActivityInterfaceFor<A> {
  return proxyLocalActivities<A>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 1 } });
}

/** Long work inside one activity that heartbeats (exports, query polling); a crash resumes from the last beat. */
export const heartbeatingCalls = <A extends object>() => retriedCalls<A>('2 hours', 20);

/**
 * Webhooks: six attempts over about two minutes (a 429's Retry-After wins), each bounded; a target that refuses an
 * event for good returns at once. A notification that never gets through is logged and never fails the runbook.
 */
export function notificationCalls(): ActivityInterfaceFor<NotificationActivities> {
  return proxyActivities<NotificationActivities>({
    startToCloseTimeout: '1 minute',
    heartbeatTimeout: CRASH_DETECTION,
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 6 },
  });
}

// Module state is per run in workflow code: these are this run's notifications still on their way.
const sending: Promise<void>[] = [];

/**
 * Sends a notification without holding the runbook up; `measured()` waits for all of them before the run ends. Runs
 * recorded before notifications existed replay without them (the `notifications` patch).
 */
export function notify(event: NotificationEvent): void {
  if (!patched('notifications')) return;
  const sent = notificationCalls()
    .notify({ ...event, occurredAt: new Date().toISOString() })
    .then(
      () => undefined,
      (err: unknown) => log.warn('notification not delivered', { event: event.event, error: String(err) }),
    );
  sending.push(sent);
}

/**
 * The patch for histories that stay short: notifications ride on the activities that already run (submitting a
 * request, the look that sees its decision, the drill's report, the export), so that an event costs no activity of its
 * own, and an approved restore is tagged EXECUTED without an APPROVED tag before it (see the approval runbook). Runs
 * recorded before, with their `notify` activities, replay without it. Ask once per run and keep the answer: while
 * replaying, a patch reads false until the run's history shows its marker. The marker costs two events (the marker
 * and Temporal's TemporalChangeVersion search attribute).
 */
export const LEAN_HISTORY = 'lean-history';

export function leanHistory(): boolean {
  return patched(LEAN_HISTORY);
}

/**
 * After an activity sent a notification itself: the targets it could not reach get the event from the `notify`
 * activity (with its retries), the others are not sent it again. Nothing to do on the happy path. `target`: the event
 * went to that target alone, and so does the retry.
 */
export function resend(sent: SentNotification | undefined, target?: string): void {
  if (!sent?.retry) return;
  const event = sent.retry;
  const done = { delivered: sent.delivered, rejected: sent.rejected };
  const retried = notificationCalls()
    .notify(event, done, ...(target === undefined ? [] : [target]))
    .then(
      () => undefined,
      (err: unknown) => log.warn('notification not delivered', { event: event.event, error: String(err) }),
    );
  sending.push(retried);
}

/** Settles once every notification sent so far is delivered or given up on. */
export async function notificationsSettled(): Promise<void> {
  while (sending.length > 0) await Promise.all(sending.splice(0));
}
