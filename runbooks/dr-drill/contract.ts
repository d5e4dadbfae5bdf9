import { z } from 'zod';
import { FilePath } from '../../api/schemas/restore';
import { dayOf, defineRunbook } from '../../contracts/runbook';
import {
  InventoryFilters,
  NonBlank,
  QueryTarget,
  QueryText,
  RestoreTarget,
  strictDeep,
} from '../../runtime/input-rules';
import { EXPECTATION } from './expectations';
import type { DrillReportPaths, DrillSummary } from './report';

/** The most resources one drill takes, whichever way they are selected. */
export const MAX_DRILL_RESOURCES = 200;
/** A selection by filters takes at most this many resources unless `maxResources` says otherwise. */
export const DEFAULT_MAX_RESOURCES = 25;

/** Resource IDs, or inventory filters bounded by `maxResources`: a loose filter must not drill the whole inventory. */
const DrillSelection = z
  .strictObject({
    ids: z.array(NonBlank).min(1).max(MAX_DRILL_RESOURCES).optional(),
    filters: InventoryFilters.optional(),
    /** With filters: when more resources match, the drill refuses to start. */
    maxResources: z.number().int().min(1).max(MAX_DRILL_RESOURCES).optional(),
  })
  .refine((s) => s.ids !== undefined || s.filters !== undefined, { message: 'give resource ids or inventory filters' })
  .refine((s) => s.ids === undefined || s.filters === undefined, {
    message: 'give resource ids or inventory filters, not both',
    path: ['filters'],
  })
  .refine((s) => s.ids === undefined || s.maxResources === undefined, {
    message: 'bounds a selection by filters only (ids name every resource already)',
    path: ['maxResources'],
  })
  .refine((s) => new Set(s.ids).size === (s.ids?.length ?? 0), {
    message: 'names a resource twice',
    path: ['ids'],
  })
  .transform((s) => (s.filters ? { ...s, maxResources: s.maxResources ?? DEFAULT_MAX_RESOURCES } : s));

export const DrDrillInput = strictDeep(
  z.strictObject({
    name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lowercase letters, digits and dashes'),
    resources: DrillSelection,
    vaultId: NonBlank,
    restoreAccountId: NonBlank,
    destination: RestoreTarget,
    restoreKind: z.enum(['bucket', 'files']).default('files'),
    files: z
      .array(FilePath)
      .min(1)
      .default([{ path: '/', isDirectory: true }]),
    targets: z.strictObject({ rpoSeconds: z.number().int().min(1), rtoSeconds: z.number().int().min(1) }),
    retentionDays: z.number().int().min(1).default(7),
    /** Use the newest snapshot inside the RPO target instead of taking one, when there is such a snapshot. */
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
    parallelism: z.number().int().min(1).max(20).default(3),
  }),
);
export type DrDrillInput = z.input<typeof DrDrillInput>;

export interface DrDrillResult {
  report: DrillReportPaths;
  summary: DrillSummary;
}

export const drDrillContract = defineRunbook({
  workflowType: 'drDrill',
  input: DrDrillInput,
  takesInput: true,
  defaultId: (input, { now }) => `drill-${input.name}-${dayOf(now)}`,
});
