import { initialLimit } from './limits';
import { emptyBook, SlotBook } from './slot-book';

const T0 = 1_000_000;
const run = (n: number) => ({ workflowId: `drill-${n}`, runId: `run-${n}` });

const ids = (leases: { leaseId: string }[]) => leases.map((l) => l.leaseId);

function bookOf(limit: number): SlotBook {
  return new SlotBook({ ...emptyBook(), limit: initialLimit(limit) });
}

describe('the book of slots', () => {
  test('grants first come, first served, up to the limit', () => {
    const book = bookOf(2);
    for (const n of [1, 2, 3]) book.enqueue(`lease-${n}`, run(n), T0);
    expect(ids(book.grant(T0))).toEqual(['lease-1', 'lease-2']);
    expect(book.position('lease-3')).toBe(1);
    expect(book.status('p', T0)).toMatchObject({ waiting: 1, held: 2, limit: 2 });
    book.release('lease-1');
    expect(book.grant(T0)).toEqual([
      { leaseId: 'lease-3', holder: run(3), grantedAt: T0, grant: 3, grantedAtDecrease: 0 },
    ]);
  });

  test('a retried acquire of the same lease takes no second slot and no second place', () => {
    const book = bookOf(5);
    book.enqueue('lease-1', run(1), T0);
    book.grant(T0);
    book.enqueue('lease-1', run(1), T0 + 1);
    expect(book.grant(T0 + 1)).toEqual([]);
    expect(book.held).toBe(1);
    expect(book.waiting).toBe(0);
  });

  test('a success reported twice grows the limit once', () => {
    const book = bookOf(10);
    book.enqueue('lease-1', run(1), T0);
    book.grant(T0);
    book.report({ leaseId: 'lease-1', grant: 1, result: 'ok', jobId: 'job-1' }, T0);
    const after = book.limit.limit;
    book.report({ leaseId: 'lease-1', grant: 1, result: 'ok', jobId: 'job-1' }, T0);
    expect(book.limit.limit).toBe(after);
    expect(book.status('p', T0).starts).toBe(1);
  });

  test('a 429 frees the slot, halves the limit, and puts its holder first in line until Retry-After', () => {
    const book = bookOf(4);
    for (const n of [1, 2, 3, 4, 5]) book.enqueue(`lease-${n}`, run(n), T0);
    book.grant(T0);
    for (const n of [1, 2, 3]) book.report({ leaseId: `lease-${n}`, grant: n, result: 'ok', jobId: `job-${n}` }, T0);
    book.report({ leaseId: 'lease-4', grant: 4, result: 'throttled', retryAfterSeconds: 3 }, T0);
    expect(book.held).toBe(3);
    expect(book.limit.limit).toBe(2);
    expect(book.limit.ceiling).toBe(4);
    expect(book.position('lease-4')).toBe(1);
    // Two released: under the halved limit, and after the pause, the refused holder goes first.
    book.release('lease-1');
    book.release('lease-2');
    expect(book.grant(T0 + 2_999)).toEqual([]);
    expect(book.resumesAt(T0 + 2_999)).toBe(T0 + 3_000);
    expect(ids(book.grant(T0 + 3_000))).toEqual(['lease-4']);
    expect(book.grantOf('lease-4')).toBe(5);
    // The same 429 reported again (a retried activity) changes nothing: it names the earlier grant.
    book.report({ leaseId: 'lease-4', grant: 4, result: 'throttled', retryAfterSeconds: 3 }, T0 + 3_000);
    expect(book.status('p', T0)).toMatchObject({ starts: 3, throttled: 1 });
    expect(book.held).toBe(2);
  });

  test('slots and places of runs that ended come back, and are counted', () => {
    const book = bookOf(2);
    for (const n of [1, 2, 3]) book.enqueue(`lease-${n}`, run(n), T0);
    book.grant(T0);
    expect(book.holders()).toEqual([run(1), run(2), run(3)]);
    expect(book.reclaim([run(1), run(3)])).toBe(1);
    expect(book.held).toBe(1);
    expect(book.waiting).toBe(0);
    expect(book.status('p', T0).reclaimed).toBe(1);
  });

  test('the book carried over continue-as-new is the same book', () => {
    const book = bookOf(3);
    for (const n of [1, 2, 3, 4]) book.enqueue(`lease-${n}`, run(n), T0);
    book.grant(T0);
    book.report({ leaseId: 'lease-1', grant: 1, result: 'ok', jobId: 'job-1' }, T0);
    const next = new SlotBook(JSON.parse(JSON.stringify(book.carried())) as ReturnType<SlotBook['carried']>);
    expect(next.status('p', T0)).toEqual(book.status('p', T0));
    expect(next.position('lease-4')).toBe(1);
    next.release('lease-2');
    expect(next.grant(T0)).toMatchObject([{ leaseId: 'lease-4', grant: 4 }]);
  });
});

/**
 * A service with a fixed cap, in steps: every free slot is granted and started at once (more runs wait than the cap
 * takes), the service refuses a start past its cap with 429 and a Retry-After of 1 s, and one job ends every 100 ms,
 * its slot given back. Deterministic: no Temporal, no clock.
 */
function againstCap(cap: number, starts: number) {
  const book = bookOf(10);
  let now = T0;
  let queued = 0;
  const running: string[] = [];
  let refused = 0;
  let heldSum = 0;
  let steps = 0;
  while (book.status('p', now).starts < starts) {
    while (book.waiting < 50) book.enqueue(`lease-${++queued}`, run(queued), now);
    for (const lease of book.grant(now)) {
      if (running.length < cap) {
        book.report({ leaseId: lease.leaseId, grant: lease.grant, result: 'ok', jobId: `job-${lease.grant}` }, now);
        running.push(lease.leaseId);
      } else {
        refused += 1;
        book.report({ leaseId: lease.leaseId, grant: lease.grant, result: 'throttled', retryAfterSeconds: 1 }, now);
      }
    }
    heldSum += running.length;
    steps += 1;
    now += 100;
    const ended = running.shift();
    if (ended) book.release(ended);
  }
  return { refused, share: refused / (starts + refused), meanRunning: heldSum / steps, book };
}

describe('against a fixed cap', () => {
  test.each([5, 20, 50])('cap %i: 2,000 starts meet few 429s, and the cap is used', (cap) => {
    const { share, meanRunning, book } = againstCap(cap, 2_000);
    expect(share).toBeLessThanOrEqual(0.02);
    // Running backups average most of the cap, the slow climb from 10 included: a halving is regained quickly.
    expect(meanRunning).toBeGreaterThanOrEqual(cap * 0.75);
    expect(book.limit.ceiling).toBeGreaterThanOrEqual(cap);
  });

  describe('a slot handed over by its run to another of its starts', () => {
    /** Lease a holds the one slot; lease b, of the same run, waits behind lease c of another run. */
    function handing(): SlotBook {
      const book = bookOf(1);
      book.enqueue('a', run(1), T0);
      book.grant(T0);
      book.enqueue('c', run(2), T0 + 1);
      book.enqueue('b', run(1), T0 + 2);
      return book;
    }

    test('stays held under the new lease, out of the queue, with no grant to anyone else', () => {
      const book = handing();
      book.handOver('a', 'b', T0 + 3);
      expect(book.held).toBe(1);
      expect(book.holds('b')).toBe(true);
      expect(book.holds('a')).toBe(false);
      expect(book.waits('b')).toBe(false);
      expect(book.grant(T0 + 3)).toEqual([]);
      expect(book.position('c')).toBe(1);
    });

    test('told by the start before the release, and again by the release, counts once', () => {
      const book = handing();
      book.report({ leaseId: 'b', grant: 1, handedFrom: 'a', result: 'ok', jobId: 'job-b' }, T0 + 3);
      expect(book.status('p', T0 + 3)).toMatchObject({ held: 1, starts: 1 });
      book.handOver('a', 'b', T0 + 4);
      expect(book.held).toBe(1);
      book.release('b');
      expect(ids(book.grant(T0 + 5))).toContain('c');
    });

    test('a 429 on the handed start sends the new lease to the head of the queue', () => {
      const book = handing();
      book.handOver('a', 'b', T0 + 3);
      book.report({ leaseId: 'b', grant: 1, handedFrom: 'a', result: 'throttled', retryAfterSeconds: 1 }, T0 + 3);
      expect(book.held).toBe(0);
      expect(book.position('b')).toBe(1);
      expect(book.status('p', T0 + 3)).toMatchObject({ throttled: 1 });
    });

    test('to a lease the limiter granted meanwhile: the handed slot comes back, the report still counts', () => {
      const book = bookOf(2);
      book.enqueue('a', run(1), T0);
      book.enqueue('b', run(1), T0);
      expect(ids(book.grant(T0))).toEqual(['a', 'b']);
      book.handOver('a', 'b', T0 + 1);
      expect(book.held).toBe(1);
      book.report({ leaseId: 'b', grant: 1, handedFrom: 'a', result: 'ok', jobId: 'job-b' }, T0 + 2);
      expect(book.status('p', T0 + 2)).toMatchObject({ held: 1, starts: 1 });
    });

    describe('and a 429 on the handed start: the run starts again at once in the grant it was told', () => {
      function throttledHanded(): SlotBook {
        const book = bookOf(2);
        book.enqueue('a', run(1), T0);
        book.enqueue('b', run(1), T0);
        book.grant(T0);
        book.handOver('a', 'b', T0 + 1);
        book.report({ leaseId: 'b', grant: 1, handedFrom: 'a', result: 'throttled', retryAfterSeconds: 1 }, T0 + 2);
        return book;
      }

      test('another 429 counts', () => {
        const book = throttledHanded();
        book.report({ leaseId: 'b', grant: 2, result: 'throttled', retryAfterSeconds: 1 }, T0 + 3);
        expect(book.status('p', T0 + 3)).toMatchObject({ held: 0, waiting: 1, throttled: 2 });
        // Reported again by a retried activity, it counts once.
        book.report({ leaseId: 'b', grant: 2, result: 'throttled', retryAfterSeconds: 1 }, T0 + 4);
        expect(book.status('p', T0 + 4)).toMatchObject({ throttled: 2 });
      });

      test('a start counts and holds a slot, which its release gives back', () => {
        const book = throttledHanded();
        book.report({ leaseId: 'b', grant: 2, result: 'ok', jobId: 'job-b' }, T0 + 3);
        expect(book.status('p', T0 + 3)).toMatchObject({ held: 1, waiting: 0, starts: 1, throttled: 1 });
        book.release('b');
        expect(book.held).toBe(0);
      });

      test('granted again before that start is reported, the lease holds one slot and the start counts', () => {
        const book = throttledHanded();
        expect(book.grant(T0 + 5_000)).toMatchObject([{ leaseId: 'b', grant: 3 }]);
        book.report({ leaseId: 'b', grant: 2, result: 'ok', jobId: 'job-b' }, T0 + 5_001);
        expect(book.status('p', T0 + 5_001)).toMatchObject({ held: 1, starts: 1 });
      });
    });
  });
});
