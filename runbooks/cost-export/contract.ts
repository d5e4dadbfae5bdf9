import { z } from 'zod';
import { CostDataInput } from '../../api/schemas/cost';
import { defineRunbook } from '../../contracts/runbook';
import type { ExportSummary } from '../../runtime/export-file';
import { costRequest, runbookInput, TimeWindow } from '../../runtime/input-rules';
import { costWindow, type CostWindow } from './windows';

// The workflow checks its service request against the API's schema; it reaches it through this contract.
export { CostDataInput };

/** Grouping by resource is the only one `topN` applies to; the service ignores it otherwise. */
const TOP_N_GROUPS: readonly string[] = ['RESOURCE', 'RESOURCE_AND_VAULT'];

/** Output columns: the project's own (the default), or FinOps FOCUS (see docs/runbooks/cost-export.md). */
export const COST_EXPORT_FORMATS = ['project', 'focus'] as const;

export const CostExportInput = runbookInput(
  z.strictObject({
    /** `previous-day` or `previous-month` relative to the run's time (a schedule's fire time), or explicit times. */
    window: z.union([z.enum(['previous-day', 'previous-month']), TimeWindow]),
    /** Passed through to the service as they are. */
    options: costRequest(CostDataInput.omit({ timeFrame: true }))
      .refine((o) => o.topN === undefined || TOP_N_GROUPS.includes(o.groupBy ?? ''), {
        message: 'topN applies only with groupBy RESOURCE or RESOURCE_AND_VAULT',
        path: ['topN'],
      })
      .default({}),
    pageSize: z.number().int().min(1).max(10_000).optional(),
    format: z.enum(COST_EXPORT_FORMATS).default('project'),
  }),
)
  // A FOCUS charge period lies inside one monthly billing period; a TOTAL record may span several months.
  .refine((i) => i.format !== 'focus' || i.options.granularity !== 'TOTAL', {
    message: "format 'focus' needs granularity HOURLY, DAILY or MONTHLY: a TOTAL record can span billing periods",
    path: ['options', 'granularity'],
  })
  // FOCUS quantities add up over rows; mean bytes over a period do not.
  .refine((i) => i.format !== 'focus' || i.options.usageUnit !== 'BYTES', {
    message: "format 'focus' needs usageUnit BYTE_MONTHS: mean bytes over a period cannot be summed as a quantity",
    path: ['options', 'usageUnit'],
  });
export type CostExportInput = z.input<typeof CostExportInput>;

export interface CostExportResult {
  window: CostWindow;
  /** `alreadyPresent`: a scheduled run found the window's file there and left it as it was. */
  export: ExportSummary & { alreadyPresent?: true };
}

export const costExportContract = defineRunbook({
  workflowType: 'costExport',
  input: CostExportInput,
  takesInput: true,
  // The workflow computes the same window from its start time; both use UTC.
  defaultId: (input, { now }) =>
    `cost-export-${costWindow(input.window, now).label}${input.format === 'focus' ? '-focus' : ''}`,
  phases: ['exporting cost data'],
  // Each run exports its own day: one due while the previous export runs waits for it rather than being lost, and a
  // night missed by an outage of under a day still runs (it exports the day it was due for).
  schedule: { overlap: 'buffer-one', catchupWindow: '1d', jitter: '5m' },
  permissions: [{ permission: 'cost_explorer.view', for: 'cost-data' }],
  example: {
    window: 'previous-month',
    options: { costUnit: 'USD', granularity: 'DAILY', groupBy: 'RESOURCE', topN: 10 },
    format: 'project',
  },
});
