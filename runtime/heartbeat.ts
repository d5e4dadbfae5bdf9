import { Context } from '@temporalio/activity';

/** How often a running activity tells Temporal it is alive; well inside every preset's heartbeat timeout. */
const KEEP_ALIVE_MS = 2_000;

const lastCheckpoint = new WeakMap<Context, unknown>();

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
    // Local activities live inside a workflow task: they have no heartbeat.
    if (context.info.isLocal) return activity(...args);
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
