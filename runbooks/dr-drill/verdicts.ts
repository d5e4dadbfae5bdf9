import type { DrillResourceResult, DrillSummary } from './report';

export interface VerdictRules {
  targets: { rpoSeconds: number; rtoSeconds: number };
  /** A resource the SQL check could not run on fails. */
  requireChecks: boolean;
  /** The restore, or the snapshot it came from, ended partial. */
  partial: boolean;
}

/**
 * A restored resource's RTO (restore plus validation, against the target), the reasons it did not pass and its
 * verdict: PASS when every target and validation held, PARTIAL when they held on partial data, FAIL otherwise.
 */
export function concludeResource(result: DrillResourceResult, rules: VerdictRules): DrillResourceResult {
  const { targets } = rules;
  if (result.rtoRestoreSeconds !== undefined) {
    result.rtoSeconds = result.rtoRestoreSeconds + (result.rtoValidationSeconds ?? 0);
    result.rtoMet = result.rtoSeconds <= targets.rtoSeconds;
  }
  const { check, validation } = result;
  if (result.rpoMet === false) result.reasons.push(rpoMissed(result, targets.rpoSeconds));
  if (result.rtoMet === false) result.reasons.push(rtoMissed(result, targets.rtoSeconds));
  if (check?.status === 'failed') result.reasons.push(`check failed: ${check.detail}`);
  if (check?.status === 'notRun') {
    result.reasons.push(rules.requireChecks ? `${check.detail} (requireChecks)` : check.detail);
  }
  if (validation && validation.status !== 'passed') result.reasons.push(validation.detail);
  const checkHeld =
    check === undefined || check.status === 'passed' || (check.status === 'notRun' && !rules.requireChecks);
  const validated = validation === undefined || validation.status === 'passed';
  const held = result.rpoMet !== false && result.rtoMet !== false && checkHeld && validated;
  result.verdict = !held ? 'FAIL' : rules.partial ? 'PARTIAL' : 'PASS';
  return result;
}

/** The drill's totals: PASS only when every resource passed; FAIL when any failed (or none was drilled). */
export function summarize(results: DrillResourceResult[]): DrillSummary {
  const passed = results.filter((r) => r.verdict === 'PASS').length;
  const partial = results.filter((r) => r.verdict === 'PARTIAL').length;
  const failed = results.length - passed - partial;
  const rpos = results.flatMap((r) => (r.rpoSeconds === undefined ? [] : [r.rpoSeconds]));
  const rtos = results.flatMap((r) => (r.rtoSeconds === undefined ? [] : [r.rtoSeconds]));
  return {
    total: results.length,
    passed,
    partial,
    failed,
    verdict: failed > 0 || results.length === 0 ? 'FAIL' : partial > 0 ? 'PARTIAL' : 'PASS',
    worstRpoSeconds: rpos.length ? Math.max(...rpos) : undefined,
    worstRtoSeconds: rtos.length ? Math.max(...rtos) : undefined,
  };
}

function rpoMissed(r: DrillResourceResult, targetSeconds: number): string {
  const point = r.recoveryPoint;
  const against = point ? ` (recovery point ${point.snapshotId} at ${point.pointInTime})` : '';
  return `RPO ${Math.round(r.rpoSeconds ?? 0)} s over target ${targetSeconds} s${against}`;
}

function rtoMissed(r: DrillResourceResult, targetSeconds: number): string {
  const parts =
    r.rtoValidationSeconds === undefined
      ? ''
      : ` (restore ${Math.round(r.rtoRestoreSeconds ?? 0)} s + validation ${Math.round(r.rtoValidationSeconds)} s)`;
  return `RTO ${Math.round(r.rtoSeconds ?? 0)} s over target ${targetSeconds} s${parts}`;
}
