import type { RotationReason } from '../../runtime/activity-deps';
import type { DrillCounts } from '../../contracts';

/** The drill's evidence: built by the workflow, written to files by an activity. */

/** Why a check could not run on a resource: the drill says so rather than passing it silently. */
export type CheckStatus = 'passed' | 'failed' | 'notRun';

export interface DrillCheckResult {
  query: string;
  expectation: string;
  /** Rows the query returned; absent when it did not run or did not finish. */
  rows?: number;
  /** Whether the check ran and held: false when it failed, and when it could not run. */
  passed: boolean;
  status: CheckStatus;
  detail: string;
}

/** The check's cell in the Markdown and HTML tables. */
export function checkText(check: DrillCheckResult | undefined): string {
  if (!check) return 'none';
  if (check.status === 'notRun') return check.detail;
  return `${check.passed ? 'passed' : 'FAILED'} (${check.detail})`;
}

/** PARTIAL: the restore (or the backup it came from) ended partial; never counted as passed. */
export type DrillVerdict = 'PASS' | 'PARTIAL' | 'FAIL';

/** The recovery point a drill restored, and how it was chosen. */
export interface RecoveryPoint {
  snapshotId: string;
  /** The snapshot's point in time: what it holds, and what RPO is measured on. */
  pointInTime: string;
  /**
   * `latest` / `random`: an existing snapshot of the window; `fresh`: taken by the drill; `reused`: an existing one
   * inside the RPO target, with `fresh` and `reuseRecentSnapshot`.
   */
  selection: 'latest' | 'random' | 'fresh' | 'reused' | 'latest-clean';
  /** With `latest`, `random` and `latest-clean`: the window looked in, back from the drill's start. */
  windowDays?: number;
  /** With `random`: how many snapshots the window held, and which was drawn (0 is the newest). */
  draw?: { candidates: number; index: number };
  /** With `latest-clean`: the search that chose it, and how far it is behind the newest point of the window. */
  clean?: CleanSearch & { behindNewest: { points: number; seconds: number } };
}

/** A cleanPoint search of a drill (`latest-clean`): what "clean" was judged by, and every point it examined. */
export interface CleanSearch {
  /** The check's name and the sha256 of its canonical text; `by` restores when the drill's validation judged. */
  check: { name: string; sha256: string; by?: 'queries' | 'restores' };
  /** "clean as of <check>: …", or that none of the window is. */
  verdict: string;
  candidates: number;
  examined: { snapshotId: string; pointInTime: string; verdict: 'pass' | 'fail' }[];
  /** Queries run on the snapshots. */
  queries: number;
  /** Restores made, one per point examined, when the search was by the drill's validation. */
  restores?: number;
  nonMonotone: { passed: string; failedOlder: string }[];
}

/** A validation asked of someone outside the drill (`runbooks drill validate`), for any resource type. */
export interface DrillValidationResult {
  status: 'passed' | 'failed' | 'timedOut';
  /** When the drill asked (workflow time), and the window's end. */
  requestedAt: string;
  deadline: string;
  /** When the verdict came; absent when it timed out. */
  answeredAt?: string;
  /** The validator's message, as given. */
  message?: string;
  detail: string;
}

export interface DrillResourceResult {
  resourceId: string;
  resourceName: string;
  resourceType: string;
  /** The recovery point restored. Absent when none was found or the backup failed. */
  recoveryPoint?: RecoveryPoint;
  /** With `latest-clean` when no point of the window passed: the search, which found none. */
  cleanSearch?: CleanSearch;
  /** Reports of runs before recovery-point selection: the snapshot restored. Same as `recoveryPoint`'s. */
  snapshotId?: string;
  snapshotPointInTime?: string;
  snapshotReused: boolean;
  backupJobId?: string;
  restoreJobId?: string;
  backupStatus?: string;
  restoreStatus?: string;
  restoreStatusMessage?: string;
  /** The drill's start minus the restored recovery point's point in time (0 for a snapshot the drill took). */
  rpoSeconds?: number;
  /**
   * With `fresh`: the newest snapshot before the drill began, and its age at the drill's start. Reported apart: it is
   * not what the drill restored. (Reports before recovery-point selection measured RPO on it.)
   */
  rpoPoint?: { snapshotId: string; pointInTime: string };
  newestBeforeDrillSeconds?: number;
  /** Restore requested to service verified: `rtoRestoreSeconds` plus `rtoValidationSeconds`. */
  rtoSeconds?: number;
  /** The restore job, created to ended, on the service's clock. */
  rtoRestoreSeconds?: number;
  /** The validation (SQL check or external verdict), asked to answered, on the drill's clock. */
  rtoValidationSeconds?: number;
  rpoMet?: boolean;
  rtoMet?: boolean;
  /** The SQL check: the built-in validation of relational databases. */
  check?: DrillCheckResult;
  /** The external validation, for resources the SQL check does not cover. */
  validation?: DrillValidationResult;
  verdict: DrillVerdict;
  reasons: string[];
}

// The counts a drill's notification carries too: contracts/ defines them, as it imports nothing of ours.
export type { DrillCounts };

export interface DrillSummary extends DrillCounts {
  /** PASS only when every resource passed; FAIL when one or more failed; PARTIAL otherwise. */
  verdict: DrillVerdict;
}

/** The version of `drill-report.schema.json` the written JSON follows; bump both together. */
export const DRILL_REPORT_SCHEMA_VERSION = 3;

export interface DrillReport {
  /** Stamped by the activity that writes the files (runs that started before it existed have none in history). */
  schemaVersion?: number;
  name: string;
  workflowId: string;
  runId: string;
  startedAt: string;
  finishedAt: string;
  targets: { rpoSeconds: number; rtoSeconds: number };
  resources: DrillResourceResult[];
  summary: DrillSummary;
  /** A rotating drill's run (`coverage`): its scope, and whom it took and why. */
  rotation?: DrillRotation;
}

/** Where the evidence was written: JSON for machines, Markdown and a self-contained HTML page for people. */
export interface DrillReportPaths {
  json: string;
  markdown: string;
  /** Absent in results of runs that ended before the page existed. */
  html?: string;
}

/** A rotating drill's run (`coverage`): its scope, the period, how many a run drills, and whom it took and why. */
export interface DrillRotation {
  /** Resources the selection resolved to at this run. */
  scope: number;
  withinDays: number;
  perRun: number;
  picked: { resourceId: string; reason: RotationReason; lastPassAt?: string }[];
  /**
   * Every resource of the scope, sorted: those no report has drilled yet count as never drilled in `runbooks
   * coverage` and the gauges, which otherwise know only the resources reports name.
   */
  scopeIds?: string[];
  /** Whether the drill, run as often as it runs, covers its scope within the period; absent when that is not known. */
  feasibility?: RotationFeasibility;
}

/** How often a rotating drill runs, and whether perRun × its runs in the period reach its scope. */
export interface RotationFeasibility {
  /** Where the cadence comes from: the schedule that started the run, or the spacing of the drill's last runs. */
  basis: 'schedule' | 'recent-runs';
  everySeconds: number;
  runsInPeriod: number;
  covers: boolean;
  /** The perRun that would cover the scope at this cadence. */
  perRunNeeded: number;
}
