import { heartbeatingCalls, serviceCalls } from '../../runtime/calls';
import { RunbookTracker, parseInput } from '../../runtime/tracker';
import type { Activities } from '../activities';
import type { Candidate } from './activities';
import { linearScanProbes, nextProbe, probeBound, searchOutcome, type Verdict } from './bisect';
import {
  CleanPointInput,
  cleanPointContract,
  type CleanPoint,
  type CleanPointResult,
  type ExaminedPoint,
} from './contract';

const service = serviceCalls<Activities>();
const heartbeating = heartbeatingCalls<Activities>();

/**
 * Finds a resource's last clean recovery point: the newest snapshot of the window that passes the check, found by
 * bisection (./bisect.ts) with queries on the snapshots, restoring nothing. Each point's check is one activity whose
 * answer is in history, so a search that resumes after a crash never asks a point again.
 */
export async function cleanPoint(raw: CleanPointInput): Promise<CleanPointResult> {
  const input = parseInput(CleanPointInput, raw);
  const tracker = new RunbookTracker(cleanPointContract, { resource: input.resourceId });
  const before = input.before ?? new Date().toISOString();

  tracker.phase('listing recovery points');
  const { candidates, checkSha256 } = await service.cleanPointCandidates({
    resourceId: input.resourceId,
    windowDays: input.windowDays,
    before,
    check: input.check,
  });
  const n = candidates.length;
  const bound = probeBound(n);

  const verdicts = new Map<number, Verdict>();
  const examined: ExaminedPoint[] = [];
  for (let index = nextProbe(n, verdicts); index !== undefined; index = nextProbe(n, verdicts)) {
    const point = candidates[index];
    if (!point) break;
    tracker.phase('checking recovery points', {
      progress: { done: examined.length, total: bound, unit: 'points (at most)' },
      detail: `checking ${point.snapshotId} (${point.pointInTime}), ${index} behind the newest of ${n}`,
    });
    const { verdict, queries } = await heartbeating.checkRecoveryPoint({
      snapshotId: point.snapshotId,
      check: input.check,
      restoreAccountId: input.restoreAccountId,
    });
    verdicts.set(index, verdict);
    examined.push({ index, ...point, verdict, queries });
  }

  const outcome = searchOutcome(n, verdicts);
  const clean = outcome.clean === 'none' ? null : pointAt(candidates, outcome.clean);
  const idOf = (index: number) => candidates[index]?.snapshotId ?? String(index);
  const checkName = input.check.name;
  const verdict = clean
    ? `clean as of ${checkName}: ${clean.snapshotId} (${clean.pointInTime}), ${clean.index} behind the newest`
    : n === 0
      ? `no recovery point in the ${input.windowDays} days before ${before}`
      : `none of the ${n} recovery points in the window is clean as of ${checkName}`;
  tracker.phase('completed', { detail: verdict });
  return {
    resourceId: input.resourceId,
    check: { name: checkName, sha256: checkSha256 },
    window: { days: input.windowDays, before, candidates: n },
    clean,
    verdict,
    examined,
    nonMonotone: outcome.nonMonotone.map((f) => ({ passed: idOf(f.passed), failedOlder: idOf(f.failedOlder) })),
    queries: {
      run: examined.reduce((sum, e) => sum + e.queries.length, 0),
      linearScan: linearScanProbes(n, outcome.clean === 'none' ? n : outcome.clean) * input.check.queries.length,
      bound: bound * input.check.queries.length,
    },
  };
}

/** The candidate at `index`, with how far it is behind the newest of the window. */
function pointAt(candidates: readonly Candidate[], index: number): CleanPoint | null {
  const found = candidates[index];
  const newest = candidates[0];
  if (!found || !newest) return null;
  const seconds = (Date.parse(newest.pointInTime) - Date.parse(found.pointInTime)) / 1000;
  return { ...found, index, behindNewest: { points: index, seconds } };
}
