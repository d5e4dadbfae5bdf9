import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { patched, workflowInfo } from '@temporalio/workflow';
import { heartbeatingCalls, leanHistory, notify, resend } from '../../runtime/calls';
import { RunbookTracker, parseInput } from '../../runtime/tracker';
import type { Activities } from '../activities';
import { costWindow } from './windows';
import { CostDataInput, CostExportInput, type CostExportResult, costExportContract } from './contract';

const heartbeating = heartbeatingCalls<Activities>();

/** Set by Temporal Schedules on each run they start: the time it was due, which a catch-up or backfill run is late for. */
const ScheduledStartTime = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);

/**
 * What `previous-day` and `previous-month` count back from: a schedule's due time, else the run's start. Runs started
 * before this was read (no marker in their history) keep their start, so that they replay as they ran.
 */
function windowReference(): { reference: Date; scheduled: boolean } {
  const info = workflowInfo();
  if (!patched('cost-window-scheduled-time')) return { reference: info.startTime, scheduled: false };
  const due = info.typedSearchAttributes.get(ScheduledStartTime);
  return { reference: due ?? info.startTime, scheduled: due !== undefined };
}

/**
 * Exports a window's cost data to a CSV named for the window. A run a schedule started writes each window's file once:
 * when the file is there (an earlier night's or backfill's run wrote it), it is left as it is and the result says
 * `alreadyPresent`. A run started by hand replaces it atomically.
 */
export async function costExport(raw: CostExportInput): Promise<CostExportResult> {
  const input = parseInput(CostExportInput, raw);
  const tracker = new RunbookTracker(costExportContract);
  const { reference, scheduled } = windowReference();
  const window = costWindow(input.window, reference);
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
    // Only the activity's input differs: the commands stay as they were, so no patch.
    ...(scheduled ? { writeOnce: true } : {}),
  });
  const present = 'alreadyPresent' in summary;
  tracker.phase('completed', {
    detail: present ? `already present: ${summary.path}, left as it was` : `${summary.rows} rows to ${summary.path}`,
  });
  const { path: file, rows, bytes, sha256 } = summary;
  if (inline) resend(notified);
  else notify({ event: 'export.done', data: { export: 'cost', file, rows, bytes, sha256 } });
  return { window, export: summary };
}
