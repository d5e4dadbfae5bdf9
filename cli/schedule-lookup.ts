import { ScheduleNotFoundError, type Client, type ScheduleDescription } from '@temporalio/client';
import { NotFoundError } from '../operator/errors';

/** A schedule that does not exist, as the CLI's "not found" (exit 5) naming it; any other error as it is. */
export function missing(err: unknown, scheduleId: string): unknown {
  return err instanceof ScheduleNotFoundError
    ? new NotFoundError(`no schedule '${scheduleId}' (see \`runbooks schedule list\`)`)
    : err;
}

/** The schedule's description, or "not found" naming it. */
export async function describeOrMissing(client: Client, scheduleId: string): Promise<ScheduleDescription> {
  return client.schedule
    .getHandle(scheduleId)
    .describe()
    .catch((err: unknown) => {
      throw missing(err, scheduleId);
    });
}

/** The spec as `runbooks schedule create` wrote it into the memo; absent for schedules made otherwise. */
export function specOf(memo: Record<string, unknown> | undefined): { cron?: string; interval?: string } {
  const cron = typeof memo?.cron === 'string' ? memo.cron : undefined;
  const interval = typeof memo?.interval === 'string' ? memo.interval : undefined;
  return { ...(cron === undefined ? {} : { cron }), ...(interval === undefined ? {} : { interval }) };
}
