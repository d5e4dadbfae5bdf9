// The service's clock as its answers show it. A `Date` header has whole seconds, so one answer places the service's
// clock within a second of ours; answers at different moments of the second narrow that, down to about a round trip.

/** Bounds older than this are dropped, so that the two clocks' drift never leaves them wrong for long. */
const BOUNDS_MEMORY_MS = 10 * 60_000;

/** The service's clock minus ours: it lies in [lo, hi]. */
export interface OffsetBounds {
  lo: number;
  hi: number;
}

export class ServiceClock {
  private bounds: OffsetBounds | undefined;
  private since = 0;

  /**
   * An answer dated `dateMs` (its `Date` header: the second it was made in) to a request sent at `sentAt` and answered
   * at `receivedAt`, both on our clock. The answer was made at some moment between the two, within that second.
   */
  observe(dateMs: number, sentAt: number, receivedAt: number): void {
    const seen = { lo: dateMs - receivedAt, hi: dateMs + 1_000 - sentAt };
    const b = this.bounds;
    // A first answer, old bounds, or an answer they cannot hold (a clock was set): start again from this one.
    if (!b || receivedAt - this.since > BOUNDS_MEMORY_MS || seen.lo > b.hi || seen.hi < b.lo) {
      this.bounds = seen;
      this.since = sentAt;
      return;
    }
    this.bounds = { lo: Math.max(b.lo, seen.lo), hi: Math.min(b.hi, seen.hi) };
  }

  /** Where the service's clock stands against ours, as narrowly as its answers so far tell; undefined before any. */
  offsetBounds(): OffsetBounds | undefined {
    return this.bounds && { ...this.bounds };
  }
}
