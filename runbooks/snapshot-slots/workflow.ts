import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  patched,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { statusQuery, type RunbookStatus } from '../../contracts';
import type { SnapshotSlotActivities } from './activities';
import {
  releaseSlotSignal,
  releaseSlotsSignal,
  reportStartSignal,
  requestSlotSignal,
  requestSlotsSignal,
  slotGrantedSignal,
  slotsGrantedSignal,
  slotsQuery,
  type ReleaseSlot,
  type SlotHolder,
  type SlotsStatus,
  type SnapshotSlotsInput,
} from './contract';
import { SlotBook, type Lease } from './slot-book';

/** While slots are held, the runs holding them are checked this often: a run that ended gives its slots back. */
export const SWEEP_MS = 60_000;
/**
 * The history stays under this many events: then the run continues as new, carrying the book. A slot costs about
 * ten events (the request, report and release signals, the grant signalled back, their workflow tasks), so a run
 * covers a few hundred backups; the bound keeps each replay short.
 */
export const HISTORY_LIMIT = 4_000;
/** Runs recorded before ceilings aged kept them for good (limits.ts): they replay as they ran. */
export const THROTTLE_FORGETS_PATCH = 'snapshot-slots-ceiling-ages';
/**
 * A ceiling is kept, however old, until a start past it (by more than a tenth) disproves it. Runs recorded before
 * forgot one no 429 had confirmed for ten minutes, or one a slot past it: either sent the limit back to slow start,
 * past the cap, into a burst of 429s.
 */
export const CEILING_KEPT_PATCH = 'snapshot-slots-ceiling-kept-until-disproved';
/**
 * The slots granted to one run in one task go in one signal: a batch whose twenty starts were granted together wakes
 * once, not twenty times, one task after the other. Runs recorded before signal each grant alone.
 */
export const GRANTS_TOGETHER_PATCH = 'snapshot-slots-grants-together';

const checks = proxyLocalActivities<SnapshotSlotActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
});

/**
 * The limiter of snapshot starts of one service project (workflow ID `snapshot-slots-<projectId>`), started on
 * demand by the first request (signal-with-start) and shared by every worker: it grants slots first come, first
 * served, up to an adaptive limit (limits.ts), signals each grant to the run that asked, and carries its state
 * through continue-as-new. It never ends on its own: the limit it learned stays for the next drill.
 *
 * Signals only, no updates: Temporal admits 10 updates in flight per workflow (a burst of 30 requests met
 * "limit on number of concurrent in-flight updates has been reached"), and a run waiting for its grant signal costs
 * nothing while it waits, where a waiting activity would hold a worker's slot.
 */
export async function snapshotSlots(input: SnapshotSlotsInput): Promise<void> {
  const slots = new Granter(input, {
    forgets: patched(THROTTLE_FORGETS_PATCH),
    grantsTogether: patched(GRANTS_TOGETHER_PATCH),
    keeps: patched(CEILING_KEPT_PATCH),
  });
  const { book } = slots;
  answerSignals(input, slots);

  // Grants owed from the run before (a pause that has ended, slots freed as it continued).
  slots.changed();
  while (!slots.tooLong()) {
    const target = slots.nextWake();
    slots.scheduledAt = target;
    const seen = slots.woken;
    const wake = () => slots.woken !== seen || slots.tooLong();
    if (target === undefined) await condition(wake);
    else await condition(wake, Math.max(1, target - now()));
    slots.scheduledAt = undefined;
    if (now() >= slots.sweepAt) {
      slots.sweepAt = now() + slots.sweepMs;
      const holders = book.holders();
      if (holders.length > 0) book.reclaim(await checks.endedSlotHolders(holders));
    }
    slots.changed();
  }

  // Every grant reaches its run before the book moves on; signals that arrive meanwhile are handled and carried.
  while (slots.signalling.size > 0) await Promise.all([...slots.signalling]);
  await condition(allHandlersFinished);
  await continueAsNew<typeof snapshotSlots>({ ...input, carried: book.carried() });
}

const now = () => Date.now();

/** The book, and the grants on their way: what the handlers and the main loop of one run share. */
class Granter {
  readonly book: SlotBook;
  readonly sweepMs: number;
  readonly historyLimit: number;
  sweepAt: number;
  /** Grants on their way to their runs; continue-as-new waits for them. */
  readonly signalling = new Set<Promise<void>>();
  /** The main loop's timer; a handler that needs an earlier wake-up bumps `woken`. */
  scheduledAt: number | undefined;
  woken = 0;

  private readonly grantsTogether: boolean;

  constructor(input: SnapshotSlotsInput, patches: { forgets: boolean; grantsTogether: boolean; keeps: boolean }) {
    this.book = new SlotBook(input.carried, patches.forgets, patches.keeps);
    this.grantsTogether = patches.grantsTogether;
    const { sweepMs = SWEEP_MS, historyLimit = HISTORY_LIMIT } = input.tuning ?? {};
    this.sweepMs = sweepMs;
    this.historyLimit = historyLimit;
    this.sweepAt = now() + sweepMs;
  }

  nextWake(): number | undefined {
    const { book } = this;
    const times = [book.resumesAt(now()), book.held + book.waiting > 0 ? this.sweepAt : undefined].filter(
      (t): t is number => t !== undefined,
    );
    return times.length === 0 ? undefined : Math.min(...times);
  }

  tellGranted(lease: Lease): void {
    this.tell(lease.holder, [lease], (h) =>
      h.signal(slotGrantedSignal, { leaseId: lease.leaseId, grant: lease.grant }),
    );
  }

  /** Signals grants to the run that holds them; a run that has ended gives its slots back at once. */
  private tell(
    holder: Lease['holder'],
    leases: Lease[],
    send: (run: ReturnType<typeof getExternalWorkflowHandle>) => Promise<void>,
  ): void {
    const sent = send(getExternalWorkflowHandle(holder.workflowId, holder.runId))
      .catch(() => {
        // The run has ended (or never was): its slots come back at once.
        const back = leases.filter(
          (l) => this.book.grantOf(l.leaseId) === l.grant && this.book.reclaimLease(l.leaseId),
        );
        if (back.length > 0) this.changed();
      })
      .finally(() => this.signalling.delete(sent));
    this.signalling.add(sent);
  }

  changed(): void {
    const granted = this.book.grant(now());
    if (!this.grantsTogether) for (const lease of granted) this.tellGranted(lease);
    else {
      const byRun = new Map<string, Lease[]>();
      for (const lease of granted) {
        const run = `${lease.holder.workflowId}/${lease.holder.runId}`;
        const leases = byRun.get(run);
        if (leases) leases.push(lease);
        else byRun.set(run, [lease]);
      }
      for (const leases of byRun.values()) {
        const grants = leases.map(({ leaseId, grant }) => ({ leaseId, grant }));
        const [first] = leases;
        if (first) this.tell(first.holder, leases, (h) => h.signal(slotsGrantedSignal, { grants }));
      }
    }
    const wake = this.nextWake();
    if (wake !== undefined && (this.scheduledAt === undefined || wake < this.scheduledAt)) this.woken += 1;
  }

  tooLong(): boolean {
    return workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > this.historyLimit;
  }
}

/** The queries of the book, and the signals of the runs that ask for, report and release slots. */
function answerSignals(input: SnapshotSlotsInput, slots: Granter): void {
  const { book } = slots;
  setHandler(slotsQuery, (): SlotsStatus => book.status(input.projectId, now()));
  setHandler(statusQuery, (): RunbookStatus => statusOf(book.status(input.projectId, now())));
  const request = (leaseId: string, holder: SlotHolder) => {
    const lease = book.leaseOf(leaseId);
    // Asked again while it holds a slot (a run that asks again after a long wait): the same grant, told again.
    if (lease) slots.tellGranted(lease);
    else book.enqueue(leaseId, holder, now());
  };
  setHandler(requestSlotSignal, ({ leaseId, holder }) => {
    request(leaseId, holder);
    slots.changed();
  });
  setHandler(requestSlotsSignal, ({ leaseIds, holder }) => {
    for (const leaseId of leaseIds) request(leaseId, holder);
    slots.changed();
  });
  setHandler(reportStartSignal, (report) => {
    book.report(report, now());
    slots.changed();
  });
  const release = ({ leaseId, handedTo }: ReleaseSlot) => {
    if (handedTo === undefined) book.release(leaseId);
    else book.handOver(leaseId, handedTo, now());
  };
  setHandler(releaseSlotSignal, (released) => {
    release(released);
    slots.changed();
  });
  setHandler(releaseSlotsSignal, ({ releases }) => {
    releases.forEach(release);
    slots.changed();
  });
}

function statusOf(slots: SlotsStatus): RunbookStatus {
  const ceiling =
    slots.ceiling === undefined
      ? 'no 429 yet, or the last one forgotten'
      : `429 at ${slots.ceiling} held, ${slots.ceilingAgeSeconds ?? '?'} s ago`;
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
