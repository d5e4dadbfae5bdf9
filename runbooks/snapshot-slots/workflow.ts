import {
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { statusQuery, type RunbookStatus } from '../../contracts';
import type { SnapshotSlotActivities } from './activities';
import {
  acquireSlotUpdate,
  releaseSlotSignal,
  reportStartSignal,
  slotsQuery,
  type SlotsStatus,
  type SnapshotSlotsInput,
} from './contract';
import { SlotBook } from './slot-book';

/** A waiting acquire answers at least this often, so that its activity can show its place in the queue. */
export const ROUND_MS = 60_000;
/** While slots are held, the runs holding them are checked this often: a run that ended gives its slots back. */
export const SWEEP_MS = 60_000;
/**
 * The history stays under this many events: then the run continues as new, carrying the book. A slot costs about
 * ten events (the acquire update, the report and release signals, their workflow tasks), so a run covers hundreds
 * of backups; the bound keeps each replay short.
 */
export const HISTORY_LIMIT = 4_000;

const checks = proxyLocalActivities<SnapshotSlotActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
});

/**
 * The limiter of snapshot starts of one service project (workflow ID `snapshot-slots-<projectId>`), started on
 * demand by the first acquire (update-with-start) and shared by every worker: it grants slots first come, first
 * served, up to an adaptive limit (runbooks/snapshot-slots/limits.ts), and carries its state through
 * continue-as-new. It never ends on its own: the limit it learned stays for the next drill.
 */
export async function snapshotSlots(input: SnapshotSlotsInput): Promise<void> {
  const book = new SlotBook(input.carried);
  const now = () => Date.now();
  let draining = false;
  /** Rounds of waiting so far; a waiting acquire answers once the round changes. */
  let round = 0;
  let roundAt = now() + ROUND_MS;
  let sweepAt = now() + SWEEP_MS;
  /** The main loop's timer; a handler that needs an earlier wake-up bumps `woken`. */
  let scheduledAt: number | undefined;
  let woken = 0;

  const nextWake = (): number | undefined => {
    const times = [
      book.resumesAt(now()),
      book.waiting > 0 ? roundAt : undefined,
      book.held + book.waiting > 0 ? sweepAt : undefined,
    ].filter((t): t is number => t !== undefined);
    return times.length === 0 ? undefined : Math.min(...times);
  };
  const changed = () => {
    book.grant(now());
    const wake = nextWake();
    if (wake !== undefined && (scheduledAt === undefined || wake < scheduledAt)) woken += 1;
  };
  const tooLong = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > HISTORY_LIMIT;

  setHandler(slotsQuery, (): SlotsStatus => book.status(input.projectId, now()));
  setHandler(statusQuery, (): RunbookStatus => statusOf(book.status(input.projectId, now())));
  setHandler(acquireSlotUpdate, async ({ leaseId, holder, first }) => {
    book.enqueue(leaseId, holder, now());
    changed();
    if (!first && !draining && !book.holds(leaseId)) {
      const entered = round;
      await condition(() => book.holds(leaseId) || !book.waits(leaseId) || round !== entered || draining);
    }
    return book.answer(leaseId, now());
  });
  setHandler(reportStartSignal, (report) => {
    book.report(report, now());
    changed();
  });
  setHandler(releaseSlotSignal, ({ leaseId }) => {
    book.release(leaseId);
    changed();
  });

  while (!tooLong()) {
    const target = nextWake();
    scheduledAt = target;
    const seen = woken;
    const wake = () => woken !== seen || tooLong();
    if (target === undefined) await condition(wake);
    else await condition(wake, Math.max(1, target - now()));
    scheduledAt = undefined;
    const t = now();
    if (t >= roundAt) {
      round += 1;
      roundAt = t + ROUND_MS;
    }
    if (t >= sweepAt) {
      sweepAt = t + SWEEP_MS;
      const holders = book.holders();
      if (holders.length > 0) book.reclaim(await checks.endedSlotHolders(holders));
    }
    book.grant(now());
  }

  // Waiting acquires answer now (their activities ask again, of the next run); then the book moves on.
  draining = true;
  await condition(allHandlersFinished);
  await continueAsNew<typeof snapshotSlots>({ projectId: input.projectId, carried: book.carried() });
}

function statusOf(slots: SlotsStatus): RunbookStatus {
  const ceiling = slots.ceiling === undefined ? 'no 429 yet' : `429 at ${slots.ceiling} held`;
  return {
    runbook: 'snapshotSlots',
    phase: 'granting snapshot slots',
    ids: {},
    progress: { done: slots.held, total: slots.limit, unit: 'slots held' },
    detail:
      `limit ${slots.limit} (${ceiling}); ${slots.held} held, ${slots.waiting} waiting; ` +
      `${slots.starts} starts, ${slots.throttled} refused with 429, ${slots.reclaimed} reclaimed`,
    ...(slots.pausedUntil ? { waitingFor: `the service's Retry-After, until ${slots.pausedUntil}` } : {}),
    updatedAt: new Date().toISOString(),
  };
}
