/** The drill's evidence: built by the workflow, written to files by an activity. */

export interface DrillCheckResult {
  query: string;
  expectation: string;
  rows?: number;
  passed: boolean;
  detail: string;
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
  /** Drill start minus the snapshot's point in time. */
  rpoSeconds?: number;
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

export interface DrillReport {
  name: string;
  workflowId: string;
  runId: string;
  startedAt: string;
  finishedAt: string;
  targets: { rpoSeconds: number; rtoSeconds: number };
  resources: DrillResourceResult[];
  summary: DrillSummary;
}
