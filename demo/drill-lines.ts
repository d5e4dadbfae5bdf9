import type { DrillResourceResult } from '../runbooks/dr-drill/report';
import { howChosen, restoredPoint, rpoOnNewestBefore } from '../runbooks/dr-drill/report-text';

/** Seconds in a line of the demo: whole seconds, minutes or hours, days with one decimal. */
export function short(s: number | undefined): string {
  if (s === undefined) return 'n/a';
  if (s < 120) return `${Math.round(s)} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 2 * 86400) return `${Math.round(s / 3600)} h`;
  return `${(s / 86400).toFixed(1)} d`;
}

const met = (ok: boolean | undefined) => (ok === undefined ? '' : ok ? ' (met)' : ' (MISSED)');

/**
 * One resource of a drill, as the demo prints it: the verdict, the recovery point restored and how it was chosen, RPO
 * on that point, RTO as restore plus validation, the validation, and why it did not pass.
 * `PASS    AWS_RDS  orders-db  point snap-1 (latest in 30 days, 35 h old)  RPO 35 h (met)  RTO 12 s = restore 8 s + validation 4 s (met)`
 */
export function resourceLine(r: DrillResourceResult): string {
  const p = restoredPoint(r);
  const age = p?.selection === 'fresh' ? 'taken by the drill' : `${short(r.rpoSeconds)} old`;
  const point = p
    ? `point ${p.snapshotId} (${howChosen(p).replace(': taken by the drill', '')}, ${age})`
    : 'no point restored';
  const rto =
    r.rtoSeconds === undefined
      ? 'RTO n/a'
      : r.rtoRestoreSeconds === undefined
        ? `RTO ${short(r.rtoSeconds)}, restore only${met(r.rtoMet)}`
        : `RTO ${short(r.rtoSeconds)} = restore ${short(r.rtoRestoreSeconds)} + ${r.rtoValidationSeconds === undefined ? 'no validation' : `validation ${short(r.rtoValidationSeconds)}`}${met(r.rtoMet)}`;
  // Reports before recovery-point selection measured RPO on the newest snapshot before the drill, not on this point.
  const rpoOn = rpoOnNewestBefore(r) && r.rpoPoint ? ` on ${r.rpoPoint.snapshotId}, the newest before the drill` : '';
  const parts = [
    `${r.verdict.padEnd(7)} ${r.resourceType}`,
    r.resourceName,
    point,
    `RPO ${short(r.rpoSeconds)}${met(r.rpoMet)}${rpoOn}`,
    rto,
  ];
  if (r.rpoPoint && r.newestBeforeDrillSeconds !== undefined) {
    const age = short(r.newestBeforeDrillSeconds);
    parts.push(`newest snapshot before the drill ${r.rpoPoint.snapshotId}, ${age} old (not restored)`);
  }
  // A check that could not run says why, as the report does, rather than FAILED.
  if (r.check) {
    parts.push(
      r.check.status === 'notRun' ? r.check.detail : `check ${r.check.passed ? 'passed' : 'FAILED'}: ${r.check.detail}`,
    );
  }
  if (r.validation)
    parts.push(`validation ${r.validation.status}${r.validation.message ? `: ${r.validation.message}` : ''}`);
  if (r.verdict !== 'PASS' && r.reasons.length > 0) parts.push(r.reasons.join('; '));
  return parts.join('  ');
}
