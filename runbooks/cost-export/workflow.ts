import { workflowInfo } from '@temporalio/workflow';
import { heartbeatingCalls, leanHistory, notify, resend } from '../../runtime/calls';
import { RunbookTracker, parseInput } from '../../runtime/tracker';
import type { Activities } from '../activities';
import { costWindow } from './windows';
import { CostDataInput, CostExportInput, type CostExportResult } from './contract';

const heartbeating = heartbeatingCalls<Activities>();

/** Exports a window's cost data to a CSV named for the window; a re-run replaces it atomically. */
export async function costExport(raw: CostExportInput): Promise<CostExportResult> {
  const input = parseInput(CostExportInput, raw);
  const tracker = new RunbookTracker('costExport');
  // A schedule's action time is the moment it fired; a manual run uses its start.
  const window = costWindow(input.window, workflowInfo().startTime);
  const request = parseInput(CostDataInput, { ...input.options, timeFrame: window.timeFrame });

  tracker.phase('exporting cost data', { detail: `${window.timeFrame.startTime} to ${window.timeFrame.endTime}` });
  const focus = input.format === 'focus';
  // The default format's activity input is left as it was, so workers of either version run it alike.
  // The export's activity sends export.done itself (see `leanHistory`).
  const inline = leanHistory();
  const { notified, ...summary } = await heartbeating.exportCostData({
    request,
    fileName: `cost-export-${window.label}${focus ? '.focus' : ''}.csv`,
    pageSize: input.pageSize,
    ...(focus ? { format: 'focus' as const } : {}),
    ...(inline ? { announce: true } : {}),
  });
  tracker.phase('completed', { detail: `${summary.rows} rows to ${summary.path}` });
  const { path: file, rows, bytes, sha256 } = summary;
  if (inline) resend(notified);
  else notify({ event: 'export.done', data: { export: 'cost', file, rows, bytes, sha256 } });
  return { window, export: summary };
}
