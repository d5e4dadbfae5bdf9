// The readiness score: one figure from 0 to 100 per drill scope and for the estate, computed from the drill reports
// alone, by the formula docs/operations/readiness.md publishes. Pure: from DrillEntry[] and a `now`; anyone holding
// the reports recomputes it (`runbooks evidence score`). Every input only counts PASSes whose report verifies, and
// each part can only fall when a verified PASS is taken away or a failure is added (test/history/readiness.test.ts).
import {
  DAY_MS,
  DEFAULT_COVERAGE_DAYS,
  drillsInScope,
  isVerifiedPass,
  pointMsOf,
  resultsByResource,
  type CoverageResult,
} from './coverage';
import type { DrillEntry } from './drill-index';

/** The weights of the four parts, in points out of 100. */
export const READINESS_WEIGHTS = { coverage: 40, passShare: 30, rtoMargin: 20, freshness: 10 } as const;

/** The percentile of the RTO ratio the margin is judged at. */
export const RTO_PERCENTILE = 95;
/** An RTO at or under this share of its target earns the margin's full credit; at or over the target, none. */
export const RTO_FULL_CREDIT_RATIO = 0.5;

/** What a score is computed from, so that anyone can recompute it. Ratios are 0 to 1. */
export interface ReadinessInputs {
  /** Resources in scope: every resource the reports in scope name. */
  inScope: number;
  /** Resources with a verified PASS within the period. */
  covered: number;
  /** covered / inScope. */
  coverage: number;
  /** Resources whose newest result within the period is a verified PASS. */
  latestPassed: number;
  /** latestPassed / inScope. */
  passShare: number;
  /**
   * The 95th percentile (nearest rank) over the resources in scope of each one's RTO ratio: its shortest RTO among
   * its verified PASSes within the period, over that drill's RTO target. Absent when that percentile falls on a
   * resource without one (no verified PASS with an RTO within the period: infinitely late).
   */
  rtoP95Ratio?: number;
  /** Resources with no verified PASS with an RTO within the period. */
  withoutRto: number;
  /** clamp((1 - rtoP95Ratio) / (1 - 0.5), 0, 1): 1 at half the target or better, 0 at the target or worse. */
  rtoMargin: number;
  /**
   * The mean over the resources in scope of each one's freshness: for its newest verified recovery point, 1 while
   * the point's age is within the RPO target, falling linearly to 0 when it is a whole period older than that.
   */
  freshness: number;
}

export interface ReadinessScore {
  /** `estate` for every drill, else the drill's name. */
  scope: string;
  /** 0 to 100, one decimal: the weighted sum of the four parts. */
  score: number;
  inputs: ReadinessInputs;
}

export interface ReadinessReport {
  now: string;
  withinDays: number;
  since: string;
  weights: typeof READINESS_WEIGHTS;
  estate: ReadinessScore;
  /** One per drill name, by name. */
  drills: ReadinessScore[];
}

export interface ReadinessOptions {
  now: Date;
  /** The period (default 90 days). */
  withinDays?: number;
}

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));
const ratio = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);

/** The nearest-rank percentile of `values` (Infinity stands for a resource with no figure). */
export function nearestRank(values: readonly number[], percentile: number): number {
  if (values.length === 0) return Number.POSITIVE_INFINITY;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((percentile / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

/** A result's RTO over its target; a target of 0 is met only by an RTO of 0. */
function rtoRatio(r: CoverageResult): number {
  if (r.rtoSeconds === undefined) return Number.POSITIVE_INFINITY;
  if (r.rtoTargetSeconds === 0) return r.rtoSeconds === 0 ? 0 : Number.POSITIVE_INFINITY;
  return r.rtoSeconds / r.rtoTargetSeconds;
}

/** A verified PASS's freshness at `nowMs`: 1 while its point is within the RPO target, 0 a period past it. */
function freshnessOf(r: CoverageResult, nowMs: number, periodMs: number): number {
  const pointMs = pointMsOf(r);
  if (pointMs === undefined) return 0;
  const ageMs = Math.max(0, nowMs - pointMs);
  return clamp01(1 - (ageMs - r.rpoTargetSeconds * 1000) / periodMs);
}

/**
 * The score of one scope: the resources `drills` name (or `scope`, a fixed list: those no report names count as
 * nothing proven). An empty scope scores 0.
 */
export function readinessOf(
  drills: readonly DrillEntry[],
  options: ReadinessOptions & { name?: string; scope?: readonly string[] },
): ReadinessScore {
  const nowMs = options.now.getTime();
  const periodMs = (options.withinDays ?? DEFAULT_COVERAGE_DAYS) * DAY_MS;
  const sinceMs = nowMs - periodMs;
  const byResource = resultsByResource(drills);
  // In one order whatever the history's: a sum in another order can differ in its last bit.
  const ids = (options.scope ? [...new Set(options.scope)] : [...byResource.keys()]).sort();

  let covered = 0;
  let latestPassed = 0;
  let withoutRto = 0;
  let freshnessSum = 0;
  const rtoRatios: number[] = [];
  for (const id of ids) {
    const results = byResource.get(id)?.results ?? [];
    const inPeriod = results.filter((r) => Date.parse(r.finishedAt) >= sinceMs);
    const passesInPeriod = inPeriod.filter(isVerifiedPass);
    if (passesInPeriod.length > 0) covered++;
    const newest = inPeriod[inPeriod.length - 1];
    if (newest && isVerifiedPass(newest)) latestPassed++;
    // The shortest RTO proven within the period: the newest would let the removal of a slow drill raise the score.
    const best = Math.min(...passesInPeriod.map(rtoRatio));
    if (best === Number.POSITIVE_INFINITY) withoutRto++;
    rtoRatios.push(best);
    // The freshest verified point: with one RPO target, the newest; the best credit when targets differ.
    freshnessSum += Math.max(0, ...results.filter(isVerifiedPass).map((r) => freshnessOf(r, nowMs, periodMs)));
  }
  const inScope = ids.length;
  const p95 = nearestRank(rtoRatios, RTO_PERCENTILE);
  const inputs: ReadinessInputs = {
    inScope,
    covered,
    coverage: ratio(covered, inScope),
    latestPassed,
    passShare: ratio(latestPassed, inScope),
    ...(Number.isFinite(p95) ? { rtoP95Ratio: p95 } : {}),
    withoutRto,
    rtoMargin: inScope === 0 ? 0 : clamp01((1 - p95) / (1 - RTO_FULL_CREDIT_RATIO)),
    freshness: ratio(freshnessSum, inScope),
  };
  return { scope: options.name ?? 'estate', score: scoreOf(inputs), inputs };
}

/** The weighted sum of the parts, rounded to one decimal (rounding never reverses an order). */
export function scoreOf(inputs: ReadinessInputs): number {
  const w = READINESS_WEIGHTS;
  const points =
    w.coverage * inputs.coverage +
    w.passShare * inputs.passShare +
    w.rtoMargin * inputs.rtoMargin +
    w.freshness * inputs.freshness;
  return Math.round(points * 10) / 10;
}

/** The estate's score (every report) and each drill's (its reports, the resources they name), at `now`. */
export function readiness(drills: readonly DrillEntry[], options: ReadinessOptions): ReadinessReport {
  const withinDays = options.withinDays ?? DEFAULT_COVERAGE_DAYS;
  const names = [...new Set(drills.map((d) => d.name))].sort();
  return {
    now: options.now.toISOString(),
    withinDays,
    since: new Date(options.now.getTime() - withinDays * DAY_MS).toISOString(),
    weights: READINESS_WEIGHTS,
    estate: readinessOf(drills, { ...options, withinDays }),
    drills: names.map((name) => readinessOf(drillsInScope(drills, name), { ...options, withinDays, name })),
  };
}
