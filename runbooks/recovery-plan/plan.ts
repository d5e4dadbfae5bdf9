// An application's recovery plan: named steps (restore, validate, manual, wait) with `after:` dependencies, one point
// in time for every restore, and an RTO target for the whole. Pure: the workflow, the CLI and the schema read it.
import { z } from 'zod';
import { TimestampInput } from '../../api/schemas/common';
import {
  InventoryFilters,
  NonBlank,
  QueryTarget,
  QueryText,
  RestoreTarget,
  RestoreKind,
  RestoredFiles,
} from '../../runtime/input-rules';
import { CleanCheck } from '../clean-point/check';
import { EXPECTATION } from '../dr-drill/expectations';

/** The most steps one plan takes. */
export const MAX_PLAN_STEPS = 500;
/** The most resources one restore step's selection takes. */
export const MAX_STEP_RESOURCES = 50;

/** A step's name: what `after:`, reports and `runbooks plan status` call it. */
export const StepId = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lowercase letters, digits and dashes');

const stepBase = {
  id: StepId,
  /** Steps that must have passed before this one starts. */
  after: z.array(StepId).default([]),
  description: z.string().max(500).optional(),
  /** A target for this step alone, from its start to its end; the plan's verdict does not depend on it. */
  rtoTargetMinutes: z.number().int().min(1).optional(),
};

/** One resource by ID, or inventory filters bounded by `maxResources` (every match is restored by the step). */
const StepResources = z.union([
  z.strictObject({ id: NonBlank }),
  z.strictObject({
    filters: InventoryFilters,
    maxResources: z.number().int().min(1).max(MAX_STEP_RESOURCES).default(10),
  }),
]);

export const RestoreStep = z.strictObject({
  ...stepBase,
  kind: z.literal('restore'),
  resource: StepResources,
  /** Where the data goes; in drill mode, under a prefix of the run's own (see `isolatedDestination`). */
  destination: RestoreTarget,
  /** `bucket` may need approval (the approval-gated restore's quorum and windows); `files` never does. */
  restoreKind: RestoreKind,
  files: RestoredFiles,
  /** Shown to the reviewers of a restore that needs approval. */
  comment: z.string().max(1000).optional(),
});

export const ValidateStep = z
  .strictObject({
    ...stepBase,
    kind: z.literal('validate'),
    /** The restore step whose resources it validates; it runs after it, whether `after` says so or not. */
    of: StepId,
    /** A query on each restored point's database, with what its result must give. */
    sql: z
      .strictObject({
        databaseName: NonBlank,
        query: QueryText,
        expectation: z.string().regex(EXPECTATION, "like 'rows >= 1'"),
        destination: QueryTarget,
      })
      .optional(),
    /** Or a verdict from outside per restored resource (`runbooks drill validate`), waited for up to `windowHours`. */
    external: z.strictObject({ windowHours: z.number().int().min(1).max(168), notify: NonBlank.optional() }).optional(),
  })
  .refine((s) => (s.sql === undefined) !== (s.external === undefined), {
    message: 'validates by sql or by an external verdict, one of them',
    path: ['sql'],
  });

export const ManualStep = z.strictObject({
  ...stepBase,
  kind: z.literal('manual'),
  /** What the person does and confirms: "point DNS at the restored load balancer". */
  instructions: z.string().regex(/\S/, 'must not be blank').max(2000),
  /** Who may confirm it (as `runbooks plan confirm --by` names them); anyone when left out. */
  approvers: z.array(NonBlank).min(1).max(20).optional(),
  /** Unconfirmed after this long, the step fails. */
  timeoutHours: z.number().int().min(1).max(720).default(24),
});

export const WaitStep = z
  .strictObject({
    ...stepBase,
    kind: z.literal('wait'),
    /** Waits this long once its dependencies have passed: a cache to warm, a replica to catch up. */
    seconds: z
      .number()
      .int()
      .min(1)
      .max(7 * 86_400)
      .optional(),
    /** Or until this time (a maintenance window opening). */
    until: TimestampInput.optional(),
  })
  .refine((s) => (s.seconds === undefined) !== (s.until === undefined), {
    message: 'waits for seconds or until a time, one of them',
    path: ['seconds'],
  });

export const PlanStep = z.union([RestoreStep, ValidateStep, ManualStep, WaitStep]);
export type PlanStep = z.output<typeof PlanStep>;
export type PlanStepKind = PlanStep['kind'];

/** With `latest-clean`: a restore step whose resources are searched for their last clean point, and by what check. */
export const CleanSearch = z.strictObject({ step: StepId, check: CleanCheck });
export type CleanSearch = z.output<typeof CleanSearch>;

/**
 * The point every restore comes from. `latest`: the newest point that every restored resource has, each resource
 * taking its newest snapshot at or before it. A time: each resource's newest snapshot at or before that time.
 * `latest-clean`: the oldest of the last clean points that `clean` finds (a cleanPoint search of each resource of its
 * steps, by its check), then as with a time: every resource comes back from before the first sign of corruption. The
 * skew, between the oldest and the newest point chosen, must stay within `maxSkewMinutes`.
 */
export const PlanPointInTime = z
  .strictObject({
    target: z.union([z.literal('latest'), z.literal('latest-clean'), TimestampInput]).default('latest'),
    /** With `latest-clean`: the searches its point comes from. */
    clean: z.array(CleanSearch).min(1).max(10).optional(),
    maxSkewMinutes: z
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 60)
      .default(60),
    /** How far back a resource's snapshots are looked for (and searched, with `latest-clean`). */
    windowDays: z.number().int().min(1).max(365).default(30),
  })
  .refine((p) => (p.target === 'latest-clean') === (p.clean !== undefined), {
    message: "names the searches 'latest-clean' takes its point from, and only it",
    path: ['clean'],
  });

export const RecoveryPlan = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lowercase letters, digits and dashes'),
  description: z.string().max(2000).optional(),
  /** The restore account every restore (and validation query) runs under. */
  restoreAccountId: NonBlank,
  pointInTime: PlanPointInTime.default({ target: 'latest', maxSkewMinutes: 60, windowDays: 30 }),
  /** The application's RTO target: from the plan's start to its last validation. */
  rtoTargetMinutes: z.number().int().min(1),
  steps: z
    .array(PlanStep)
    .min(1, 'a plan has at least one step')
    .max(MAX_PLAN_STEPS, `at most ${MAX_PLAN_STEPS} steps in one plan`),
});
export type RecoveryPlanInput = z.input<typeof RecoveryPlan>;
export type RecoveryPlan = z.output<typeof RecoveryPlan>;

type Destination = z.output<typeof RestoreTarget>;

/**
 * A drill's destination: the step's own, under a folder of the run (`plan-drill-<run>/` after its prefix), so that
 * drills never write where a recovery would, nor where another drill did.
 */
export function isolatedDestination(destination: Destination, runId: string): Destination {
  const folder = `plan-drill-${runId.slice(0, 8)}/`;
  const isolated: Record<string, unknown> = {};
  for (const [kind, target] of Object.entries(destination)) {
    if (target === undefined) continue;
    const prefix = target.prefix ?? '';
    isolated[kind] = { ...target, prefix: `${prefix}${prefix === '' || prefix.endsWith('/') ? '' : '/'}${folder}` };
  }
  return isolated;
}
