import { z } from 'zod';
import { resourceTypeIn, resourceTypesOf } from '../../api/dialect';
import type { ResourceType } from '../../api/enums';
import { dayOf, defineRunbook } from '../../contracts/runbook';
import {
  InventoryFilters,
  NonBlank,
  QueryTarget,
  QueryText,
  RestoreTarget,
  runbookInput,
  RestoreKind,
  RestoredFiles,
} from '../../runtime/input-rules';
import { CleanCheck } from '../clean-point/check';
import { MAX_RESTORES } from '../clean-point/contract';
import { EXPECTATION } from './expectations';
import { isSelection, SELECTION_RULES, SELECTION_SHAPE } from './selection';
import type { DrillReportPaths, DrillSummary } from './report';

/** The most resources one drill takes, whichever way they are selected (fanned out in batches, ./fan-out.ts). */
export const MAX_DRILL_RESOURCES = 5_000;
/** The most resources drilled at once, over all of a drill's batches. */
export const MAX_DRILL_PARALLELISM = 100;
/** A selection (by filters or conditions) takes at most this many resources unless `maxResources` says otherwise. */
export const DEFAULT_MAX_RESOURCES = 25;

/**
 * Resource IDs, inventory filters, or a selection (./selection.ts: tag conditions, types, accounts, regions,
 * environments, include and exclude, or `all` protected resources); filters and selections are bounded by
 * `maxResources`: a loose one must not drill the whole inventory.
 */
const DrillSelection = z
  .strictObject({
    ids: z
      .array(NonBlank)
      .min(1, 'names no resource: a drill takes at least one')
      .max(MAX_DRILL_RESOURCES, `at most ${MAX_DRILL_RESOURCES.toLocaleString('en')} resources in one drill`)
      .optional(),
    filters: InventoryFilters.optional(),
    ...SELECTION_SHAPE,
    include: SELECTION_SHAPE.include.refine((ids) => ids === undefined || ids.length <= MAX_DRILL_RESOURCES, {
      message: `at most ${MAX_DRILL_RESOURCES.toLocaleString('en')} resources in one drill`,
    }),
    /** With filters or a selection: when more resources match, the drill refuses to start. */
    maxResources: z.number().int().min(1).max(MAX_DRILL_RESOURCES).optional(),
  })
  .refine((s) => s.ids !== undefined || s.filters !== undefined || isSelection(s), {
    message: 'give resource ids, inventory filters or a selection',
  })
  .refine((s) => s.ids === undefined || s.filters === undefined, {
    message: 'give resource ids or inventory filters, not both',
    path: ['filters'],
  })
  .refine((s) => (s.ids === undefined && s.filters === undefined) || !isSelection(s), {
    message: 'a selection (all, tags, resourceTypes, …, include, exclude) stands alone: not with ids or filters',
    path: ['ids'],
  })
  .refine((s) => s.ids === undefined || s.maxResources === undefined, {
    message: 'bounds a selection by filters only, or by conditions (ids name every resource already)',
    path: ['maxResources'],
  })
  .refine((s) => new Set(s.ids).size === (s.ids?.length ?? 0), {
    message: 'names a resource twice',
    path: ['ids'],
  })
  .refine(SELECTION_RULES.somethingTaken.check, { message: SELECTION_RULES.somethingTaken.message })
  .refine(SELECTION_RULES.allAlone.check, {
    message: SELECTION_RULES.allAlone.message,
    path: SELECTION_RULES.allAlone.path,
  })
  .refine(SELECTION_RULES.includeApart.check, {
    message: SELECTION_RULES.includeApart.message,
    path: SELECTION_RULES.includeApart.path,
  })
  .transform((s) =>
    s.filters || isSelection(s) ? { ...s, maxResources: s.maxResources ?? DEFAULT_MAX_RESOURCES } : s,
  );

/** How a drill picks the recovery point it restores; see `RecoveryPointInput`. */
export const RECOVERY_POINT_SELECTIONS = ['latest', 'random', 'fresh', 'latest-clean'] as const;
export type RecoveryPointSelection = (typeof RECOVERY_POINT_SELECTIONS)[number];
export const DEFAULT_WINDOW_DAYS = 30;

/**
 * `latest` restores the newest snapshot of the last `windowDays`, `random` one drawn among them: both restore what the
 * team keeps. `latest-clean` restores the newest one that passes `check` (a cleanPoint search per resource, by
 * queries on the snapshots; for a resource the query call cannot reach, by restores judged through the drill's
 * `validation`, at most `maxRestores`). `fresh` takes a snapshot now (or, with `reuseRecentSnapshot`, uses one inside the RPO
 * target).
 */
const RecoveryPointInput = z
  .strictObject({
    select: z.enum(RECOVERY_POINT_SELECTIONS).default('latest'),
    windowDays: z.number().int().min(1).max(365).optional(),
    check: CleanCheck.optional(),
    /** With `latest-clean` and `validation`: the most restores a search of a resource the check cannot reach makes. */
    maxRestores: z.number().int().min(1).max(MAX_RESTORES).optional(),
  })
  .refine((p) => (p.select === 'latest-clean') === (p.check !== undefined), {
    message: "is what 'latest-clean' judges a point by, and only it",
    path: ['check'],
  })
  .refine((p) => p.select === 'latest-clean' || p.maxRestores === undefined, {
    message: "applies to 'latest-clean' only",
    path: ['maxRestores'],
  });

/** After the restore: ask someone (or something) to validate the restored resource, and wait up to `windowHours`. */
const ValidationInput = z.strictObject({
  /** 0 asks for no validation (as AWS restore testing's window of 0); the restore alone decides. */
  windowHours: z.number().int().min(0).max(168),
  /** The name of a configured webhook target that gets `drill.validation.requested`; unset: every target. */
  notify: NonBlank.optional(),
});

export const DrDrillInput = runbookInput(
  z
    .strictObject({
      name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lowercase letters, digits and dashes'),
      resources: DrillSelection,
      vaultId: NonBlank,
      restoreAccountId: NonBlank,
      destination: RestoreTarget,
      restoreKind: RestoreKind,
      files: RestoredFiles,
      targets: z.strictObject({ rpoSeconds: z.number().int().min(1), rtoSeconds: z.number().int().min(1) }),
      retentionDays: z.number().int().min(1).default(7),
      recoveryPoint: RecoveryPointInput.optional(),
      /**
       * Rotation: each run drills at most `perRun` resources of the scope, those the evidence says are most due
       * (failed last, never drilled, then oldest verified PASS), so that a schedule of runs covers every resource
       * within `withinDays`. The state comes from the sealed reports in the output folder.
       */
      coverage: z
        .strictObject({
          withinDays: z.number().int().min(1).max(366),
          perRun: z.number().int().min(1).max(5_000),
        })
        .optional(),
      /** With `fresh` (which it implies): use the newest snapshot inside the RPO target instead of taking one. */
      reuseRecentSnapshot: z.boolean().default(false),
      sqlCheck: z
        .strictObject({
          databaseName: NonBlank,
          query: QueryText,
          expectation: z.string().regex(EXPECTATION, "like 'rows >= 1'"),
          destination: QueryTarget,
        })
        .optional(),
      /**
       * With `sqlCheck`: a resource the check cannot run on (not a relational database) fails the drill instead of
       * passing with "check not run". Off by default: one check per drill, over a selection that may mix types.
       */
      requireChecks: z.boolean().default(false),
      validation: ValidationInput.optional(),
      parallelism: z
        .number()
        .int()
        .min(1)
        .max(MAX_DRILL_PARALLELISM, `at most ${MAX_DRILL_PARALLELISM} resources are drilled at once`)
        .default(3),
    })
    .refine((d) => !d.reuseRecentSnapshot || (d.recoveryPoint?.select ?? 'fresh') === 'fresh', {
      message: "applies to recoveryPoint.select 'fresh' only (latest and random restore an existing snapshot already)",
      path: ['reuseRecentSnapshot'],
    })
    .refine((d) => d.recoveryPoint?.select !== 'fresh' || d.recoveryPoint.windowDays === undefined, {
      message: "applies to 'latest' and 'random' only: 'fresh' takes its own snapshot",
      path: ['recoveryPoint', 'windowDays'],
    })
    .transform(({ recoveryPoint, ...d }) => ({
      ...d,
      recoveryPoint: recoveryPointOf(recoveryPoint, d.reuseRecentSnapshot),
    })),
);
export type DrDrillInput = z.input<typeof DrDrillInput>;
/** A drill's input once validated, with its defaults. */
export type DrillInput = z.output<typeof DrDrillInput>;

/** The selection a run follows: `reuseRecentSnapshot` alone means `fresh`, as it did before selections existed. */
function recoveryPointOf(
  given: z.output<typeof RecoveryPointInput> | undefined,
  reuseRecentSnapshot: boolean,
):
  | { select: 'fresh' }
  | { select: 'latest' | 'random'; windowDays: number }
  | { select: 'latest-clean'; windowDays: number; check: CleanCheck; maxRestores?: number } {
  const select = given?.select ?? (reuseRecentSnapshot ? 'fresh' : 'latest');
  if (select === 'fresh') return { select };
  const windowDays = given?.windowDays ?? DEFAULT_WINDOW_DAYS;
  if (select !== 'latest-clean') return { select, windowDays };
  if (!given?.check) throw new Error("'latest-clean' without a check"); // refused by the schema above
  const { maxRestores } = given;
  return { select, windowDays, check: given.check, ...(maxRestores === undefined ? {} : { maxRestores }) };
}

export interface DrDrillResult {
  report: DrillReportPaths;
  summary: DrillSummary;
  /**
   * With RUNBOOKS_TSA_URL: `added`, every token of the seal and the attestations is there; `pending`, the authority
   * could not be asked (`reason`) and a run of its own adds them later (`files`: the tokens there already).
   */
  timestamps?: { status: 'added' | 'pending'; files: number; reason?: string };
}

/**
 * The fields the drDrill examples share after their name and resources: vault, restore account, destination, restore
 * kind and targets, with recoveryPoint, retentionDays and parallelism as the default example has them. An example that
 * overrides one of them keeps its place (a spread keeps a key's position), so every example prints its fields in the
 * same order.
 */
const EXAMPLE_BASE: Omit<DrDrillInput, 'name' | 'resources'> = {
  vaultId: 'vault-1',
  restoreAccountId: 'restore-acct-1',
  destination: { amazonBucket: { bucketName: 'drills-pa-east-1' } },
  restoreKind: 'files',
  targets: { rpoSeconds: 86400, rtoSeconds: 3600 },
  recoveryPoint: { select: 'latest', windowDays: 30 },
  retentionDays: 7,
  parallelism: 3,
};

export const drDrillContract = defineRunbook({
  workflowType: 'drDrill',
  input: DrDrillInput,
  takesInput: true,
  defaultId: (input, { now }) => `drill-${input.name}-${dayOf(now)}`,
  phases: ['selecting resources', 'drilling', 'writing report'],
  // A drill still running holds the restore account and the service's restore capacity; a second one would double
  // the load and prove nothing new. A drill more than an hour late would run into working hours: it is missed instead.
  schedule: { overlap: 'skip', catchupWindow: '1h', jitter: '5m' },
  permissions: [
    { permission: 'inventory.view', for: 'resources and snapshots' },
    { permission: 'snapshots.take_or_convert', for: 'take-snapshot' },
    { permission: 'jobs.view', for: 'follow backup and restore jobs' },
    { permission: 'files.restore', for: 'restore-files (the default restoreKind)' },
    { permission: 'resources.restore', for: 'restore-bucket', when: "restoreKind: 'bucket'" },
    { permission: 'mpa_requests.manage', for: 'withdraw a restore that needs approval', when: "restoreKind: 'bucket'" },
    {
      permission: 'databases.query',
      for: 'the SQL check, and the search for a clean point',
      when: "sqlCheck, or recoveryPoint.select 'latest-clean'",
    },
  ],
  example: {
    name: 'weekly-drill',
    resources: { ids: ['res-0001', 'res-0002'] },
    ...EXAMPLE_BASE,
  },
  examples: {
    // After a suspected corruption: each database restores the newest point of the window that passes the check.
    'latest-clean': {
      name: 'clean-databases',
      resources: {
        filters: { resourceType: { in: resourceTypesOf('relationalDatabase', 'neutral') as ResourceType[] } },
        maxResources: 10,
      },
      ...EXAMPLE_BASE,
      recoveryPoint: {
        select: 'latest-clean',
        windowDays: 30,
        check: {
          name: 'orders intact',
          databaseName: 'shopdb',
          destination: { amazonBucket: { bucketName: 'query-results-pa-east-1' } },
          queries: [
            { name: 'orders present', sql: 'SELECT id FROM orders', expect: 'rows >= 1000' },
            {
              name: 'no encrypted emails',
              sql: "SELECT count(*) FROM customers WHERE email LIKE 'ENC:%'",
              expect: 'value = 0',
            },
          ],
        },
      },
    },
    // The production estate's tier-1 and tier-2 databases and VMs of one account, as the inventory holds them at each
    // run: resources tagged or untagged later join or leave the drill without an edit.
    selection: {
      name: 'prod-tier-1-2',
      resources: {
        tags: [
          { key: 'tier', anyOf: ['1', '2'] },
          { key: 'backup', exists: true },
          { key: 'legacy', not: { equals: 'yes' } },
        ],
        environments: ['PROD'],
        resourceTypes: ['AWS_RDS', 'AWS_EC2'].map((t) => resourceTypeIn('neutral', t)) as ResourceType[],
        accounts: ['123456789012'],
        regions: ['pa-east-1', 'pa-west-2'],
        include: ['res-0042'],
        exclude: ['res-0007'],
        maxResources: 200,
      },
      ...EXAMPLE_BASE,
      parallelism: 10,
    },
  },
});
/** A phase of its status query, besides the common ones. */
export type DrillPhase = (typeof drDrillContract.phases)[number];
