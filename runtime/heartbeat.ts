import { Context, type Info } from '@temporalio/activity';
import { WATCH_HEARTBEAT_TIMEOUT_MS } from './poll-delays';

/** How often a running activity tells Temporal it is alive; well inside every preset's heartbeat timeout. */
const KEEP_ALIVE_MS = 2_000;

const lastCheckpoint = new WeakMap<Context, unknown>();

/** A watch beats at least this often: twice within its heartbeat timeout, so one late beat is no crash. */
const WATCH_BEAT_MS = 60_000;

/** Whether this attempt is a watch (see `WATCH_HEARTBEAT_TIMEOUT_MS`); a local activity never is. */
export function isWatch(info: Info): boolean {
  return (
    !info.isLocal && info.heartbeatTimeoutMs !== undefined && info.heartbeatTimeoutMs >= WATCH_HEARTBEAT_TIMEOUT_MS
  );
}

const lastBeat = new WeakMap<Context, number>();

/**
 * Sleeps `ms` inside a watch, beating once a minute (not once a look: a young wait looks every 30 s or so). The beat's
 * answer brings a cancellation (the workflow saw the answer through a nudge, or ended): the sleep then throws and the
 * watch ends.
 */
export async function watchPause(ms: number): Promise<void> {
  const context = Context.current();
  const until = Date.now() + ms;
  for (;;) {
    const now = Date.now();
    // Until its first beat, an attempt counts from its scheduling, which is no later than its start.
    const due = (lastBeat.get(context) ?? context.info.currentAttemptScheduledTimestampMs) + WATCH_BEAT_MS;
    if (now >= due) {
      context.heartbeat();
      lastBeat.set(context, now);
      continue;
    }
    if (now >= until) return;
    await context.sleep(Math.min(until, due) - now);
  }
}

/** Heartbeats a checkpoint and remembers it, so that the keep-alive beats repeat it instead of erasing it. */
export function checkpoint(details: unknown): void {
  const context = Context.current();
  lastCheckpoint.set(context, details);
  context.heartbeat(details);
}

/**
 * Runs an activity while heartbeating every two seconds. A worker killed inside any activity is then noticed at the
 * heartbeat timeout (seconds) rather than at the start-to-close timeout (minutes), and a live but slow call is never
 * taken for a dead one. Until this attempt checkpoints, the beats repeat the previous attempt's checkpoint.
 */
export function keepAlive<A extends unknown[], R>(activity: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A) => {
    const context = Context.current();
    // Local activities live inside a workflow task: they have no heartbeat. A watch beats on its own schedule.
    if (context.info.isLocal || isWatch(context.info)) return activity(...args);
    const beat = () =>
      context.heartbeat(lastCheckpoint.has(context) ? lastCheckpoint.get(context) : context.info.heartbeatDetails);
    const timer = setInterval(beat, KEEP_ALIVE_MS);
    try {
      return await activity(...args);
    } finally {
      clearInterval(timer);
    }
  };
}

/** Every activity of a set, kept alive (see `keepAlive`). */
export function keptAlive<T extends Record<string, (...args: never[]) => Promise<unknown>>>(activities: T): T {
  return Object.fromEntries(
    Object.entries(activities).map(([name, activity]) => [
      name,
      keepAlive(activity as (...args: unknown[]) => Promise<unknown>),
    ]),
  ) as unknown as T;
}
