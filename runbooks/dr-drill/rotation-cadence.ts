// Whether a rotating drill (`coverage: {withinDays, perRun}`) can cover its scope within the period: perRun × the runs
// it gets in the period must reach the scope. How often it runs comes from its schedule when a schedule started it
// (the schedule says when it will run next), otherwise from the spacing of its last runs (the evidence says when it
// ran); a first run started by hand has neither, and the drill says it cannot tell yet.
import type { RotationFeasibility } from './report';

const DAY_MS = 86_400_000;

/**
 * Whether `runs` runs of `perRun` cover a scope of `scope` resources, and the `perRun` that would. A resource failing
 * again and again takes a place at every run, so the figure assumes none does.
 */
export function rotationCovers(scope: number, perRun: number, runs: number): { covers: boolean; perRunNeeded: number } {
  const perRunNeeded = runs > 0 ? Math.ceil(scope / runs) : scope;
  return { covers: perRun * Math.max(0, runs) >= scope, perRunNeeded };
}

/** The median gap between consecutive times (ms), ignoring their order; undefined with fewer than two. */
export function medianGapMs(timesMs: readonly number[]): number | undefined {
  const sorted = [...timesMs].sort((a, b) => a - b);
  const gaps = sorted.slice(1).map((t, i) => t - (sorted[i] ?? t));
  if (gaps.length === 0) return undefined;
  gaps.sort((a, b) => a - b);
  const mid = Math.floor(gaps.length / 2);
  const median = gaps.length % 2 === 1 ? (gaps[mid] ?? 0) : ((gaps[mid - 1] ?? 0) + (gaps[mid] ?? 0)) / 2;
  return median > 0 ? median : undefined;
}

/** The feasibility of a rotation that runs every `gapMs` (undefined when nothing says how often it runs). */
export function rotationFeasibility(input: {
  scope: number;
  perRun: number;
  withinDays: number;
  cadence?: { gapMs: number; basis: RotationFeasibility['basis'] };
}): RotationFeasibility | undefined {
  if (!input.cadence) return undefined;
  const { gapMs, basis } = input.cadence;
  // Runs a day apart are 90 in 90 days though each started a few seconds late: a gap of an hour or more counts in
  // whole minutes, a shorter one in whole seconds.
  const seconds = gapMs / 1000;
  const everySeconds = Math.max(1, seconds >= 3_600 ? Math.round(seconds / 60) * 60 : Math.round(seconds));
  const runsInPeriod = Math.floor((input.withinDays * DAY_MS) / (everySeconds * 1000));
  const { covers, perRunNeeded } = rotationCovers(input.scope, input.perRun, runsInPeriod);
  return { basis, everySeconds, runsInPeriod, covers, perRunNeeded };
}

/** What a drill that cannot cover its scope says, at its start and in its report. */
export function feasibilityWarning(rotation: {
  scope: number;
  perRun: number;
  withinDays: number;
  feasibility?: RotationFeasibility;
}): string | undefined {
  const f = rotation.feasibility;
  if (!f || f.covers) return undefined;
  return (
    `this rotation cannot cover its scope within ${rotation.withinDays} days: ${rotation.perRun} a run × ` +
    `${f.runsInPeriod} runs (one every ${everyText(f.everySeconds)}, by its ${f.basis === 'schedule' ? 'schedule' : 'last runs'}) ` +
    `< ${rotation.scope.toLocaleString('en')} resources; perRun ${f.perRunNeeded} would`
  );
}

function everyText(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} day${seconds === 86_400 ? '' : 's'}`;
  if (seconds % 3_600 === 0) return `${seconds / 3_600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}
