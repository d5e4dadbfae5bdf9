import {
  INITIAL_LIMIT,
  MAX_PAUSE_MS,
  MIN_LIMIT,
  initialLimit,
  pausedAt,
  slotsAllowed,
  started,
  throttled,
  type SlotLimit,
} from './limits';

const T0 = 1_000_000;

function successes(state: SlotLimit, n: number): SlotLimit {
  let s = state;
  for (let i = 0; i < n; i += 1) s = started(s);
  return s;
}

/** Successes until the whole limit reaches `slots`; the count, or Infinity past `max`. */
function successesTo(state: SlotLimit, slots: number, max = 100_000): number {
  let s = state;
  for (let i = 1; i <= max; i += 1) {
    s = started(s);
    if (slotsAllowed(s) >= slots) return i;
  }
  return Infinity;
}

describe('additive increase', () => {
  test('before any 429 the limit grows by a slot per success (slow start: the cap is unknown)', () => {
    const s = initialLimit();
    expect(slotsAllowed(s)).toBe(INITIAL_LIMIT);
    expect(successesTo(s, INITIAL_LIMIT + 1)).toBe(1);
    expect(successesTo(s, 40)).toBe(30);
  });

  test('after a 429 the limit regains a slot per success up to one below the ceiling, then probes slowly', () => {
    let s = successes(initialLimit(20), 0);
    s = throttled(s, { now: T0, held: 21, running: 20, grantedAtDecrease: 0, retryAfterSeconds: 2 });
    expect(slotsAllowed(s)).toBe(10);
    expect(s.ceiling).toBe(21);
    expect(successesTo(s, 20)).toBe(10);
    const atSafe = successes(s, 10);
    // Past the ceiling's safe side: 20 successes for the 21st slot.
    expect(successesTo(atSafe, 21)).toBe(20);
  });

  test('a ceiling confirmed again is probed more seldom, up to 16 times more', () => {
    let s = initialLimit(20);
    const probes: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      s = throttled(s, { now: T0, held: 21, running: 20, grantedAtDecrease: s.decreases, retryAfterSeconds: 1 });
      s = successes(s, successesTo(s, 20));
      const probe = successesTo(s, 21);
      probes.push(probe);
      s = successes(s, probe);
    }
    expect(probes).toEqual([20, 40, 80, 160, 320, 320, 320]);
  });

  test('a ceiling within a tenth of the last one counts as the same cap', () => {
    let s = initialLimit(20);
    s = throttled(s, { now: T0, held: 21, running: 20, grantedAtDecrease: 0 });
    s = throttled(s, { now: T0, held: 23, running: 22, grantedAtDecrease: 1 });
    expect(s.probeSlowdown).toBe(2);
    s = throttled(s, { now: T0, held: 26, running: 25, grantedAtDecrease: 2 });
    expect(s.probeSlowdown).toBe(1);
  });

  test('a new ceiling resets the probe to its normal pace', () => {
    let s = initialLimit(20);
    s = throttled(s, { now: T0, held: 21, running: 20, grantedAtDecrease: 0 });
    s = throttled(s, { now: T0, held: 21, running: 20, grantedAtDecrease: 1 });
    expect(s.probeSlowdown).toBe(2);
    s = throttled(s, { now: T0, held: 40, running: 39, grantedAtDecrease: 2 });
    expect(s.probeSlowdown).toBe(1);
    expect(s.ceiling).toBe(40);
  });
});

describe('multiplicative decrease', () => {
  test('a 429 halves the limit, or the slots held when fewer were in use', () => {
    const s = initialLimit(30);
    expect(throttled(s, { now: T0, held: 30, running: 29, grantedAtDecrease: 0 }).limit).toBe(15);
    expect(throttled(s, { now: T0, held: 8, running: 7, grantedAtDecrease: 0 }).limit).toBe(4);
  });

  test('never below one slot', () => {
    let s = initialLimit(2);
    for (let i = 0; i < 5; i += 1) s = throttled(s, { now: T0, held: 1, running: 0, grantedAtDecrease: s.decreases });
    expect(s.limit).toBe(MIN_LIMIT);
    expect(slotsAllowed(s)).toBe(1);
  });

  test('429s on slots granted before the last decrease halve once, not once each', () => {
    let s = initialLimit(20);
    s = throttled(s, { now: T0, held: 20, running: 19, grantedAtDecrease: 0 });
    s = throttled(s, { now: T0, held: 19, running: 18, grantedAtDecrease: 0 });
    s = throttled(s, { now: T0, held: 18, running: 17, grantedAtDecrease: 0 });
    expect(s.limit).toBe(10);
    expect(s.decreases).toBe(1);
    // A slot granted under the halved limit that meets a 429 halves again.
    s = throttled(s, { now: T0, held: 10, running: 9, grantedAtDecrease: 1 });
    expect(s.limit).toBe(5);
  });
});

describe('the ceiling', () => {
  test('is the backups running in our slots when the 429 came, plus the refused one, not the slots granted', () => {
    // Ten slots granted at once against a cap of 5: five started, the sixth refused.
    const s = throttled(initialLimit(10), { now: T0, held: 10, running: 5, grantedAtDecrease: 0 });
    expect(s.ceiling).toBe(6);
    expect(slotsAllowed(s)).toBe(5);
    expect(successesTo(s, 6)).toBe(5);
  });

  test('429s of one episode reported before every start in between raise it to the highest count', () => {
    let s = throttled(initialLimit(10), { now: T0, held: 10, running: 3, grantedAtDecrease: 0 });
    expect(s.ceiling).toBe(4);
    s = throttled(s, { now: T0, held: 9, running: 5, grantedAtDecrease: 0 });
    expect(s.ceiling).toBe(6);
    expect(s.decreases).toBe(1);
  });
});

describe('Retry-After', () => {
  test('grants pause until the Retry-After has passed', () => {
    const s = throttled(initialLimit(), { now: T0, held: 10, running: 9, grantedAtDecrease: 0, retryAfterSeconds: 7 });
    expect(pausedAt(s, T0 + 6_999)).toBe(true);
    expect(pausedAt(s, T0 + 7_000)).toBe(false);
  });

  test('a later 429 with a shorter Retry-After does not cut the pause short', () => {
    let s = throttled(initialLimit(), { now: T0, held: 10, running: 9, grantedAtDecrease: 0, retryAfterSeconds: 30 });
    s = throttled(s, { now: T0 + 1_000, held: 5, running: 4, grantedAtDecrease: 1, retryAfterSeconds: 1 });
    expect(s.pausedUntil).toBe(T0 + 30_000);
  });

  test('a Retry-After of an hour pauses five minutes', () => {
    const s = throttled(initialLimit(), {
      now: T0,
      held: 10,
      running: 9,
      grantedAtDecrease: 0,
      retryAfterSeconds: 3600,
    });
    expect(s.pausedUntil).toBe(T0 + MAX_PAUSE_MS);
  });

  test('without one, the pause is 2 s doubling with each 429 in a row up to a minute, and a success resets it', () => {
    let s = initialLimit();
    const pauses: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      const now = T0 + i * 1_000_000;
      s = throttled(s, { now, held: 5, running: 4, grantedAtDecrease: s.decreases });
      pauses.push(s.pausedUntil - now);
    }
    expect(pauses).toEqual([2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
    s = started(s);
    const now = T0 + 10_000_000;
    expect(throttled(s, { now, held: 5, running: 4, grantedAtDecrease: s.decreases }).pausedUntil - now).toBe(2_000);
  });
});

describe('a ceiling that ages (runs from the patches on)', () => {
  const at = (seconds: number, running: number) => ({ now: T0 + seconds * 1000, running });
  /** A limiter that met a cap of 5 (5 running, one refused) several times: probing past it 16 times slower. */
  function confirmed(): SlotLimit {
    let s = initialLimit(10);
    for (let i = 0; i < 6; i += 1) {
      s = throttled(s, { now: T0, held: 6, running: 5, grantedAtDecrease: s.decreases, retryAfterSeconds: 1 }, true);
      while (slotsAllowed(s) < 5) s = started(s, at(1, 4));
    }
    return s;
  }

  test('a 429 dates its ceiling and lowers the limit to the backups running, never above half', () => {
    const s = throttled(initialLimit(20), { now: T0, held: 21, running: 5, grantedAtDecrease: 0 }, true);
    expect(s).toMatchObject({ limit: 5, ceiling: 6, ceilingAt: T0 });
    const many = throttled(initialLimit(20), { now: T0, held: 21, running: 20, grantedAtDecrease: 0 }, true);
    expect(many.limit).toBe(10);
  });

  test('within a minute of its last 429, a confirmed ceiling is probed 16 times slower', () => {
    const s = confirmed();
    expect(s.probeSlowdown).toBe(16);
    expect(started(s, at(59, 5))).toMatchObject({ probeSlowdown: 16, ceiling: 6 });
  });

  test('a minute after its last 429, it is probed at the normal pace: one slot per window of successes', () => {
    let s = started(confirmed(), at(61, 5));
    expect(s).toMatchObject({ probeSlowdown: 1, ceiling: 6 });
    let n = 1;
    while (slotsAllowed(s) < 6) {
      s = started(s, at(61, 5));
      n += 1;
    }
    expect(n).toBe(5);
  });

  test('a start that holds past the ceiling (more running than it allowed, plus one) forgets it: slow start again', () => {
    const s = started(confirmed(), at(61, 7));
    expect(s.ceiling).toBeUndefined();
    expect(s.ceilingAt).toBeUndefined();
    // A slot per success from there: from 6 (the start that forgot it added one) to 20 in 14 more.
    let next = s;
    let n = 0;
    while (slotsAllowed(next) < 20) {
      next = started(next, at(62, 8 + n));
      n += 1;
    }
    expect(n).toBe(14);
  });

  test('a ceiling no 429 confirmed for ten minutes or hours is kept, probed at the normal pace, until one holds past it', () => {
    for (const seconds of [600, 7_200]) {
      let s = started(confirmed(), at(seconds, 3), true);
      expect(s).toMatchObject({ ceiling: 6, probeSlowdown: 1 });
      let n = 1;
      while (slotsAllowed(s) < 6) {
        s = started(s, at(seconds + 1, 5), true);
        n += 1;
      }
      expect(n).toBe(5);
      expect(started(s, at(seconds + 2, 7), true).ceiling).toBeUndefined();
    }
  });

  test('a start within a tenth past a ceiling of 21 does not disprove it (runs from before: one past it did)', () => {
    const s = throttled(initialLimit(30), { now: T0, held: 30, running: 20, grantedAtDecrease: 0 }, true);
    expect(s.ceiling).toBe(21);
    expect(started(s, at(61, 23), true).ceiling).toBe(21);
    expect(started(s, at(61, 24), true).ceiling).toBeUndefined();
    expect(started(s, at(61, 22)).ceiling).toBeUndefined();
  });

  test('runs from before ceilings were kept forget one no 429 confirmed for ten minutes', () => {
    expect(started(confirmed(), at(599, 3)).ceiling).toBe(6);
    expect(started(confirmed(), at(600, 3)).ceiling).toBeUndefined();
  });

  test('runs recorded before the patch keep their ceiling and pace', () => {
    const s = throttled(initialLimit(20), { now: T0, held: 21, running: 5, grantedAtDecrease: 0 });
    expect(s).toMatchObject({ limit: 10, ceiling: 6 });
    expect(s.ceilingAt).toBeUndefined();
    expect(started(s).ceiling).toBe(6);
  });
});
