// Coverage and freshness per resource, from the drill reports alone: when each resource in scope last passed a drill
// whose report verifies, how old its recovery point was, and when it is next due. Pure: from DrillEntry[] and a `now`.
// The rotation (which resources to drill next), the console's page and the metrics read it as it is.
import type { DrillVerdict } from '../runbooks/dr-drill/report';
import type { DrillEntry, SealStatus } from './drill-index';

export const DAY_MS = 86_400_000;
export const DEFAULT_COVERAGE_DAYS = 90;

/** A resource's drill in one report. */
export interface CoverageResult {
  /** The report's base name in drill-reports/ (`<workflowId>--<runId>`). */
  file: string;
  drill: string;
  workflowId: string;
  runId: string;
  startedAt: string;
  finishedAt: string;
  /** The resource's own result in the report. */
  verdict: DrillVerdict;
  seal: SealStatus;
  /** Its recovery point's age when the drill started: its RPO. */
  rpoSeconds?: number;
  rtoSeconds?: number;
  /** The drill's targets. */
  rpoTargetSeconds: number;
  rtoTargetSeconds: number;
}

/**
 * Where a resource stands: `covered` (a verified PASS within the period), `overdue` (its last verified PASS is older
 * than the period), `never-passed` (drilled, never with a verified PASS), `never-drilled` (no report in scope names it).
 */
export type CoverageState = 'covered' | 'overdue' | 'never-passed' | 'never-drilled';

export interface ResourceCoverage {
  resourceId: string;
  /** As the newest report naming it says; absent for a resource of the given scope that no report names. */
  resourceName?: string;
  resourceType?: string;
  /** Its newest PASS in a report whose seal verifies; absent when it has none. */
  lastPass?: CoverageResult;
  /** Its newest result in any readable report (verified or not): what happened last. */
  lastResult?: CoverageResult;
  /** Its newest result is not a PASS in a report that verifies. */
  lastFailed: boolean;
  /** Its last verified PASS plus the period; `now` when it has none (due now). */
  nextDue: string;
  state: CoverageState;
  overdue: boolean;
  neverDrilled: boolean;
  /**
   * How old, at `now`, the newest recovery point proven restorable is: the point of its last verified PASS (the
   * drill's start less its RPO). Absent without a verified PASS with a measured RPO.
   */
  verifiedPointAgeSeconds?: number;
}

export interface CoverageCounts {
  inScope: number;
  /** With a verified PASS within the period. */
  covered: number;
  overdue: number;
  neverDrilled: number;
  /** Drilled, never with a verified PASS: due now, as a resource never drilled. */
  neverPassed: number;
  /** Whose newest result is not a verified PASS, whatever their state. */
  failedLast: number;
}

export interface CoverageReport {
  now: string;
  withinDays: number;
  /** The start of the period: a PASS finished before it does not cover. */
  since: string;
  /** The drill named, when the scope is one drill's. */
  drill?: string;
  /** Overdue first (longest overdue first), then due now, then by next due date. */
  resources: ResourceCoverage[];
  counts: CoverageCounts;
}

export interface CoverageOptions {
  now: Date;
  /** The period every resource must pass within (default 90 days). */
  withinDays?: number;
  /** Only this drill's reports count, and the scope is the resources they name. */
  drill?: string;
  /**
   * The resources in scope (a selection resolved against the inventory): those no report names are `never-drilled`.
   * Default: with `drill`, the scope its newest rotating run recorded; otherwise every resource the reports name.
   */
  scope?: readonly string[];
}

/**
 * A rotating drill's period and scope as its newest report that records them says (`rotation`): the scope its
 * selection resolved to then, those never drilled included. Undefined for a drill that does not rotate.
 */
export function rotationOf(drills: readonly DrillEntry[], drill: string): DrillEntry['rotation'] {
  let newest: DrillEntry | undefined;
  for (const d of drills) {
    if (d.name === drill && d.rotation && (!newest || d.finishedMs > newest.finishedMs)) newest = d;
  }
  return newest?.rotation;
}

/** A PASS counts as evidence only when its report's seal and chain verify: anyone could have written the file. */
export const isVerifiedPass = (r: CoverageResult): boolean => r.verdict === 'PASS' && r.seal === 'verified';

/** The reports a drill filter keeps. */
export const drillsInScope = (drills: readonly DrillEntry[], drill?: string): DrillEntry[] =>
  drill === undefined ? [...drills] : drills.filter((d) => d.name === drill);

/** Each resource's results, oldest first (ties by file), with the name and type of its newest report. */
export function resultsByResource(
  drills: readonly DrillEntry[],
): Map<string, { name: string; type: string; results: CoverageResult[] }> {
  const ordered = [...drills].sort((a, b) => a.finishedMs - b.finishedMs || a.file.localeCompare(b.file));
  const byResource = new Map<string, { name: string; type: string; results: CoverageResult[] }>();
  for (const d of ordered) {
    for (const r of d.resources) {
      const entry = byResource.get(r.resourceId) ?? { name: r.resourceName, type: r.resourceType, results: [] };
      entry.name = r.resourceName;
      entry.type = r.resourceType;
      entry.results.push({
        file: d.file,
        drill: d.name,
        workflowId: d.workflowId,
        runId: d.runId,
        startedAt: d.startedAt,
        finishedAt: d.finishedAt,
        verdict: r.verdict,
        seal: d.seal.status,
        ...(r.rpoSeconds === undefined ? {} : { rpoSeconds: r.rpoSeconds }),
        ...(r.rtoSeconds === undefined ? {} : { rtoSeconds: r.rtoSeconds }),
        rpoTargetSeconds: d.targets.rpoSeconds,
        rtoTargetSeconds: d.targets.rtoSeconds,
      });
      byResource.set(r.resourceId, entry);
    }
  }
  return byResource;
}

/** When a verified result's recovery point was taken: the drill's start less its RPO (undefined without an RPO). */
export const pointMsOf = (r: CoverageResult): number | undefined =>
  r.rpoSeconds === undefined ? undefined : Date.parse(r.startedAt) - r.rpoSeconds * 1000;

const STATE_ORDER: Record<CoverageState, number> = { overdue: 0, 'never-drilled': 1, 'never-passed': 2, covered: 3 };

/** Coverage and freshness of every resource in scope at `now`, from the drill reports (DrillReader's entries). */
export function coverageByResource(drills: readonly DrillEntry[], options: CoverageOptions): CoverageReport {
  const nowMs = options.now.getTime();
  const withinDays = options.withinDays ?? DEFAULT_COVERAGE_DAYS;
  const periodMs = withinDays * DAY_MS;
  const sinceMs = nowMs - periodMs;
  const byResource = resultsByResource(drillsInScope(drills, options.drill));
  const scope =
    options.scope ?? (options.drill === undefined ? undefined : rotationOf(drills, options.drill)?.scopeIds);
  const ids = scope ? [...new Set(scope)] : [...byResource.keys()];

  const resources = ids.map((resourceId): ResourceCoverage & { dueMs: number } => {
    const entry = byResource.get(resourceId);
    const results = entry?.results ?? [];
    const lastResult = results[results.length - 1];
    const lastPass = [...results].reverse().find(isVerifiedPass);
    const passMs = lastPass ? Date.parse(lastPass.finishedAt) : undefined;
    const dueMs = passMs === undefined ? nowMs : passMs + periodMs;
    const state: CoverageState =
      passMs !== undefined
        ? passMs >= sinceMs
          ? 'covered'
          : 'overdue'
        : lastResult === undefined
          ? 'never-drilled'
          : 'never-passed';
    const pointMs = lastPass ? pointMsOf(lastPass) : undefined;
    return {
      resourceId,
      ...(entry ? { resourceName: entry.name, resourceType: entry.type } : {}),
      ...(lastPass ? { lastPass } : {}),
      ...(lastResult ? { lastResult } : {}),
      lastFailed: lastResult !== undefined && !isVerifiedPass(lastResult),
      nextDue: new Date(dueMs).toISOString(),
      state,
      overdue: state === 'overdue',
      neverDrilled: state === 'never-drilled',
      ...(pointMs === undefined ? {} : { verifiedPointAgeSeconds: Math.max(0, (nowMs - pointMs) / 1000) }),
      dueMs,
    };
  });
  resources.sort(
    (a, b) =>
      STATE_ORDER[a.state] - STATE_ORDER[b.state] || a.dueMs - b.dueMs || a.resourceId.localeCompare(b.resourceId),
  );
  const count = (state: CoverageState) => resources.filter((r) => r.state === state).length;
  return {
    now: options.now.toISOString(),
    withinDays,
    since: new Date(sinceMs).toISOString(),
    ...(options.drill === undefined ? {} : { drill: options.drill }),
    resources: resources.map(({ dueMs: _dueMs, ...r }) => r),
    counts: {
      inScope: resources.length,
      covered: count('covered'),
      overdue: count('overdue'),
      neverDrilled: count('never-drilled'),
      neverPassed: count('never-passed'),
      failedLast: resources.filter((r) => r.lastFailed).length,
    },
  };
}
