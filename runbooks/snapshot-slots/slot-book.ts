// The limiter's book of slots: who holds one, who waits (first come, first served), and the adaptive limit. Plain
// data and pure steps, with no Temporal in it: the workflow calls these from its handlers, and the tests call them
// directly. Every time is passed in (workflow time), never read here.
import type { SlotHolder, SlotsStatus, SnapshotStartReport } from './contract';
import { initialLimit, pausedAt, slotsAllowed, started, throttled, type SlotLimit } from './limits';

export interface Lease {
  leaseId: string;
  holder: SlotHolder;
  grantedAt: number;
  /** The grant's number (one per grant, across continue-as-new). */
  grant: number;
  /** The limit's decrease count at the grant (see `limits.throttled`). */
  grantedAtDecrease: number;
  /** The backup job started in the slot, once reported. */
  jobId?: string;
  /** See `Waiter.spareGrant`. */
  spareGrant?: number;
}

export interface Waiter {
  leaseId: string;
  holder: SlotHolder;
  since: number;
  /**
   * A grant of the lease's own that a start in a handed slot made unused (the run was told both): refused with 429,
   * the run may start again in it at once, and that start is booked, not dropped.
   */
  spareGrant?: number;
}

/** Everything continue-as-new carries to the next run. */
export interface CarriedSlots {
  limit: SlotLimit;
  leases: Lease[];
  waiters: Waiter[];
  starts: number;
  throttled: number;
  reclaimed: number;
  grants: number;
}

export function emptyBook(): CarriedSlots {
  return { limit: initialLimit(), leases: [], waiters: [], starts: 0, throttled: 0, reclaimed: 0, grants: 0 };
}

export class SlotBook {
  private readonly leases = new Map<string, Lease>();
  /** In arrival order; a holder refused with 429 goes back to the head. */
  private waiters: Waiter[];
  private limitState: SlotLimit;
  private counts: Pick<CarriedSlots, 'starts' | 'throttled' | 'reclaimed'>;
  private grants: number;

  /**
   * `forgets`: a ceiling ages and a start past it disproves it (limits.ts, PROBE_RESET_MS and CEILING_MEMORY_MS), and a
   * 429 lowers the limit to the backups running at once; `keeps`: a ceiling is kept, however old, until a start past it
   * by more than a tenth disproves it. Each false for runs recorded before its patch (./workflow.ts).
   */
  constructor(
    carried: CarriedSlots = emptyBook(),
    private readonly forgets = true,
    private readonly keeps = true,
  ) {
    for (const lease of carried.leases) this.leases.set(lease.leaseId, lease);
    this.waiters = [...carried.waiters];
    this.limitState = carried.limit;
    this.counts = { starts: carried.starts, throttled: carried.throttled, reclaimed: carried.reclaimed };
    this.grants = carried.grants;
  }

  get held(): number {
    return this.leases.size;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  get limit(): SlotLimit {
    return this.limitState;
  }

  holds(leaseId: string): boolean {
    return this.leases.has(leaseId);
  }

  waits(leaseId: string): boolean {
    return this.waiters.some((w) => w.leaseId === leaseId);
  }

  /** Puts a holder in the queue, unless it holds a slot or waits already (a retried acquire). */
  enqueue(leaseId: string, holder: SlotHolder, now: number): void {
    if (this.holds(leaseId) || this.waits(leaseId)) return;
    this.waiters.push({ leaseId, holder, since: now });
  }

  /** Grants slots to the head of the queue while the limit allows and no `Retry-After` pauses grants. */
  grant(now: number): Lease[] {
    const granted: Lease[] = [];
    while (this.waiters.length > 0 && this.held < slotsAllowed(this.limitState) && !pausedAt(this.limitState, now)) {
      const next = this.waiters.shift();
      if (!next) break;
      const lease: Lease = {
        leaseId: next.leaseId,
        holder: next.holder,
        grantedAt: now,
        grant: ++this.grants,
        grantedAtDecrease: this.limitState.decreases,
        ...(next.spareGrant === undefined ? {} : { spareGrant: next.spareGrant }),
      };
      this.leases.set(lease.leaseId, lease);
      granted.push(lease);
    }
    return granted;
  }

  /** When grants may go on again, if they are paused with holders waiting. */
  resumesAt(now: number): number | undefined {
    return this.waiters.length > 0 && pausedAt(this.limitState, now) ? this.limitState.pausedUntil : undefined;
  }

  /**
   * A start's outcome. Reported twice (a retried activity), it counts once: only for the grant it names, while that
   * grant holds its slot, and a success only once.
   */
  report(report: SnapshotStartReport, now: number): void {
    if (report.handedFrom !== undefined) this.handOver(report.handedFrom, report.leaseId, now);
    const lease = this.leases.get(report.leaseId) ?? this.holdSpare(report, now);
    if (!lease) return;
    // A handed slot may carry another grant than the book's, when the limiter granted the lease one of its own too.
    if (lease.spareGrant === report.grant) delete lease.spareGrant;
    else if (lease.grant !== report.grant && report.handedFrom === undefined) return;
    if (report.result === 'ok') {
      if (lease.jobId !== undefined) return;
      lease.jobId = report.jobId;
      const at = this.forgets ? { now, running: this.running() } : undefined;
      this.limitState = started(this.limitState, at, this.keeps);
      this.counts.starts += 1;
      return;
    }
    this.limitState = throttled(
      this.limitState,
      {
        now,
        held: this.held,
        running: this.running(),
        grantedAtDecrease: lease.grantedAtDecrease,
        ...(report.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: report.retryAfterSeconds }),
      },
      this.forgets,
    );
    this.counts.throttled += 1;
    // No job runs in the slot: it goes back, and its holder first in line for the next one.
    this.leases.delete(lease.leaseId);
    const spare = lease.grant === report.grant ? lease.spareGrant : lease.grant;
    const waiter: Waiter = { leaseId: lease.leaseId, holder: lease.holder, since: lease.grantedAt };
    this.waiters.unshift(spare === undefined ? waiter : { ...waiter, spareGrant: spare });
  }

  /** A start in a waiting lease's spare grant: the lease holds a slot again (the run's start used one). */
  private holdSpare(report: SnapshotStartReport, now: number): Lease | undefined {
    const waiter = this.waiters.find((w) => w.leaseId === report.leaseId);
    if (waiter?.spareGrant !== report.grant) return undefined;
    this.waiters = this.waiters.filter((w) => w !== waiter);
    const lease: Lease = {
      leaseId: waiter.leaseId,
      holder: waiter.holder,
      grantedAt: now,
      grant: report.grant,
      grantedAtDecrease: this.limitState.decreases,
    };
    this.leases.set(lease.leaseId, lease);
    return lease;
  }

  /**
   * A slot handed by its run from one of its leases to another that waited: it stays held, under the new lease, with
   * its grant (the new lease's start reports it). Told twice (by the release and by the start's report), it counts
   * once; a lease that was granted a slot of its own meanwhile keeps that one, and the handed slot comes back.
   */
  handOver(from: string, to: string, now: number): void {
    const lease = this.leases.get(from);
    if (!lease) return;
    this.leases.delete(from);
    this.waiters = this.waiters.filter((w) => w.leaseId !== to);
    if (this.leases.has(to)) return;
    const { holder, grant } = lease;
    this.leases.set(to, { leaseId: to, holder, grantedAt: now, grant, grantedAtDecrease: this.limitState.decreases });
  }

  /** Gives a slot back, or takes a holder out of the queue; false when the lease is unknown (released already). */
  release(leaseId: string): boolean {
    if (this.leases.delete(leaseId)) return true;
    const before = this.waiters.length;
    this.waiters = this.waiters.filter((w) => w.leaseId !== leaseId);
    return this.waiters.length < before;
  }

  /** Every run that holds or waits for a slot, once each. */
  holders(): SlotHolder[] {
    const byKey = new Map<string, SlotHolder>();
    for (const { holder } of [...this.leases.values(), ...this.waiters]) byKey.set(holderKey(holder), holder);
    return [...byKey.values()];
  }

  /** Frees the slots and queue places of runs that have ended without releasing them; how many slots came back. */
  reclaim(ended: readonly SlotHolder[]): number {
    const gone = new Set(ended.map(holderKey));
    let freed = 0;
    for (const lease of [...this.leases.values()]) {
      if (!gone.has(holderKey(lease.holder))) continue;
      this.leases.delete(lease.leaseId);
      freed += 1;
    }
    this.waiters = this.waiters.filter((w) => !gone.has(holderKey(w.holder)));
    this.counts.reclaimed += freed;
    return freed;
  }

  /** A waiting holder's place in the queue (1: next), or undefined when it does not wait. */
  position(leaseId: string): number | undefined {
    const index = this.waiters.findIndex((w) => w.leaseId === leaseId);
    return index < 0 ? undefined : index + 1;
  }

  /** The grant a lease holds, if it holds a slot. */
  grantOf(leaseId: string): number | undefined {
    return this.leases.get(leaseId)?.grant;
  }

  leaseOf(leaseId: string): Lease | undefined {
    return this.leases.get(leaseId);
  }

  /** Slots whose backup has started (and not been released). */
  private running(): number {
    return [...this.leases.values()].filter((l) => l.jobId !== undefined).length;
  }

  /** Frees the slot of a run that turned out to have ended; counted as reclaimed. */
  reclaimLease(leaseId: string): boolean {
    if (!this.leases.delete(leaseId)) return false;
    this.counts.reclaimed += 1;
    return true;
  }

  status(projectId: string, now: number): SlotsStatus {
    const { ceiling, ceilingAt, pausedUntil } = this.limitState;
    return {
      projectId,
      limit: slotsAllowed(this.limitState),
      ...(ceiling === undefined ? {} : { ceiling }),
      ...(ceiling === undefined || ceilingAt === undefined
        ? {}
        : { ceilingSince: new Date(ceilingAt).toISOString(), ceilingAgeSeconds: Math.round((now - ceilingAt) / 1000) }),
      held: this.held,
      waiting: this.waiters.length,
      ...(pausedAt(this.limitState, now) ? { pausedUntil: new Date(pausedUntil).toISOString() } : {}),
      ...this.counts,
    };
  }

  carried(): CarriedSlots {
    return {
      limit: this.limitState,
      leases: [...this.leases.values()],
      waiters: [...this.waiters],
      ...this.counts,
      grants: this.grants,
    };
  }
}

function holderKey(holder: SlotHolder): string {
  return `${holder.workflowId}\u0000${holder.runId}`;
}
