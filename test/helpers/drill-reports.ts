// Drill reports as the activity writes them, one of each kind of resource result: for the renderers' and the schema's
// tests. `v3Report` covers every selection, verdict and validation; `v2Report` is a report of a run before
// recovery-point selection (RPO measured on the newest snapshot before the drill, the restore alone as RTO).
import type { DrillReport, DrillResourceResult } from '../../runbooks/dr-drill/report';

const START = '2026-11-25T01:00:00.000Z';

/** The newest snapshot of the last 30 days, 35 hours old; a SQL check in 4 s after an 8 s restore. */
export const latestPassed: DrillResourceResult = {
  resourceId: 'r-latest',
  resourceName: 'orders-db',
  resourceType: 'AWS_RDS',
  recoveryPoint: {
    snapshotId: 'snap-latest',
    pointInTime: '2026-11-23T14:00:00.000Z',
    selection: 'latest',
    windowDays: 30,
  },
  snapshotReused: false,
  restoreJobId: 'restore-latest',
  restoreStatus: 'JOB_COMPLETED',
  rpoSeconds: 126_000,
  rpoMet: true,
  rtoSeconds: 12,
  rtoRestoreSeconds: 8,
  rtoValidationSeconds: 4,
  rtoMet: true,
  check: {
    query: 'SELECT 1',
    expectation: 'rows >= 1',
    rows: 3,
    passed: true,
    status: 'passed',
    detail: '3 rows; expected rows >= 1',
  },
  verdict: 'PASS',
  reasons: [],
};

/** Drawn at random, the 4th newest of 12; the restore ended partial. */
export const randomPartial: DrillResourceResult = {
  resourceId: 'r-random',
  resourceName: 'file-share',
  resourceType: 'AWS_EFS',
  recoveryPoint: {
    snapshotId: 'snap-random',
    pointInTime: '2026-11-20T01:00:00.000Z',
    selection: 'random',
    windowDays: 30,
    draw: { candidates: 12, index: 3 },
  },
  snapshotReused: false,
  restoreJobId: 'restore-random',
  restoreStatus: 'JOB_PARTIAL',
  restoreStatusMessage: '3 files skipped',
  rpoSeconds: 432_000,
  rpoMet: true,
  rtoSeconds: 30,
  rtoRestoreSeconds: 30,
  rtoMet: true,
  verdict: 'PARTIAL',
  reasons: ['restore partial: 3 files skipped'],
};

/** Taken by the drill; the newest snapshot before it was 35 hours old; nobody validated the restored VM in time. */
export const freshTimedOut: DrillResourceResult = {
  resourceId: 'r-fresh',
  resourceName: 'web-vm',
  resourceType: 'AWS_EC2',
  recoveryPoint: { snapshotId: 'snap-fresh', pointInTime: '2026-11-25T01:00:02.000Z', selection: 'fresh' },
  snapshotReused: false,
  backupJobId: 'backup-fresh',
  backupStatus: 'JOB_COMPLETED',
  restoreJobId: 'restore-fresh',
  restoreStatus: 'JOB_COMPLETED',
  rpoSeconds: 0,
  rpoMet: true,
  rpoPoint: { snapshotId: 'snap-before', pointInTime: '2026-11-23T14:00:00.000Z' },
  newestBeforeDrillSeconds: 126_000,
  rtoSeconds: 7_230,
  rtoRestoreSeconds: 30,
  rtoValidationSeconds: 7_200,
  rtoMet: false,
  validation: {
    status: 'timedOut',
    requestedAt: '2026-11-25T01:01:00.000Z',
    deadline: '2026-11-25T03:01:00.000Z',
    detail: 'validation timed out',
  },
  verdict: 'FAIL',
  reasons: ['validation timed out', 'RTO 7230 s over target'],
};

/** Nothing kept in the window: a finding, not an error. */
export const noPoint: DrillResourceResult = {
  resourceId: 'r-none',
  resourceName: 'archive-bucket',
  resourceType: 'AWS_S3',
  snapshotReused: false,
  verdict: 'FAIL',
  reasons: ['no recovery point in the last 30 days'],
};

/** Validated from outside, with a message that holds markup. */
export const externalPassed: DrillResourceResult = {
  resourceId: 'r-external',
  resourceName: '<img src=x onerror=alert(1)> queue|vm',
  resourceType: 'AWS_EC2',
  recoveryPoint: {
    snapshotId: 'snap-ext',
    pointInTime: '2026-11-24T01:00:00.000Z',
    selection: 'latest',
    windowDays: 7,
  },
  snapshotReused: false,
  restoreJobId: 'restore-ext',
  restoreStatus: 'JOB_COMPLETED',
  rpoSeconds: 86_400,
  rpoMet: true,
  rtoSeconds: 320,
  rtoRestoreSeconds: 20,
  rtoValidationSeconds: 300,
  rtoMet: true,
  validation: {
    status: 'passed',
    requestedAt: '2026-11-25T01:02:00.000Z',
    deadline: '2026-11-25T05:02:00.000Z',
    answeredAt: '2026-11-25T01:07:00.000Z',
    message: 'app answers <script>alert(1)</script> | *ok*',
    detail: 'validated by runbooks drill validate',
  },
  verdict: 'PASS',
  reasons: [],
};

export function v3Report(
  resources: DrillResourceResult[] = [latestPassed, randomPartial, freshTimedOut, noPoint, externalPassed],
): DrillReport {
  const count = (v: string) => resources.filter((r) => r.verdict === v).length;
  const failed = count('FAIL');
  const partial = count('PARTIAL');
  return {
    schemaVersion: 3,
    name: 'nightly',
    workflowId: 'drill-nightly-2026-11-25',
    runId: '0b1c2d3e-0000-4000-8000-000000000001',
    startedAt: START,
    finishedAt: '2026-11-25T03:05:00.000Z',
    targets: { rpoSeconds: 172_800, rtoSeconds: 3_600 },
    resources,
    summary: {
      total: resources.length,
      passed: count('PASS'),
      partial,
      failed,
      verdict: failed > 0 ? 'FAIL' : partial > 0 ? 'PARTIAL' : 'PASS',
      worstRpoSeconds: 432_000,
      worstRtoSeconds: 7_230,
    },
  };
}

/** A version 2 report, as runs before recovery-point selection wrote it. */
export function v2Report(): DrillReport {
  return {
    schemaVersion: 2,
    name: 'demo',
    workflowId: 'drill-demo-2026-11-20',
    runId: 'run-v2',
    startedAt: '2026-11-20T01:00:00.000Z',
    finishedAt: '2026-11-20T01:02:00.000Z',
    targets: { rpoSeconds: 259_200, rtoSeconds: 900 },
    resources: [
      {
        resourceId: 'r-db',
        resourceName: 'orders-db',
        resourceType: 'AWS_RDS',
        snapshotId: 'snap-drill',
        snapshotPointInTime: '2026-11-20T01:00:01.000Z',
        snapshotReused: false,
        backupJobId: 'backup-1',
        restoreJobId: 'restore-1',
        backupStatus: 'JOB_COMPLETED',
        restoreStatus: 'JOB_COMPLETED',
        rpoSeconds: 126_000,
        rpoPoint: { snapshotId: 'snap-prior', pointInTime: '2026-11-18T14:00:00.000Z' },
        rtoSeconds: 9,
        rpoMet: true,
        rtoMet: true,
        check: {
          query: 'SELECT 1',
          expectation: 'rows >= 1',
          rows: 1,
          passed: true,
          status: 'passed',
          detail: '1 rows; expected rows >= 1',
        },
        verdict: 'PASS',
        reasons: [],
      },
      {
        resourceId: 'r-vm',
        resourceName: 'never-backed-up',
        resourceType: 'AWS_EC2',
        snapshotId: 'snap-drill-2',
        snapshotPointInTime: '2026-11-20T01:00:01.000Z',
        snapshotReused: false,
        backupJobId: 'backup-2',
        restoreJobId: 'restore-2',
        rtoSeconds: 11,
        rpoMet: false,
        rtoMet: true,
        verdict: 'FAIL',
        reasons: ['RPO missed: no restorable snapshot before the drill began'],
      },
    ],
    summary: { total: 2, passed: 1, failed: 1, verdict: 'FAIL', worstRpoSeconds: 126_000, worstRtoSeconds: 11 },
  };
}
