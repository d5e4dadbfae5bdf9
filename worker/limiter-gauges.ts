// Gauges of the project's limiter of snapshot starts (runbooks/snapshot-slots): the limit, the ceiling the service
// showed at its last 429, and how old that ceiling is, so that a limit held low by an old ceiling shows on a dashboard
// before a slow drill does. Each worker queries the limiter every minute; one series per gauge and project.
import { Runtime } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import type { MetricGauge } from '@temporalio/common';
import { RunbookMetric } from '../contracts';
import { slotsQuery, snapshotSlotsWorkflowId, type SlotsStatus } from '../runbooks/snapshot-slots/contract';

/** Read this often: the ceiling ages by the minute (runbooks/snapshot-slots/limits.ts). */
export const LIMITER_GAUGES_INTERVAL_MS = 60_000;

type Gauges = Record<'limit' | 'ceiling' | 'ceilingAge' | 'held' | 'waiting', MetricGauge>;
let gauges: Gauges | undefined;

function gaugesOf(): Gauges {
  if (!gauges) {
    const meter = Runtime.instance().metricMeter;
    const gauge = (name: string, description: string) => meter.createGauge(name, 'float', '1', description);
    gauges = {
      limit: gauge(RunbookMetric.slotsLimit, 'Snapshot starts the limiter allows at once'),
      ceiling: gauge(RunbookMetric.slotsCeiling, 'Backups running at the last 429, plus the refused one'),
      ceilingAge: gauge(RunbookMetric.slotsCeilingAge, 'Seconds since a 429 last set or confirmed the ceiling'),
      held: gauge(RunbookMetric.slotsHeld, 'Snapshot slots held'),
      waiting: gauge(RunbookMetric.slotsWaiting, 'Snapshot starts waiting for a slot'),
    };
  }
  return gauges;
}

/** Sets the gauges from a limiter's status; NaN for a ceiling it has not got. */
export function setLimiterGauges(status: SlotsStatus): void {
  const g = gaugesOf();
  const labels = { project: status.projectId };
  g.limit.set(status.limit, labels);
  g.ceiling.set(status.ceiling ?? NaN, labels);
  g.ceilingAge.set(status.ceilingAgeSeconds ?? NaN, labels);
  g.held.set(status.held, labels);
  g.waiting.set(status.waiting, labels);
}

export interface LimiterGaugesOptions {
  client: Client;
  projectId: string;
  intervalMs?: number;
  /** Whether to go on: the worker still runs. */
  running: () => boolean;
}

/** Queries the limiter now and every interval while `running()`; no limiter yet (no drill took a snapshot) sets none. */
export function watchLimiter(options: LimiterGaugesOptions): void {
  const handle = options.client.workflow.getHandle(snapshotSlotsWorkflowId(options.projectId));
  const look = async () => {
    try {
      setLimiterGauges(await handle.query(slotsQuery));
    } catch (err) {
      Runtime.instance().logger.debug('could not query the limiter of snapshot starts', { error: String(err) });
    }
  };
  const timer = setInterval(() => {
    if (options.running()) void look();
    else clearInterval(timer);
  }, options.intervalMs ?? LIMITER_GAUGES_INTERVAL_MS).unref();
  void look();
}
