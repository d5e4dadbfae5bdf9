// The limiter's book against a simulated service whose cap changes, in simulated time (100 ms steps): a cap raised
// after drills under a lower one is found again within a drill's first minute, however long the quiet before it, a
// cap that falls is respected after one round of 429s, and runs recorded before ceilings aged (`forgets` false) keep
// the old pace, which is what the first case measures against.
import { slotsAllowed } from './limits';
import { emptyBook, SlotBook } from './slot-book';

const STEP_MS = 100;
const T0 = 1_000_000;

interface Service {
  /** Backups the service runs at once, for the whole project. */
  cap: number;
  /** Other teams' backups running meanwhile: the service counts them too. */
  others: number;
}

class Simulation {
  now = T0;
  private readonly jobs = new Map<string, number>();
  private next = 0;
  /** 429s so far. */
  refused = 0;
  /** The limit's decreases and the slots it allows, at each step of the last drill. */
  decreases: number[] = [];
  limits: number[] = [];

  constructor(
    readonly book: SlotBook,
    readonly service: Service,
  ) {}

  get running(): number {
    return this.jobs.size;
  }

  /**
   * A drill of `resources` backups of `jobMs` each, all asking at once (parallelism = resources), run until every
   * one has run. Returns, step by step, the backups running at once.
   */
  drill(resources: number, jobMs: number): number[] {
    const leases = Array.from({ length: resources }, () => `lease-${++this.next}`);
    for (const leaseId of leases) this.book.enqueue(leaseId, { workflowId: leaseId, runId: 'r' }, this.now);
    let done = 0;
    const trace: number[] = [];
    this.decreases = [];
    this.limits = [];
    while (done < resources) {
      for (const [leaseId, endsAt] of this.jobs) {
        if (endsAt > this.now) continue;
        this.jobs.delete(leaseId);
        this.book.release(leaseId);
        done += 1;
      }
      for (const lease of this.book.grant(this.now)) {
        if (this.jobs.size + this.service.others < this.service.cap) {
          this.jobs.set(lease.leaseId, this.now + jobMs);
          this.book.report(
            { leaseId: lease.leaseId, grant: lease.grant, result: 'ok', jobId: lease.leaseId },
            this.now,
          );
        } else {
          this.refused += 1;
          this.book.report({ leaseId: lease.leaseId, grant: lease.grant, result: 'throttled' }, this.now);
        }
      }
      trace.push(this.jobs.size);
      this.decreases.push(this.book.limit.decreases);
      this.limits.push(slotsAllowed(this.book.limit));
      this.now += STEP_MS;
    }
    return trace;
  }

  idle(ms: number): void {
    this.now += ms;
  }
}

/** Seconds from the drill's start until `n` backups ran at once; Infinity when they never did. */
const secondsUntil = (trace: number[], n: number) => {
  const step = trace.findIndex((running) => running >= n);
  return step < 0 ? Infinity : (step * STEP_MS) / 1000;
};

/** Drills under a cap of 5 (the limiter learns it), a quiet time, the cap raised to 20, then a drill of 200. */
function raisedCap(forgets: boolean, idleMs = 120_000, keeps = true) {
  const sim = new Simulation(new SlotBook(emptyBook(), forgets, keeps), { cap: 5, others: 0 });
  for (let i = 0; i < 4; i += 1) sim.drill(40, 2_000);
  const learned = sim.book.limit;
  sim.idle(idleMs);
  sim.service.cap = 20;
  const trace = sim.drill(200, 10_000);
  return { learned, trace, sim };
}

test('a cap raised from 5 to 20 after drills under it: the next drill runs 20 at once within its first minute', () => {
  const { learned, trace } = raisedCap(true);
  // What the drills under the cap taught it: a ceiling of 5 backups plus the one refused, confirmed more than once.
  expect(learned.ceiling).toBe(6);
  expect(learned.probeSlowdown).toBeGreaterThan(1);
  const seconds = secondsUntil(trace, 20);
  expect(seconds).toBeLessThanOrEqual(60);
  // It stays there: the drill of 200 ten-second backups takes about 10 rounds of 20, not 40 rounds of 5.
  expect((trace.length * STEP_MS) / 1000).toBeLessThan((200 / 20) * 10 * 1.5);
});

test('after a quiet quarter of an hour the ceiling of 5 is kept, and disproved as quickly as after two minutes', () => {
  // Older than a minute, it is probed at the normal pace: a window of 5 successes, then a start past it that holds.
  const { learned, trace, sim } = raisedCap(true, 15 * 60_000);
  expect(learned.ceiling).toBe(6);
  expect(secondsUntil(trace, 20)).toBe(secondsUntil(raisedCap(true).trace, 20));
  expect(secondsUntil(trace, 20)).toBeLessThanOrEqual(60);
  expect((trace.length * STEP_MS) / 1000).toBeLessThan((200 / 20) * 10 * 1.5);
  // Runs from before forgot it by age and started slow from the limit they had: 20 at once sooner, but more 429s.
  const forgot = raisedCap(true, 15 * 60_000, false);
  expect(secondsUntil(forgot.trace, 20)).toBeLessThanOrEqual(secondsUntil(trace, 20));
  expect(forgot.sim.refused).toBeGreaterThan(sim.refused);
});

test('a limiter whose ceiling never ages (runs recorded before) is still held at the old cap a minute in', () => {
  const { trace } = raisedCap(false);
  expect(secondsUntil(trace, 20)).toBeGreaterThan(60);
  expect(Math.max(...trace.slice(0, 600))).toBeLessThan(10);
});

/** A limiter that learned a cap of 20, then a drill of 20 ten-second backups while others' backups take 15 of 20. */
function fallenCap(forgets: boolean) {
  const sim = new Simulation(new SlotBook(emptyBook(), forgets), { cap: 20, others: 0 });
  sim.drill(60, 2_000);
  expect(slotsAllowed(sim.book.limit)).toBeGreaterThanOrEqual(20);
  sim.service.others = 15;
  const before = sim.book.limit.decreases;
  const trace = sim.drill(20, 10_000);
  // The slots allowed once the first round of 429s (those of the grants made at once) has been told.
  const firstRound = sim.decreases.findIndex((d) => d > before);
  return { sim, trace, afterFirstRound: sim.limits[firstRound] };
}

test("a cap that falls between drills (others' backups take 15 of 20) is respected after one round of 429s", () => {
  const { sim, trace, afterFirstRound } = fallenCap(true);
  expect(afterFirstRound).toBe(5);
  expect(slotsAllowed(sim.book.limit)).toBeLessThanOrEqual(5);
  expect(Math.max(...trace)).toBe(5);
});

test('the same fall with the ceiling kept as before halves once per round: twice the cap after the first', () => {
  expect(fallenCap(false).afterFirstRound).toBe(10);
});
