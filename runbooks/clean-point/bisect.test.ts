import { linearScanProbes, nextProbe, probeBound, searchBracket, searchOutcome, type Verdict } from './bisect';

/** Drives the search as the workflow does, against verdicts given per index; returns the probes in order. */
function run(n: number, verdictOf: (index: number) => Verdict) {
  const verdicts = new Map<number, Verdict>();
  const order: number[] = [];
  for (let probe = nextProbe(n, verdicts); probe !== undefined; probe = nextProbe(n, verdicts)) {
    // A probe out of the window or asked twice would loop forever or waste a query.
    if (probe < 0 || probe >= n || verdicts.has(probe))
      throw new Error(`n ${n}: bad probe ${probe} after ${order.join()}`);
    order.push(probe);
    verdicts.set(probe, verdictOf(probe));
  }
  return { order, verdicts, outcome: searchOutcome(n, verdicts) };
}

/** The first k indexes fail, the rest pass. */
const monotone = (k: number) => (index: number) => (index < k ? 'fail' : 'pass');

/** Fails at the given indexes, passes elsewhere. */
const failingAt = (indexes: number[]) => (index: number) => (indexes.includes(index) ? 'fail' : 'pass');

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('monotone patterns, exhaustively', () => {
  test('every n in 1..130 and every k in 0..n: the boundary is found within ⌈log2 n⌉ + 1 probes', () => {
    // Problems are collected and compared once: some 8,500 searches, each named in a failure.
    const problems: string[] = [];
    for (let n = 1; n <= 130; n++) {
      for (let k = 0; k <= n; k++) {
        const { order, verdicts, outcome } = run(n, monotone(k));
        const found = (problem: string) => problems.push(`n ${n}, k ${k}: ${problem} (probes ${order.join()})`);
        if (outcome.clean !== (k === n ? 'none' : k)) found(`clean ${outcome.clean}`);
        if (outcome.probes !== order.length || outcome.probes > probeBound(n)) found(`${outcome.probes} probes`);
        if (outcome.nonMonotone.length > 0) found('non-monotone');
        if (outcome.checked.join() !== [...order].sort((a, b) => a - b).join())
          found(`checked ${outcome.checked.join()}`);
        // Both neighbours of the answer are checked: the newer failed, the older passed.
        if (k > 0 && verdicts.get(k - 1) !== 'fail') found('newer neighbour not seen failing');
        if (k < n - 1 && verdicts.get(k + 1) !== 'pass') found('older neighbour not seen passing');
        // The confirmation never takes a search past the bound: a bisection of the bound's length (n a power of two)
        // ends at the oldest point or none, with no older neighbour. Its last probe is its final lo or hi (k - 1 or
        // k), so a last probe at k + 1 is the confirmation.
        const bisection = order.length - (order.at(-1) === k + 1 ? 1 : 0);
        if (bisection === probeBound(n) && k < n - 1) found(`a bisection of ${bisection} probes ends at ${k}`);
      }
    }
    expect(problems).toEqual([]);
  });

  test('the bound as the formula gives it: 1 for n = 1, 4 for 8, 6 for 32, 8 for 128, and it is reached', () => {
    const worst = (n: number) => Math.max(...range(0, n + 1).map((k) => run(n, monotone(k)).outcome.probes));
    expect([1, 8, 32, 128].map(probeBound)).toEqual([1, 4, 6, 8]);
    expect([1, 8, 32, 128].map(worst)).toEqual([1, 4, 6, 8]);
    expect([0, 2, 3, 5, 33, 100].map(probeBound)).toEqual([0, 2, 3, 4, 7, 8]);
  });

  test('32 candidates: every answer in at most 6 probes, against up to 32 for a linear scan', () => {
    const bisection = range(0, 33).map((k) => run(32, monotone(k)).outcome.probes);
    const linear = range(0, 33).map((k) => linearScanProbes(32, k));
    expect(Math.max(...bisection)).toBe(6);
    expect(Math.max(...linear)).toBe(32);
    // A linear scan wins only when the answer is among the newest four points.
    expect(range(0, 33).filter((k) => linear[k]! < bisection[k]!)).toEqual([0, 1, 2, 3]);
  });
});

describe('replay', () => {
  test('after a crash, the verdicts recorded so far give the same next probe', () => {
    const { order, verdicts } = run(32, failingAt([...range(0, 13), 14]));
    order.forEach((probe, i) => {
      const recorded = new Map(order.slice(0, i).map((index) => [index, verdicts.get(index)!]));
      expect(nextProbe(32, recorded)).toBe(probe);
    });
  });

  test('a record of verdicts, in any key order, is read as the map is', () => {
    const { order, verdicts, outcome } = run(50, monotone(37));
    const record: Record<number, Verdict> = {};
    for (const index of [...order].reverse()) record[index] = verdicts.get(index)!;
    expect(nextProbe(50, record)).toBeUndefined();
    expect(searchOutcome(50, record)).toEqual(outcome);
    const [first, second, third] = order as [number, number, number];
    const partial: Record<number, Verdict> = { [second]: verdicts.get(second)!, [first]: verdicts.get(first)! };
    expect(nextProbe(50, partial)).toBe(third);
  });
});

describe('non-monotone patterns', () => {
  test('every pattern of n in 1..12: within the bound, and the answer passed with its newer neighbour failing', () => {
    // The bisection's path depends only on the verdicts it probes, so the bound holds whatever the pattern.
    const problems: string[] = [];
    for (let n = 1; n <= 12; n++) {
      for (let pattern = 0; pattern < 2 ** n; pattern++) {
        const { order, verdicts, outcome } = run(n, (index) => ((pattern >> index) & 1 ? 'fail' : 'pass'));
        const found = (problem: string) => problems.push(`n ${n}, pattern ${pattern}: ${problem} (${order.join()})`);
        if (outcome.probes > probeBound(n)) found(`${outcome.probes} probes`);
        const { clean } = outcome;
        if (clean === 'none' && verdicts.get(n - 1) !== 'fail') found('none, with the oldest not seen failing');
        if (clean !== 'none' && verdicts.get(clean) !== 'pass') found(`clean ${clean} not seen passing`);
        if (clean !== 'none' && clean > 0 && verdicts.get(clean - 1) !== 'fail') found(`clean ${clean}, newer passes`);
        const olderFailed = clean !== 'none' && verdicts.get(clean + 1) === 'fail';
        const reported = outcome.nonMonotone.some((f) => f.passed === clean && f.failedOlder === clean + 1);
        if (olderFailed !== reported) found(`older neighbour's fail ${reported ? 'reported wrongly' : 'not reported'}`);
      }
    }
    expect(problems).toEqual([]);
  });

  test('a fail older than the answer is reported with the pass it contradicts', () => {
    const { order, outcome } = run(32, failingAt([...range(0, 13), 14]));
    expect(order).toEqual([15, 7, 11, 13, 12, 14]);
    expect(outcome).toEqual({
      clean: 13,
      probes: 6,
      checked: [7, 11, 12, 13, 14, 15],
      nonMonotone: [{ passed: 13, failedOlder: 14 }],
    });
  });

  test('a pass among newer fails can be the answer: it passed and its newer neighbour failed', () => {
    const { outcome } = run(32, failingAt(range(0, 21).filter((index) => index !== 15)));
    expect(outcome.clean).toBe(15);
    expect(outcome.nonMonotone).toEqual([{ passed: 15, failedOlder: 16 }]);
  });

  test('an anomaly the bisection does not probe is not seen: an isolated fail far older than the answer', () => {
    const { outcome } = run(32, failingAt([...range(0, 13), 28]));
    expect(outcome.clean).toBe(13);
    expect(outcome.checked).not.toContain(28);
    expect(outcome.nonMonotone).toEqual([]);
  });

  test('every pass newer than a fail among the verdicts is reported, checked by the search or not', () => {
    // Verdicts beyond the search's own (an earlier full scan, say): each pass whose nearest older checked point failed.
    const verdicts = new Map<number, Verdict>([
      [2, 'pass'],
      [3, 'fail'],
      [5, 'pass'],
      [6, 'fail'],
      [7, 'fail'],
    ]);
    expect(nextProbe(8, verdicts)).toBe(4);
    verdicts.set(4, 'pass');
    expect(nextProbe(8, verdicts)).toBeUndefined();
    expect(searchOutcome(8, verdicts)).toEqual({
      clean: 4,
      probes: 6,
      checked: [2, 3, 4, 5, 6, 7],
      nonMonotone: [
        { passed: 2, failedOlder: 3 },
        { passed: 5, failedOlder: 6 },
      ],
    });
  });
});

describe('edges and misuse', () => {
  test('an empty window is done at once, with nothing clean', () => {
    expect(nextProbe(0, new Map())).toBeUndefined();
    expect(searchOutcome(0, {})).toEqual({ clean: 'none', probes: 0, checked: [], nonMonotone: [] });
  });

  test('one candidate: one probe either way', () => {
    expect(run(1, monotone(0)).outcome).toEqual({ clean: 0, probes: 1, checked: [0], nonMonotone: [] });
    expect(run(1, monotone(1)).outcome).toEqual({ clean: 'none', probes: 1, checked: [0], nonMonotone: [] });
  });

  test('the outcome is refused while a point is still to be checked', () => {
    expect(() => searchOutcome(32, new Map([[15, 'pass']]))).toThrow('index 7 is still to be checked');
  });

  test('verdicts of another window and bad counts are refused', () => {
    expect(() => nextProbe(8, new Map([[8, 'pass']]))).toThrow('index 8 is outside the window of 8 candidates');
    expect(() => nextProbe(8, new Map([[-1, 'fail']]))).toThrow('outside the window');
    expect(() => nextProbe(8, { 1.5: 'fail' })).toThrow('outside the window');
    expect(() => nextProbe(8, JSON.parse('{"3":"ok"}') as Record<number, Verdict>)).toThrow(
      "neither 'pass' nor 'fail'",
    );
    expect(() => nextProbe(-1, new Map())).toThrow(RangeError);
    expect(() => nextProbe(2.5, new Map())).toThrow(RangeError);
  });

  test('a linear scan checks k + 1 points, or all n when none passes', () => {
    expect([0, 13, 31, 32].map((k) => linearScanProbes(32, k))).toEqual([1, 14, 32, 32]);
    expect(linearScanProbes(0, 0)).toBe(0);
    expect(() => linearScanProbes(32, 33)).toThrow(RangeError);
    // As a scan from the newest, stopping at the first pass, counts them.
    for (let n = 1; n <= 40; n++) {
      for (let k = 0; k <= n; k++) {
        const scanned = range(0, n).findIndex((index) => monotone(k)(index) === 'pass');
        expect(linearScanProbes(n, k)).toBe(scanned === -1 ? n : scanned + 1);
      }
    }
  });
});

describe('searchBracket: what a search stopped early knows', () => {
  test('nothing checked: nothing known', () => {
    expect(searchBracket(8, new Map())).toEqual({});
  });

  test('a pass at the midpoint, then a fail newer: the last clean point is older than the fail, no older than the pass', () => {
    expect(
      searchBracket(
        8,
        new Map<number, Verdict>([
          [3, 'pass'],
          [1, 'fail'],
        ]),
      ),
    ).toEqual({
      oldestFailed: 1,
      newestPassed: 3,
    });
  });

  test('only fails so far: no pass is known', () => {
    expect(searchBracket(8, { 3: 'fail', 5: 'fail' })).toEqual({ oldestFailed: 5 });
  });

  test('a verdict off the bisection path does not move the bracket', () => {
    // 6 is never probed first: the path starts at 3, unknown here.
    expect(searchBracket(8, { 6: 'pass' })).toEqual({});
  });
});
