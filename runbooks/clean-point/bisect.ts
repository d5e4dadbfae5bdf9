// The search for a resource's last clean recovery point, as a pure state machine over candidate indexes 0..n-1
// (0 = the newest snapshot of the window). Workflow code imports it: everything is derived from the arguments alone,
// so a run that replays with the verdicts it recorded asks for the same probes again.
//
// Corruption is usually monotone in time (once it starts, every later snapshot has it), so the search bisects for
// the boundary between failing (newer) and passing (older) points, then checks the answer's older neighbour. A pass
// newer than a fail among the checked points is reported as a non-monotone finding, not an error.
//
// Limit: bisection sees only what it checks. A fail among points it never probed (an isolated corrupt snapshot far
// older than the answer, a pass hidden among newer fails) goes unseen; only a linear scan of every point is a full
// check, at up to n probes instead of ⌈log2 n⌉ + 1.

export type Verdict = 'pass' | 'fail';

/** What is known: a verdict per checked index. A record serves workflow state that must survive as JSON. */
export type Verdicts = ReadonlyMap<number, Verdict> | Readonly<Record<number, Verdict>>;

/** A pass newer than a fail: corruption that went away, or a check that is not monotone. */
export interface NonMonotoneFinding {
  /** The index that passed. */
  passed: number;
  /** The nearest checked index older than `passed`; it failed. */
  failedOlder: number;
}

export interface SearchOutcome {
  /**
   * The newest point judged clean: it passed, and its newer neighbour failed (or it is the newest of the window).
   * `'none'` when every probe down to the oldest point failed, or when the window is empty.
   */
  clean: number | 'none';
  /** How many points were checked: the queries' cost, at most `probeBound(n)` for a search `nextProbe` drove. */
  probes: number;
  /** The checked indexes, ascending (newest first). */
  checked: number[];
  /**
   * Each checked pass whose nearest older checked point failed, newest first. Empty exactly when the checked verdicts
   * are monotone; points never checked are not judged (see the limit above).
   */
  nonMonotone: NonMonotoneFinding[];
}

/** The most probes `nextProbe` asks for over n candidates: ⌈log2 n⌉ + 1 (1 for n = 1), or 0 for an empty window. */
export function probeBound(n: number): number {
  checkCount(n);
  if (n === 0) return 0;
  let log = 0;
  while (2 ** log < n) log++;
  return log + 1;
}

/**
 * The index to check next, or `undefined` once the search is done.
 *
 * Bisection runs between a virtual fail above the newest (-1) and a virtual pass past the oldest (n, "none clean"),
 * probing floor((lo + hi) / 2). Its answer a has a failing newer neighbour a - 1 by construction (the last `lo`), so
 * only the older neighbour a + 1 is left to confirm.
 *
 * Why the confirmation stays within ⌈log2 n⌉ + 1: bisecting n + 1 possible answers takes at most ⌈log2(n + 1)⌉
 * probes, more than ⌈log2 n⌉ only when n is a power of two. Then the floor midpoint leaves the larger half on the
 * older side, so the one path that long fails at every probe and ends at n - 1 or none: no older neighbour to check.
 */
export function nextProbe(n: number, verdicts: Verdicts): number | undefined {
  const known = knownVerdicts(n, verdicts);
  const { lo, hi } = bisect(n, known);
  if (hi - lo > 1) return midpoint(lo, hi);
  // Both neighbours, in general; the newer one (lo) has always been checked already.
  for (const neighbour of [hi - 1, hi + 1]) {
    if (neighbour >= 0 && neighbour < n && !known.has(neighbour)) return neighbour;
  }
  return undefined;
}

/** The result of a finished search; throws while `nextProbe` still has a point to check. */
export function searchOutcome(n: number, verdicts: Verdicts): SearchOutcome {
  const pending = nextProbe(n, verdicts);
  if (pending !== undefined) throw new Error(`the search is not done: index ${pending} is still to be checked`);
  const known = knownVerdicts(n, verdicts);
  const { hi } = bisect(n, known);
  const checked = [...known.keys()].sort((a, b) => a - b);
  const nonMonotone: NonMonotoneFinding[] = [];
  checked.forEach((index, i) => {
    const older = checked[i + 1];
    if (older !== undefined && known.get(index) === 'pass' && known.get(older) === 'fail') {
      nonMonotone.push({ passed: index, failedOlder: older });
    }
  });
  return { clean: hi === n ? 'none' : hi, probes: checked.length, checked, nonMonotone };
}

/**
 * Where the search stands: the last clean point is older than `oldestFailed` (the boundary's failing side, when one
 * was checked) and no older than `newestPassed` (its passing side). For a search stopped before it was done.
 */
export function searchBracket(n: number, verdicts: Verdicts): { oldestFailed?: number; newestPassed?: number } {
  const { lo, hi } = bisect(n, knownVerdicts(n, verdicts));
  return { ...(lo >= 0 ? { oldestFailed: lo } : {}), ...(hi < n ? { newestPassed: hi } : {}) };
}

/**
 * How many checks a linear scan from the newest needs when the first k points fail and the rest pass: k + 1, or n
 * when none passes. For comparing with the bisection.
 */
export function linearScanProbes(n: number, k: number): number {
  checkCount(n);
  if (!Number.isInteger(k) || k < 0 || k > n) throw new RangeError(`k must be an integer in 0..${n}, got ${k}`);
  return k < n ? k + 1 : n;
}

/** Walks the bisection as far as the verdicts go: at the end, hi - lo === 1 and hi is the answer. */
function bisect(n: number, known: ReadonlyMap<number, Verdict>): { lo: number; hi: number } {
  let lo = -1;
  let hi = n;
  while (hi - lo > 1) {
    const mid = midpoint(lo, hi);
    const verdict = known.get(mid);
    if (verdict === undefined) break;
    if (verdict === 'fail') lo = mid;
    else hi = mid;
  }
  return { lo, hi };
}

function midpoint(lo: number, hi: number): number {
  return Math.floor((lo + hi) / 2);
}

function checkCount(n: number): void {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`n must be a non-negative integer, got ${n}`);
}

/** The verdicts as a map, refusing an index outside the window: it would mean verdicts of another window. */
function knownVerdicts(n: number, verdicts: Verdicts): ReadonlyMap<number, Verdict> {
  checkCount(n);
  const entries: [number, Verdict][] = isMap(verdicts)
    ? [...verdicts.entries()]
    : Object.entries(verdicts).map(([key, verdict]): [number, Verdict] => [Number(key), verdict]);
  for (const [index, verdict] of entries) {
    if (!Number.isInteger(index) || index < 0 || index >= n) {
      throw new RangeError(`a verdict for index ${index} is outside the window of ${n} candidates`);
    }
    if (verdict !== 'pass' && verdict !== 'fail') {
      throw new RangeError(`the verdict for index ${index} is neither 'pass' nor 'fail'`);
    }
  }
  return new Map(entries);
}

function isMap(verdicts: Verdicts): verdicts is ReadonlyMap<number, Verdict> {
  return verdicts instanceof Map;
}
