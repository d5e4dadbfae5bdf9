import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { dayOf, defineRunbook } from '../../contracts/runbook';
import { runbookInput } from '../../runtime/input-rules';
import { planProblems } from './graph';
import type { CarriedVerdict } from '../../steps/validation-desk';
import type { RestoreEnded } from '../approval-gated-restore/contract';
import type { DrDrillResult } from '../dr-drill/contract';
import type { PlanResource } from './activities';
import { RecoveryPlan, type PlanStepKind } from './plan';

export const PLAN_MODES = ['drill', 'recover'] as const;
export type PlanMode = (typeof PLAN_MODES)[number];

/** What `confirm` must say for a plan to run in `recover` mode: the real thing is never started by a default. */
export const recoverConfirmation = (planName: string) => `recover ${planName}`;

export const RecoveryPlanRunInput = runbookInput(
  z
    .strictObject({
      plan: RecoveryPlan,
      /** `drill` restores into destinations of the run's own (a prefix per run); `recover` restores where it says. */
      mode: z.enum(PLAN_MODES).default('drill'),
      /** With `recover`: exactly `recover <plan name>`. */
      confirm: z.string().optional(),
      /** A lower history bound before the plan continues as new, for tests that make it hand over. */
      tuning: z.strictObject({ historyBound: z.number().int().min(50).max(10_000) }).optional(),
    })
    // A plan whose graph is wrong (a cycle, an unknown step) is refused whole before anything starts.
    .superRefine((i, ctx) => {
      for (const problem of planProblems(i.plan)) {
        ctx.addIssue({ code: 'custom', path: ['plan', ...problem.path], message: problem.message });
      }
    })
    .refine((i) => i.mode !== 'recover' || i.confirm === recoverConfirmation(i.plan.name), {
      message:
        "a recovery (mode 'recover') restores over nothing but is the real thing: confirm it with 'recover <plan name>'",
      path: ['confirm'],
    }),
);
export type RecoveryPlanRunInput = z.input<typeof RecoveryPlanRunInput>;

/** Where a step's time went. A restore's approval wait is its own phase: reviewers, not the service, set it. */
export const PLAN_PHASES = ['approval', 'restore', 'validate', 'manual', 'wait'] as const;
export type PlanPhase = (typeof PLAN_PHASES)[number];

/** One phase of one step, as it happened (workflow time). */
export interface PhaseInterval {
  phase: PlanPhase;
  startedAt: string;
  endedAt: string;
}

/** A resource a restore step restored (or tried to). */
export interface RestoredResource {
  resourceId: string;
  resourceName: string;
  resourceType: string;
  snapshotId: string;
  pointInTime: string;
  /** The approval-gated restore run that restored it. */
  workflowId: string;
  restoreJobId?: string;
  status: 'succeeded' | 'failed';
  detail?: string;
}

export type StepStatus = 'passed' | 'failed' | 'skipped';

export interface PlanStepResult {
  id: string;
  kind: PlanStepKind;
  after: string[];
  /** Validate steps: the restore step validated (a dependency besides `after`). */
  of?: string;
  status: StepStatus;
  /** Why it failed, or which failed dependency skipped it. */
  reason?: string;
  startedAt?: string;
  endedAt?: string;
  phases: PhaseInterval[];
  /** Restore steps: each resource restored. Validate steps: each resource validated, with its verdict's detail. */
  resources?: RestoredResource[];
  validations?: { resourceId: string; passed: boolean; detail: string }[];
  /** Manual steps: who confirmed, and what they said. */
  confirmedBy?: string;
  note?: string;
  rtoTargetSeconds?: number;
  /** With a target: whether the step's own duration met it. */
  targetMet?: boolean;
}

/** The point every restore came from, and how far apart the points chosen are. */
export interface CommonPoint {
  target: string;
  /** The common point: each resource restores its newest snapshot at or before it. */
  at: string;
  skewSeconds: number;
  maxSkewSeconds: number;
  resources: { resourceId: string; stepId: string; snapshotId: string; pointInTime: string }[];
  /** With `latest-clean`: each resource searched, its last clean point, and what judged it (the cleanPoint run). */
  clean?: PlanCleanPoint[];
}

export interface PlanCleanPoint {
  stepId: string;
  resourceId: string;
  snapshotId: string;
  pointInTime: string;
  check: { name: string; sha256: string };
  /** Points the search examined, and its verdict ("clean as of <check>: ..."). */
  examined: number;
  verdict: string;
  workflowId: string;
}

/** The plan's RTO and its parts: on the critical path, by step and by phase, summing to the whole. */
export interface PlanRto {
  /** From the plan's start to the end of its last validation (or of its last step, with none). */
  seconds: number;
  targetSeconds: number;
  met: boolean;
  /** The chain of steps that set the RTO, first to last. */
  criticalPath: string[];
  /** Seconds on the critical path by phase, plus `between` (waiting for a step to start once its dependencies ended). */
  byPhase: Record<PlanPhase | 'between', number>;
  /** Seconds on the critical path by step (each step's own span on it). */
  byStep: { stepId: string; seconds: number }[];
}

export interface PlanReport {
  schemaVersion: number;
  name: string;
  mode: PlanMode;
  workflowId: string;
  runId: string;
  /** The sha256 of the plan's canonical JSON: what ran. */
  planSha256: string;
  startedAt: string;
  finishedAt: string;
  verdict: 'PASS' | 'FAIL';
  /** The steps that failed (their dependents are skipped). */
  failedSteps: string[];
  commonPoint?: CommonPoint;
  rto: PlanRto;
  /** The age of the common point at the plan's start, with its skew. */
  rpoSeconds?: number;
  steps: PlanStepResult[];
}

export interface PlanReportPaths {
  json: string;
  markdown: string;
  html: string;
}

export interface RecoveryPlanResult {
  report: PlanReportPaths;
  verdict: 'PASS' | 'FAIL';
  failedSteps: string[];
  rtoSeconds: number;
  /** With RUNBOOKS_TSA_URL: whether every token is there (`added`), or a run of their own adds them later. */
  timestamps?: DrDrillResult['timestamps'];
}

export const recoveryPlanContract = defineRunbook({
  workflowType: 'recoveryPlan',
  input: RecoveryPlanRunInput,
  takesInput: true,
  defaultId: (input, { now }) => `plan-${input.plan.name}-${input.mode ?? 'drill'}-${dayOf(now)}`,
  phases: ['choosing the common point', 'running steps', 'writing report'],
  // Two runs of one plan would restore the same resources twice, into the same places.
  schedule: { overlap: 'skip', catchupWindow: '1h', jitter: '5m' },
  permissions: [
    { permission: 'inventory.view', for: 'resources and snapshots' },
    { permission: 'jobs.view', for: 'follow the restores' },
    { permission: 'files.restore', for: "restore-files (restoreKind 'files', the default)" },
    { permission: 'resources.restore', for: 'restore-bucket', when: "a step's restoreKind 'bucket'" },
    { permission: 'mpa_requests.manage', for: 'a restore that needs approval', when: "a step's restoreKind 'bucket'" },
    { permission: 'databases.query', for: 'sql validations', when: 'a validate step with sql' },
  ],
  example: {
    mode: 'drill',
    plan: {
      name: 'payments',
      restoreAccountId: 'restore-acct-1',
      pointInTime: { target: 'latest', maxSkewMinutes: 60, windowDays: 30 },
      rtoTargetMinutes: 240,
      steps: [
        {
          id: 'database',
          kind: 'restore',
          resource: { id: 'res-0001' },
          destination: { amazonBucket: { bucketName: 'recovery-pa-east-1', prefix: 'payments/db/' } },
        },
        {
          id: 'database-check',
          kind: 'validate',
          of: 'database',
          after: ['database'],
          sql: {
            databaseName: 'payments',
            query: 'SELECT id FROM ledger',
            expectation: 'rows >= 1',
            destination: { amazonBucket: { bucketName: 'query-results-pa-east-1' } },
          },
        },
        {
          id: 'bucket',
          kind: 'restore',
          after: ['database-check'],
          resource: { id: 'res-0002' },
          destination: { amazonBucket: { bucketName: 'recovery-pa-east-1', prefix: 'payments/bucket/' } },
        },
        {
          id: 'servers',
          kind: 'restore',
          after: ['bucket'],
          resource: {
            filters: { tagKeyValues: { containsAllOf: ['app=payments'] } },
            maxResources: 2,
          },
          destination: { amazonBucket: { bucketName: 'recovery-pa-east-1', prefix: 'payments/vms/' } },
        },
        {
          id: 'dns',
          kind: 'manual',
          after: ['servers'],
          instructions: 'Point payments.example.com at the restored load balancer',
          approvers: ['oncall-lead'],
        },
      ],
    },
  },
});
/** A manual step confirmed by a person: `by` must be among its approvers when it names some. */
export interface PlanStepConfirmation {
  stepId: string;
  by: string;
  note?: string;
}

/** Confirms a manual step that waits; refused (not written to history) when the step is not waiting or `by` may not. */
export const planConfirmUpdate = defineUpdate<{ stepId: string; confirmedBy: string }, [PlanStepConfirmation]>(
  'planConfirm',
);

/** A step as `runbooks plan status` shows it: its result so far, `running` while it runs (its restores too). */
export type PlanStepView = Omit<PlanStepResult, 'status' | 'resources'> & {
  status: StepStatus | 'pending' | 'running';
  resources?: (Omit<RestoredResource, 'status'> & { status: RestoredResource['status'] | 'running' })[];
};

/** What a run of a plan hands over to the next when its history grows long (continue-as-new). */
export interface PlanHandOver {
  startedAt: string;
  /** The first run's ID: drill destinations and the report keep it across runs. */
  firstRunId: string;
  chosen?: { resources: PlanResource[]; commonPoint: CommonPoint; serviceNow: string };
  /** Every step as it stands; running ones go on in the next run where they were. */
  steps: PlanStepView[];
  confirmed: (PlanStepConfirmation & { at: string })[];
  verdicts: CarriedVerdict[];
  /** Restores' ends taken while handing over, not yet in `steps`. */
  restoreEnds: RestoreEnded[];
  /** Runs before the next one. */
  runs: number;
}

/** Every step of a running plan, in the plan's order. */
export const planStepsQuery = defineQuery<PlanStepView[]>('planSteps');

/** A phase of its status query, besides the common ones. */
export type PlanRunPhase = (typeof recoveryPlanContract.phases)[number];
