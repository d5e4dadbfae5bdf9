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

export interface DrillResourceResult {
  resourceId: string;
  resourceName: string;
  resourceType: string;
  snapshotId?: string;
  snapshotPointInTime?: string;
  snapshotReused: boolean;
  backupJobId?: string;
  restoreJobId?: string;
  backupStatus?: string;
  restoreStatus?: string;
  restoreStatusMessage?: string;
  /**
   * The data-loss window the drill demonstrates: drill start minus `rpoPoint`'s point in time. Runs from before
   * `rpoPoint` existed measured the drilled snapshot instead, clamped at 0.
   */
  rpoSeconds?: number;
  /** The newest snapshot whose point in time is before the drill began: what a disaster then would have restored. */
  rpoPoint?: { snapshotId: string; pointInTime: string };
  /** Restore start to restore job end. */
  rtoSeconds?: number;
  rpoMet?: boolean;
  rtoMet?: boolean;
  check?: DrillCheckResult;
  verdict: 'PASS' | 'FAIL';
  reasons: string[];
}

export interface DrillSummary {
  total: number;
  passed: number;
  failed: number;
  verdict: 'PASS' | 'FAIL';
  worstRpoSeconds?: number;
  worstRtoSeconds?: number;
}

/** The version of `drill-report.schema.json` the written JSON follows; bump both together. */
export const DRILL_REPORT_SCHEMA_VERSION = 2;

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
}

/** Where the evidence was written: JSON for machines, Markdown and a self-contained HTML page for people. */
export interface DrillReportPaths {
  json: string;
  markdown: string;
  /** Absent in results of runs that ended before the page existed. */
  html?: string;
}
