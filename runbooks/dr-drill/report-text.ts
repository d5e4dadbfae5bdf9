/**
 * The drill report's facts in words, shared by the Markdown, the HTML page and the demo, so that each says the same
 * thing the same way. Reports of schema version 2 (runs before recovery-point selection) read here too: they name the
 * restored snapshot in `snapshotId` / `snapshotPointInTime`, and measured RPO on `rpoPoint`, not on what they restored.
 */
import { feasibilityWarning } from './rotation-cadence';
import type { RotationReason } from '../../runtime/activity-deps';
import type {
  DrillReport,
  DrillResourceResult,
  DrillRotation,
  DrillSummary,
  DrillVerdict,
  RecoveryPoint,
} from './report';

/** What the RPO, RTO and newest-before figures mean, for the legend of every rendering. */
export const RPO_MEANS =
  "RPO: the drill's start minus the point in time of the recovery point restored: the data a disaster at the " +
  "drill's start would have lost, had the team restored this point.";
export const RTO_MEANS =
  'RTO: restore requested to service verified, the restore job plus its validation (SQL check or external ' +
  'verdict); the target is compared with the whole.';
export const NEWEST_BEFORE_MEANS =
  'with a fresh snapshot (taken by the drill), the newest snapshot that existed before the drill began, and its age ' +
  'then. It was not restored; it says what the kept backups would have given.';
export const NEWEST_BEFORE_TITLE = 'Newest snapshot before the drill (not restored)';

/** The restored point of a resource, whichever schema version wrote it; undefined when nothing was restored. */
export function restoredPoint(r: DrillResourceResult): RecoveryPoint | undefined {
  if (r.recoveryPoint) return r.recoveryPoint;
  if (!r.snapshotId) return undefined;
  // Version 2 knew two ways only: the drill's own backup, or a recent snapshot reused.
  return {
    snapshotId: r.snapshotId,
    pointInTime: r.snapshotPointInTime ?? '',
    selection: r.snapshotReused ? 'reused' : 'fresh',
  };
}

/**
 * Whether this resource's `rpoSeconds` was measured on `rpoPoint` (the newest snapshot before the drill) rather than
 * on the point restored: so in reports before recovery-point selection, which carry neither `recoveryPoint` nor
 * `newestBeforeDrillSeconds`.
 */
export function rpoOnNewestBefore(r: DrillResourceResult): boolean {
  return r.recoveryPoint === undefined && r.newestBeforeDrillSeconds === undefined && r.rpoPoint !== undefined;
}

/** Seconds for people: exact below two minutes, then minutes, hours or days with one decimal. */
export function duration(s: number): string {
  if (s < 120) return `${Math.round(s)} s`;
  if (s < 7200) return `${(s / 60).toFixed(1)} min`;
  if (s < 2 * 86400) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86400).toFixed(1)} d`;
}

const days = (n: number) => `${n} day${n === 1 ? '' : 's'}`;

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** How the point was chosen: "latest in 30 days", "random: 4th newest of 12 in 30 days", "fresh: taken by the drill". */
export function howChosen(p: RecoveryPoint): string {
  const window = p.windowDays === undefined ? '' : ` in ${days(p.windowDays)}`;
  switch (p.selection) {
    case 'latest':
      return `latest${window}`;
    case 'random': {
      if (!p.draw) return `random${window}`;
      const which = p.draw.index === 0 ? 'newest' : `${ordinal(p.draw.index + 1)} newest`;
      return `random: ${which} of ${p.draw.candidates}${window}`;
    }
    case 'fresh':
      return 'fresh: taken by the drill';
    case 'reused':
      return 'reused: inside the RPO target';
    case 'latest-clean': {
      const behind = p.clean ? `, ${p.clean.behindNewest.points} behind the newest` : '';
      return `latest clean${window}: clean as of ${p.clean?.check.name ?? 'its check'}${behind}`;
    }
  }
}

/** The restored point in one line: its ID, its point in time and how it was chosen. */
export function pointText(r: DrillResourceResult): string {
  const p = restoredPoint(r);
  if (!p) return 'none restored';
  return `${p.snapshotId} at ${p.pointInTime || 'an unknown time'} (${howChosen(p)})`;
}

/** Seconds for people: exact below two minutes, else a duration with the exact seconds. */
export function seconds(s: number | undefined): string {
  if (s === undefined) return 'n/a';
  return s < 120 ? `${Math.round(s)} s` : `${duration(s)} (${Math.round(s)} s)`;
}

const met = (ok: boolean | undefined) => (ok === undefined ? '' : ok ? ', target met' : ', target MISSED');

/** The RPO cell: its value against the target, and what it was measured on when that is not the point restored. */
export function rpoText(r: DrillResourceResult): string {
  if (r.rpoSeconds === undefined) return r.rpoMet === false ? 'MISSED: no recovery point to measure' : 'n/a';
  const value = `${seconds(r.rpoSeconds)}${met(r.rpoMet)}`;
  if (!rpoOnNewestBefore(r) || !r.rpoPoint) return value;
  return `${value}; measured on ${r.rpoPoint.snapshotId}, the newest snapshot before the drill, not the one restored`;
}

/** The newest snapshot before the drill, when the report names one (fresh selections, and version 2 reports). */
export function newestBeforeText(r: DrillResourceResult): string {
  if (!r.rpoPoint) return r.recoveryPoint?.selection === 'fresh' ? 'none' : '—';
  const age = r.newestBeforeDrillSeconds ?? (rpoOnNewestBefore(r) ? r.rpoSeconds : undefined);
  const old = age === undefined ? '' : `, ${seconds(age)} old`;
  return `${r.rpoPoint.snapshotId} at ${r.rpoPoint.pointInTime}${old}`;
}

/** The RTO cell: the whole against the target, and its parts (restore + validation). */
export function rtoText(r: DrillResourceResult): string {
  if (r.rtoSeconds === undefined) return 'n/a';
  // Reports before the RTO split measured the restore job alone.
  if (r.rtoRestoreSeconds === undefined) return `${seconds(r.rtoSeconds)} (restore only)${met(r.rtoMet)}`;
  const validation =
    r.rtoValidationSeconds === undefined ? 'no validation' : `validation ${seconds(r.rtoValidationSeconds)}`;
  return `${seconds(r.rtoSeconds)} = restore ${seconds(r.rtoRestoreSeconds)} + ${validation}${met(r.rtoMet)}`;
}

/** The validation cell: the SQL check and the external validation, whichever ran. */
export function validationText(r: DrillResourceResult): string {
  const parts: string[] = [];
  if (r.check) {
    const c = r.check;
    parts.push(c.status === 'notRun' ? c.detail : `SQL check ${c.passed ? 'passed' : 'FAILED'} (${c.detail})`);
  }
  const v = r.validation;
  if (v) {
    const status = v.status === 'passed' ? 'passed' : v.status === 'failed' ? 'FAILED' : 'TIMED OUT';
    // No answer: the window ran out, or the request could not be sent (its detail says why).
    const when = v.answeredAt
      ? `answered ${v.answeredAt}`
      : v.status === 'timedOut'
        ? `no answer by ${v.deadline}`
        : v.detail;
    const message = v.message ? `: "${v.message}"` : '';
    parts.push(`external validation ${status}${message} (${when})`);
  }
  return parts.length > 0 ? parts.join('; ') : 'none';
}

/** The backup job cell: the drill's own backup, or why there was none. */
export function backupJobText(r: DrillResourceResult): string {
  const job = r.backupJobId ? `${r.backupJobId}${r.backupStatus ? ` (${r.backupStatus})` : ''}` : undefined;
  if (job) return job;
  const selection = restoredPoint(r)?.selection;
  if (selection === 'latest' || selection === 'random') return 'none: an existing snapshot';
  return r.snapshotReused ? 'none: reused snapshot' : 'n/a';
}

/** The restore job cell, with how it ended. */
export function restoreJobText(r: DrillResourceResult): string {
  if (!r.restoreJobId) return 'n/a';
  return `${r.restoreJobId}${r.restoreStatus ? ` (${r.restoreStatus})` : ''}`;
}

/** Whether the cell holds a problem, for the page's emphasis. */
export function validationFailed(r: DrillResourceResult): boolean {
  return r.check?.status === 'failed' || (r.validation !== undefined && r.validation.status !== 'passed');
}

const RANK: Record<DrillVerdict, number> = { FAIL: 0, PARTIAL: 1, PASS: 2 };

/** Failed first, then partial, then passed; the report's order within each, so that a long report opens on its news. */
export function readingOrder(resources: DrillResourceResult[]): DrillResourceResult[] {
  return resources
    .map((r, i) => ({ r, i }))
    .sort((a, b) => RANK[a.r.verdict] - RANK[b.r.verdict] || a.i - b.i)
    .map(({ r }) => r);
}

/** "3 passed, 1 partial, 2 failed of 6"; reports before the PARTIAL verdict have no partial count. */
export function countsText(s: DrillSummary): string {
  const partial = s.partial === undefined ? '' : `, ${s.partial} partial`;
  return `${s.passed} passed${partial}, ${s.failed} failed of ${s.total}`;
}

/** The verdict line that heads each rendering. */
export function verdictLine(report: DrillReport): string {
  return `${report.summary.verdict}: ${countsText(report.summary)}`;
}

const ROTATION_REASONS: [RotationReason, string][] = [
  ['failed-last', 'failed last'],
  ['never-drilled', 'never drilled'],
  ['never-passed', 'never passed'],
  ['oldest-pass', 'oldest verified PASS'],
];

/** A rotating drill's run in one line: how many of its scope it took, by the rule, and why each group; then whether it
 * runs often enough to cover its scope in the period. */
export function rotationText(rotation: DrillRotation): string {
  const { scope, perRun, withinDays, picked, feasibility } = rotation;
  const why = ROTATION_REASONS.map(([reason, words]) => {
    const n = picked.filter((p) => p.reason === reason).length;
    return n > 0 ? `${n} ${words}` : undefined;
  }).filter((x) => x !== undefined);
  const warning = feasibilityWarning(rotation);
  const cadence = warning
    ? `WARNING: ${warning}`
    : feasibility
      ? `${feasibility.runsInPeriod} runs in the period (by its ${feasibility.basis === 'schedule' ? 'schedule' : 'last runs'}) cover it`
      : 'how often it runs is not known yet (no schedule started it, and it has run once or never)';
  return (
    `${picked.length} of a scope of ${scope.toLocaleString('en')} (at most ${perRun} a run, every resource within ` +
    `${withinDays} days)${why.length > 0 ? `: ${why.join(', ')}` : ''}; ${cadence}`
  );
}
