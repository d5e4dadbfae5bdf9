// Recovery plan reports, hand-built, for the renderers' tests: a database, then a bucket, then two VMs, a wait, a DNS
// change confirmed by a person and a last check. `passedPlan` ran every step; `failedPlan` lost a VM's restore, and
// the steps after it were skipped.
import type { PhaseInterval, PlanPhase, PlanReport, PlanStepResult } from '../../runbooks/recovery-plan/contract';

export const PLAN_START = '2026-11-29T02:00:00.000Z';
/** A hostile reason: HTML, a Markdown table pipe and a line break. */
export const HOSTILE_REASON = 'restore job failed: <script>alert(1)</script> | disk full\n| injected | row |';

/** A hostile detail, made to leave an attribute. */
export const HOSTILE_DETAIL = '"><img src=x onerror=alert(2)>';

/** The time `seconds` after the plan's start. */
export const at = (seconds: number) => new Date(Date.parse(PLAN_START) + seconds * 1000).toISOString();

const phase = (name: PlanPhase, from: number, to: number): PhaseInterval => ({
  phase: name,
  startedAt: at(from),
  endedAt: at(to),
});

const restored = (id: string, name: string, type: string, pointInTime: string) => ({
  resourceId: id,
  resourceName: name,
  resourceType: type,
  snapshotId: `snap-${id}`,
  pointInTime,
  workflowId: `restore-${id}`,
  restoreJobId: `job-${id}`,
  status: 'succeeded' as const,
});

function step(
  id: string,
  kind: PlanStepResult['kind'],
  after: string[],
  phases: PhaseInterval[],
  extra: Partial<PlanStepResult> = {},
): PlanStepResult {
  return {
    id,
    kind,
    after,
    status: 'passed',
    startedAt: phases[0]?.startedAt,
    endedAt: phases[phases.length - 1]?.endedAt,
    phases,
    ...extra,
  };
}

const database = step('database', 'restore', [], [phase('restore', 0, 1200)], {
  resources: [restored('res-db', 'payments-db', 'AWS_RDS', '2026-11-29T01:30:00.000Z')],
});
const databaseCheck = step('database-check', 'validate', ['database'], [phase('validate', 1230, 1320)], {
  validations: [{ resourceId: 'res-db', passed: true, detail: '42 rows in ledger' }],
});
const bucket = step(
  'bucket',
  'restore',
  ['database-check'],
  [phase('approval', 1320, 1920), phase('restore', 1920, 2820)],
  {
    resources: [restored('res-bucket', 'payments-files', 'AWS_S3', '2026-11-29T01:25:00.000Z')],
  },
);
const vmWeb = step('vm-web', 'restore', ['bucket'], [phase('restore', 2830, 3900)], {
  resources: [restored('res-web', 'web-1', 'AWS_EC2', '2026-11-29T01:18:00.000Z')],
});
const vmApi = step('vm-api', 'restore', ['bucket'], [phase('restore', 2830, 3540)], {
  resources: [restored('res-api', 'api-1', 'AWS_EC2', '2026-11-29T01:20:00.000Z')],
});
const settle = step('settle', 'wait', ['vm-web', 'vm-api'], [phase('wait', 3900, 3960)]);
const dns = step('dns', 'manual', ['settle'], [phase('manual', 3960, 4440)], {
  confirmedBy: 'oncall-lead',
  note: 'payments.example.com now points at the restored load balancer',
  rtoTargetSeconds: 600,
  targetMet: true,
});
const appCheck = step('app-check', 'validate', ['dns'], [phase('validate', 4440, 4500)], {
  validations: [{ resourceId: 'res-web', passed: true, detail: 'HTTP 200 from /health' }],
});

const base = {
  schemaVersion: 1,
  name: 'payments',
  mode: 'drill' as const,
  workflowId: 'plan-payments-drill-2026-11-29',
  planSha256: 'a3f1c2d4e5b6a7980112233445566778899aabbccddeeff00112233445566778',
  startedAt: PLAN_START,
  commonPoint: {
    target: 'latest',
    at: '2026-11-29T01:30:00.000Z',
    skewSeconds: 720,
    maxSkewSeconds: 3600,
    resources: [
      { resourceId: 'res-db', stepId: 'database', snapshotId: 'snap-res-db', pointInTime: '2026-11-29T01:30:00.000Z' },
      {
        resourceId: 'res-bucket',
        stepId: 'bucket',
        snapshotId: 'snap-res-bucket',
        pointInTime: '2026-11-29T01:25:00.000Z',
      },
      { resourceId: 'res-web', stepId: 'vm-web', snapshotId: 'snap-res-web', pointInTime: '2026-11-29T01:18:00.000Z' },
      { resourceId: 'res-api', stepId: 'vm-api', snapshotId: 'snap-res-api', pointInTime: '2026-11-29T01:20:00.000Z' },
    ],
  },
  rpoSeconds: 2520,
};

/** Every step passed: RTO 1 h 15 min against 1 h 30 min, the target past the plan's finish. */
export const passedPlan: PlanReport = {
  ...base,
  runId: '3f2a1c9e-8d4b-4e1a-9c7f-0a1b2c3d4e5f',
  finishedAt: at(4510),
  verdict: 'PASS',
  failedSteps: [],
  rto: {
    seconds: 4500,
    targetSeconds: 5400,
    met: true,
    criticalPath: ['database', 'database-check', 'bucket', 'vm-web', 'settle', 'dns', 'app-check'],
    byPhase: { approval: 600, restore: 3170, validate: 150, manual: 480, wait: 60, between: 40 },
    byStep: [
      { stepId: 'database', seconds: 1200 },
      { stepId: 'database-check', seconds: 90 },
      { stepId: 'bucket', seconds: 1500 },
      { stepId: 'vm-web', seconds: 1070 },
      { stepId: 'settle', seconds: 60 },
      { stepId: 'dns', seconds: 480 },
      { stepId: 'app-check', seconds: 60 },
    ],
  },
  steps: [database, databaseCheck, bucket, vmWeb, vmApi, settle, dns, appCheck],
};

const skipped = (s: PlanStepResult): PlanStepResult => ({
  id: s.id,
  kind: s.kind,
  after: s.after,
  status: 'skipped',
  reason: 'skipped: vm-api failed',
  phases: [],
});

/** vm-api's restore failed, so settle, dns and app-check never ran; RTO 1 h 05 min against a target of 1 h. */
export const failedPlan: PlanReport = {
  ...base,
  runId: '7b6c5d4e-3f2a-4b1c-8d9e-0f1e2d3c4b5a',
  finishedAt: at(3910),
  verdict: 'FAIL',
  failedSteps: ['vm-api'],
  rto: {
    seconds: 3900,
    targetSeconds: 3600,
    met: false,
    criticalPath: ['database', 'database-check', 'bucket', 'vm-web'],
    byPhase: { approval: 600, restore: 3170, validate: 90, manual: 0, wait: 0, between: 40 },
    byStep: [
      { stepId: 'database', seconds: 1200 },
      { stepId: 'database-check', seconds: 90 },
      { stepId: 'bucket', seconds: 1500 },
      { stepId: 'vm-web', seconds: 1070 },
    ],
  },
  steps: [
    database,
    databaseCheck,
    bucket,
    vmWeb,
    {
      ...vmApi,
      status: 'failed',
      reason: HOSTILE_REASON,
      resources: [
        {
          ...restored('res-api', 'api-1', 'AWS_EC2', '2026-11-29T01:20:00.000Z'),
          status: 'failed',
          detail: HOSTILE_DETAIL,
        },
      ],
    },
    skipped(settle),
    skipped(dns),
    skipped(appCheck),
  ],
};
