// What makes a report of thousands of resources readable: the worst of those that did not pass, named first, and
// the counts per resource type. Reports of a few resources read as before.
import type { DrillReport, DrillResourceResult, DrillVerdict } from './report';

/** Past this many resources not passed, the report names the worst this many first; the table lists them all. */
export const WORST_SHOWN = 20;
/** From this many resources on, a report counts them per resource type. */
export const BY_TYPE_FROM = 50;

const RANK: Record<DrillVerdict, number> = { FAIL: 0, PARTIAL: 1, PASS: 2 };

/**
 * How far a resource missed its targets: the larger of RTO and RPO over their targets (1 = just met). A resource with
 * neither measured (no recovery point, or no restore) missed by the most.
 */
function overshoot(r: DrillResourceResult, targets: DrillReport['targets']): number {
  if (r.rtoSeconds === undefined && r.rpoSeconds === undefined) return Number.POSITIVE_INFINITY;
  return Math.max((r.rtoSeconds ?? 0) / targets.rtoSeconds, (r.rpoSeconds ?? 0) / targets.rpoSeconds);
}

/** The resources that did not pass, the worst first: FAIL before PARTIAL, then by how far they missed their targets. */
export function worstFirst(report: DrillReport): DrillResourceResult[] {
  return report.resources
    .filter((r) => r.verdict !== 'PASS')
    .map((r, i) => ({ r, i, by: overshoot(r, report.targets) }))
    .sort((a, b) => RANK[a.r.verdict] - RANK[b.r.verdict] || b.by - a.by || a.i - b.i)
    .map(({ r }) => r);
}

export interface TypeCounts {
  resourceType: string;
  total: number;
  passed: number;
  partial: number;
  failed: number;
}

/** Counts per resource type, the types with most failures first; empty for reports of fewer than BY_TYPE_FROM. */
export function countsByType(resources: DrillResourceResult[]): TypeCounts[] {
  if (resources.length < BY_TYPE_FROM) return [];
  const byType = new Map<string, TypeCounts>();
  for (const r of resources) {
    const counts = byType.get(r.resourceType) ?? {
      resourceType: r.resourceType,
      total: 0,
      passed: 0,
      partial: 0,
      failed: 0,
    };
    counts.total += 1;
    if (r.verdict === 'PASS') counts.passed += 1;
    else if (r.verdict === 'PARTIAL') counts.partial += 1;
    else counts.failed += 1;
    byType.set(r.resourceType, counts);
  }
  return [...byType.values()].sort(
    (a, b) => b.failed - a.failed || b.partial - a.partial || a.resourceType.localeCompare(b.resourceType),
  );
}

/** The heading of the list of resources that did not pass: all of them, or the worst WORST_SHOWN. */
export function notPassedHeading(notPassed: number): string {
  return notPassed > WORST_SHOWN ? `Worst offenders (${WORST_SHOWN} of ${notPassed} not passed)` : 'Not passed';
}

/** Under the worst offenders: where the others are. */
export function othersNote(notPassed: number): string | undefined {
  if (notPassed <= WORST_SHOWN) return undefined;
  return `The other ${notPassed - WORST_SHOWN} resources that did not pass head the table below, with their reasons.`;
}
