// Which resources of a drill's scope the next run drills, when it drills at most `perRun` of them (`coverage:
// {withinDays, perRun}`). Pure: from the coverage of each resource (./coverage.ts), itself from the sealed reports
// alone. Whether such runs cover the scope in the period is runbooks/dr-drill/rotation-cadence.ts.
//
// The order, and why:
// 1. Resources whose last result failed: a failure is re-checked at the next run, not after the whole estate.
// 2. Resources never drilled, then drilled but never with a verified PASS: nothing proves them restorable.
// 3. The others, oldest verified PASS first: the one closest to falling overdue goes first.
// Ties by resource ID, so that every attempt of a run picks the same resources.
import type { RotationReason } from '../runtime/activity-deps';
import type { ResourceCoverage } from './coverage';

export type { RotationReason };

export interface RotationPick {
  resourceId: string;
  reason: RotationReason;
  /** With `oldest-pass`: when its last verified PASS finished. */
  lastPassAt?: string;
}

const RANK: Record<RotationReason, number> = {
  'failed-last': 0,
  'never-drilled': 1,
  'never-passed': 2,
  'oldest-pass': 3,
};

function reasonOf(r: ResourceCoverage): RotationReason {
  if (r.neverDrilled) return 'never-drilled';
  if (r.lastFailed && r.lastPass) return 'failed-last';
  if (!r.lastPass) return r.lastFailed ? 'failed-last' : 'never-passed';
  return 'oldest-pass';
}

/** The next `perRun` resources to drill, in the order above. */
export function nextToDrill(coverage: readonly ResourceCoverage[], perRun: number): RotationPick[] {
  const ranked = coverage.map((r) => {
    const reason = reasonOf(r);
    // A failure is re-checked oldest first too: the one that has waited longest.
    const at = reason === 'oldest-pass' ? r.lastPass?.finishedAt : r.lastResult?.finishedAt;
    return { r, reason, ms: at === undefined ? 0 : Date.parse(at) };
  });
  ranked.sort((a, b) => RANK[a.reason] - RANK[b.reason] || a.ms - b.ms || a.r.resourceId.localeCompare(b.r.resourceId));
  return ranked.slice(0, Math.max(0, perRun)).map(({ r, reason }) => ({
    resourceId: r.resourceId,
    reason,
    ...(reason === 'oldest-pass' && r.lastPass ? { lastPassAt: r.lastPass.finishedAt } : {}),
  }));
}
