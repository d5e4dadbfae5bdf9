// When things happened in a run, from its history: for benchmarks that split a run's time into its steps.
import { tsToMs } from '@temporalio/common/lib/time';
import type { temporal } from '@temporalio/proto';

export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** An event's time (epoch ms); NaN for a missing event. */
export const eventTime = (event: HistoryEvent | undefined): number =>
  event?.eventTime ? tsToMs(event.eventTime) : NaN;

/** The started event of the activity `scheduled` schedules (its last attempt's). */
export const startedOf = (events: readonly HistoryEvent[], scheduled: HistoryEvent | undefined) =>
  events.find((e) => Number(e.activityTaskStartedEventAttributes?.scheduledEventId) === Number(scheduled?.eventId));

/** The completed event of the activity `scheduled` schedules. */
export const completedOf = (events: readonly HistoryEvent[], scheduled: HistoryEvent | undefined) =>
  events.find((e) => Number(e.activityTaskCompletedEventAttributes?.scheduledEventId) === Number(scheduled?.eventId));
