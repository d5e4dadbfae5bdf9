// Per resource trends over the drills, and which resources were not drilled within a period. Pure: from an index.
import type { DrillVerdict } from '../runbooks/dr-drill/report';
import type { DrillEntry } from './drill-index';

export const DEFAULT_TREND_DRILLS = 10;
export const DEFAULT_PERIOD_DAYS = 90;
const DAY_MS = 86_400_000;

/** One drill of one resource. */
export interface TrendPoint {
  /** The report's base name. */
  file: string;
  drill: string;
  finishedAt: string;
  rpoSeconds?: number;
  rtoSeconds?: number;
  rpoTargetSeconds: number;
  rtoTargetSeconds: number;
  rpoMet?: boolean;
  rtoMet?: boolean;
  verdict: DrillVerdict;
}

export interface ResourceTrend {
  resourceId: string;
  /** As the newest report names it. */
  resourceName: string;
  resourceType: string;
  /** The last N drills of the resource, oldest first. */
  points: TrendPoint[];
  /** Drills of the resource in all the reports read. */
  drillCount: number;
  lastDrilledAt: string;
  lastVerdict: DrillVerdict;
}

/** Per resource, its RTO and RPO over its last `lastN` drills (default 10), most recently drilled first. */
export function resourceTrends(drills: readonly DrillEntry[], lastN = DEFAULT_TREND_DRILLS): ResourceTrend[] {
  const byResource = new Map<string, { points: TrendPoint[]; name: string; type: string; ms: number }>();
  // Oldest first, so that the name of the newest report wins and points end up in time order.
  const ordered = [...drills].sort((a, b) => a.finishedMs - b.finishedMs || a.file.localeCompare(b.file));
  for (const d of ordered) {
    for (const r of d.resources) {
      const entry = byResource.get(r.resourceId) ?? { points: [], name: r.resourceName, type: r.resourceType, ms: 0 };
      entry.points.push({
        file: d.file,
        drill: d.name,
        finishedAt: d.finishedAt,
        rpoSeconds: r.rpoSeconds,
        rtoSeconds: r.rtoSeconds,
        rpoTargetSeconds: d.targets.rpoSeconds,
        rtoTargetSeconds: d.targets.rtoSeconds,
        rpoMet: r.rpoMet,
        rtoMet: r.rtoMet,
        verdict: r.verdict,
      });
      Object.assign(entry, { name: r.resourceName, type: r.resourceType, ms: d.finishedMs });
      byResource.set(r.resourceId, entry);
    }
  }
  return [...byResource.entries()]
    .map(([resourceId, e]) => {
      const last = e.points[e.points.length - 1] as TrendPoint;
      return {
        resourceId,
        resourceName: e.name,
        resourceType: e.type,
        points: e.points.slice(-Math.max(1, lastN)),
        drillCount: e.points.length,
        lastDrilledAt: last.finishedAt,
        lastVerdict: last.verdict,
        ms: e.ms,
      };
    })
    .sort((a, b) => b.ms - a.ms || a.resourceId.localeCompare(b.resourceId))
    .map(({ ms: _ms, ...trend }) => trend);
}

/** A resource the team has, as something other than a drill report names it. */
export interface KnownResource {
  resourceId: string;
  resourceName?: string;
  resourceType?: string;
}

export interface Coverage {
  periodDays: number;
  /** The start of the period: drills finished before it do not count. */
  since: string;
  /** Known resources that no drill report names. */
  neverDrilled: KnownResource[];
  /** Resources drilled before, but not since `since`: their last drill. */
  notWithinPeriod: ResourceTrend[];
  /** Resources drilled within the period. */
  drilledWithinPeriod: number;
}

/**
 * Which resources were never drilled, or not within `periodDays` (default 90) before `now`. "The resources a team
 * has" are those the drills themselves named plus `known`: the caller's inventory when it has one (the service's
 * listing), else the resources the posture reports list. Without an inventory a resource that is protected, has a
 * fresh snapshot and was never drilled is named nowhere on disk, so `neverDrilled` can only be as complete as `known`.
 */
export function coverage(
  trends: readonly ResourceTrend[],
  known: readonly KnownResource[],
  now: Date,
  periodDays = DEFAULT_PERIOD_DAYS,
): Coverage {
  const sinceMs = now.getTime() - periodDays * DAY_MS;
  const drilled = new Set(trends.map((t) => t.resourceId));
  const seen = new Set<string>();
  const neverDrilled = known.filter((k) => {
    if (drilled.has(k.resourceId) || seen.has(k.resourceId)) return false;
    seen.add(k.resourceId);
    return true;
  });
  const notWithinPeriod = trends
    .filter((t) => Date.parse(t.lastDrilledAt) < sinceMs)
    .sort((a, b) => Date.parse(a.lastDrilledAt) - Date.parse(b.lastDrilledAt));
  return {
    periodDays,
    since: new Date(sinceMs).toISOString(),
    neverDrilled: neverDrilled.sort((a, b) => a.resourceId.localeCompare(b.resourceId)),
    notWithinPeriod,
    drilledWithinPeriod: trends.length - notWithinPeriod.length,
  };
}
