import { workflowInfo } from '@temporalio/workflow';
import { z } from 'zod';
import type { ExportSummary } from '../activities';
import { CostDataInput } from '../../api/schemas/cost';
import { heartbeatingCalls, parseInput, RunbookTracker } from '../../runtime/calls';
import { strictDeep, TimeWindow } from '../../runtime/input-rules';
import { costWindow, type CostWindow } from './windows';

/** Grouping by resource is the only one `topN` applies to; the service ignores it otherwise. */
const TOP_N_GROUPS: readonly string[] = ['RESOURCE', 'RESOURCE_AND_VAULT'];

export const CostExportInput = strictDeep(
  z.strictObject({
    /** `previous-day` or `previous-month` relative to the run's time (a schedule's fire time), or explicit times. */
    window: z.union([z.enum(['previous-day', 'previous-month']), TimeWindow]),
    /** Passed through to the service as they are. */
    options: strictDeep(CostDataInput.omit({ timeFrame: true }))
      .refine((o) => o.topN === undefined || TOP_N_GROUPS.includes(o.groupBy ?? ''), {
        message: 'topN applies only with groupBy RESOURCE or RESOURCE_AND_VAULT',
        path: ['topN'],
      })
      .default({}),
    pageSize: z.number().int().min(1).max(10_000).optional(),
  }),
);
export type CostExportInput = z.input<typeof CostExportInput>;

export interface CostExportResult {
  window: CostWindow;
  export: ExportSummary;
}

/** Exports a window's cost data to a CSV named for the window; a re-run replaces it atomically. */
export async function costExport(raw: CostExportInput): Promise<CostExportResult> {
  const input = parseInput(CostExportInput, raw);
  const tracker = new RunbookTracker('costExport');
  // A schedule's action time is the moment it fired; a manual run uses its start.
  const window = costWindow(input.window, workflowInfo().startTime);
  const request = parseInput(CostDataInput, { ...input.options, timeFrame: window.timeFrame });

  tracker.phase('exporting cost data', { detail: `${window.timeFrame.startTime} to ${window.timeFrame.endTime}` });
  const summary = await heartbeatingCalls.exportCostData({
    request,
    fileName: `cost-export-${window.label}.csv`,
    pageSize: input.pageSize,
  });
  tracker.phase('completed', { detail: `${summary.rows} rows to ${summary.path}` });
  return { window, export: summary };
}
