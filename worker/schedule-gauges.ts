// Gauges of the schedules that start runs on this worker's task queue: how many runs Temporal missed for the catch-up
// window and how many it skipped because the previous run still ran. Temporal keeps both counts in each schedule's
// info (and nothing else counts a run that never started), so a worker reads them every minute; a handful of
// schedules make a handful of series, labelled by schedule ID and runbook.
import { Runtime, type NativeConnection } from '@temporalio/worker';
import type { MetricGauge } from '@temporalio/common';
import { RunbookMetric } from '../contracts';

/** Read this often: a missed night shows within the minute, for a list and a describe per schedule. */
export const SCHEDULE_GAUGES_INTERVAL_MS = 60_000;

export interface ScheduleCounts {
  schedule: string;
  runbook: string;
  missedCatchupWindow: number;
  skippedOverlap: number;
}

interface LongLike {
  toNumber(): number;
}
const count = (value: LongLike | number | null | undefined) =>
  typeof value === 'number' ? value : (value?.toNumber() ?? 0);

/** The schedules whose action starts a workflow on `taskQueue`, with Temporal's counts. */
export async function scheduleCounts(
  connection: NativeConnection,
  namespace: string,
  taskQueue: string,
): Promise<ScheduleCounts[]> {
  const service = connection.workflowService;
  const counts: ScheduleCounts[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await service.listSchedules({ namespace, maximumPageSize: 100, nextPageToken });
    for (const entry of page.schedules ?? []) {
      const scheduleId = entry.scheduleId;
      if (!scheduleId) continue;
      const described = await service.describeSchedule({ namespace, scheduleId });
      const start = described.schedule?.action?.startWorkflow;
      if (start?.taskQueue?.name !== taskQueue) continue;
      counts.push({
        schedule: scheduleId,
        runbook: start.workflowType?.name ?? '',
        missedCatchupWindow: count(described.info?.missedCatchupWindow),
        skippedOverlap: count(described.info?.overlapSkipped),
      });
    }
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return counts;
}

interface Gauges {
  missed: MetricGauge;
  skipped: MetricGauge;
}
let gauges: Gauges | undefined;

function gaugesOf(): Gauges {
  if (!gauges) {
    const meter = Runtime.instance().metricMeter;
    gauges = {
      missed: meter.createGauge(RunbookMetric.scheduleMissed, 'int', '1', 'Schedule runs missed for catch-up window'),
      skipped: meter.createGauge(RunbookMetric.scheduleSkipped, 'int', '1', 'Schedule runs skipped for overlap'),
    };
  }
  return gauges;
}

export interface ScheduleGaugesOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  intervalMs?: number;
  /** Whether to go on: the worker still runs. */
  running: () => boolean;
}

/** Reads the schedules now and then every interval while `running()`; a failed read waits for the next. */
export function watchSchedules(options: ScheduleGaugesOptions): void {
  const look = async () => {
    try {
      const counts = await scheduleCounts(options.connection, options.namespace, options.taskQueue);
      const g = gaugesOf();
      for (const c of counts) {
        const labels = { schedule: c.schedule, runbook: c.runbook };
        g.missed.set(c.missedCatchupWindow, labels);
        g.skipped.set(c.skippedOverlap, labels);
      }
    } catch (err) {
      Runtime.instance().logger.debug('could not read the schedules for their gauges', { error: String(err) });
    }
  };
  const timer = setInterval(() => {
    if (options.running()) void look();
    else clearInterval(timer);
  }, options.intervalMs ?? SCHEDULE_GAUGES_INTERVAL_MS).unref();
  void look();
}
