/**
 * The history of an output folder (RUNBOOKS_OUTPUT_DIR): drill and recovery plan reports with their seals verified,
 * posture reports and exports, read from the files the runs leave, so that it is the same whichever worker wrote them
 * to a shared folder.
 * Read incrementally: keep one `HistoryIndex` per folder and call `read()` per answer.
 */
import type { KeyObject } from 'node:crypto';
import { DrillReader, type DrillIndex } from './drill-index';
import { ExportReader, type ExportEntry } from './exports';
import { PlanReader, type PlanIndex } from './plan-index';
import { PostureReader, type PostureEntry } from './posture';
import { coverage, resourceTrends, type Coverage, type KnownResource, type ResourceTrend } from './trends';

export type { DrillEntry, DrillIndex, KeySource, SealCheck, SealStatus } from './drill-index';
export type { DrillCleanEntry, DrillResourceEntry, SkippedReport } from './drill-files';
export type { ExportEntry, ExportKind } from './exports';
export type { PlanEntry, PlanIndex } from './plan-index';
export type { PostureCount, PostureEntry } from './posture';
export type { Coverage, KnownResource, ResourceTrend, TrendPoint } from './trends';
export { renderPostureChart, renderTrendChart, type PostureDimension } from './charts';
export { DEFAULT_PERIOD_DAYS, DEFAULT_TREND_DRILLS } from './trends';
export {
  coverageByResource,
  DEFAULT_COVERAGE_DAYS,
  type CoverageCounts,
  type CoverageOptions,
  type CoverageReport,
  type CoverageResult,
  type CoverageState,
  type ResourceCoverage,
} from './coverage';
export {
  readiness,
  readinessOf,
  READINESS_WEIGHTS,
  type ReadinessInputs,
  type ReadinessReport,
  type ReadinessScore,
} from './readiness';

export interface HistoryOptions {
  outputDir: string;
  /** Keys obtained out of band; without them, the public keys beside the reports (see DrillIndex.keySource). */
  publicKeys?: KeyObject[];
  /** Exports listed, newest first (default 50). */
  exportLimit?: number;
}

export interface History {
  drills: DrillIndex;
  plans: PlanIndex;
  /** Oldest first. */
  posture: PostureEntry[];
  /** Newest first. */
  exports: ExportEntry[];
  readAt: string;
}

export class HistoryIndex {
  private readonly drillReader: DrillReader;
  private readonly planReader: PlanReader;
  private readonly postureReader: PostureReader;
  private readonly exportReader: ExportReader;
  private pending?: Promise<History>;

  constructor(private readonly options: HistoryOptions) {
    this.drillReader = new DrillReader(options);
    this.planReader = new PlanReader(options);
    this.postureReader = new PostureReader(options.outputDir);
    this.exportReader = new ExportReader(options.outputDir);
  }

  /** The folder as it is now. Calls made while a read is under way share it: nothing is verified twice at once. */
  read(): Promise<History> {
    this.pending ??= this.readNow().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** The chains the last read verified; the others came from the cache. */
  get lastVerifiedChains(): readonly string[] {
    return this.drillReader.lastVerified;
  }

  private async readNow(): Promise<History> {
    const [drills, plans, posture, exports] = await Promise.all([
      this.drillReader.read(),
      this.planReader.read(),
      this.postureReader.read(),
      this.exportReader.read(this.options.exportLimit),
    ]);
    return { drills, plans, posture, exports, readAt: new Date().toISOString() };
  }
}

/** Per resource RTO and RPO over its last `lastN` drills. */
export function trendsOf(history: History, lastN?: number): ResourceTrend[] {
  return resourceTrends(history.drills.drills, lastN);
}

/**
 * Resources never drilled, or not within `periodDays`. Without `inventory` (the service's resource listing, when
 * the caller has one), the resources a team has are those the drills name plus those the newest posture report lists
 * (its unprotected and stale resources): a never-drilled resource that is protected and fresh is then not found.
 */
export function coverageOf(
  history: History,
  options: { now?: Date; periodDays?: number; inventory?: readonly KnownResource[]; lastN?: number } = {},
): Coverage & { knownFrom: 'inventory' | 'posture-lists' } {
  const known = options.inventory ?? history.posture.at(-1)?.listed ?? [];
  return {
    ...coverage(trendsOf(history, options.lastN), known, options.now ?? new Date(), options.periodDays),
    knownFrom: options.inventory ? 'inventory' : 'posture-lists',
  };
}
