// A schedule's late run exports the day it was due for: the window counts back from TemporalScheduledStartTime, not
// from the moment the run started (a catch-up after midnight would otherwise export the wrong day).
import { randomUUID } from 'node:crypto';
import { ScheduleOverlapPolicy } from '@temporalio/client';
import { costExport } from '../../runbooks/workflows';
import type { CostExportResult } from '../../runbooks/cost-export/contract';
import { eventually, setupE2E, teardownE2E, type E2E } from './helpers';

let fx: E2E | undefined;
beforeAll(async () => {
  fx = await setupE2E();
}, 120_000);
afterAll(() => teardownE2E(fx), 60_000);

const DAY_MS = 24 * 3600 * 1000;
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

test('a backfilled night exports the day before that night, not the day before today', async () => {
  if (!fx) throw new Error('no fixture');
  const { client } = fx.env;
  const scheduleId = `nightly-cost-${randomUUID()}`;
  // Nightly at 00:30 UTC, paused: only the backfill starts runs.
  const handle = await client.schedule.create({
    scheduleId,
    spec: { calendars: [{ hour: 0, minute: 30 }] },
    action: {
      type: 'startWorkflow',
      workflowType: costExport,
      args: [{ window: 'previous-day' }],
      taskQueue: fx.worker.taskQueue,
      workflowId: `cost-export-${scheduleId}`,
    },
    state: { paused: true, note: 'backfill only' },
  });
  try {
    // The night three days ago was missed; backfill it.
    const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
    const missedNight = today - 3 * DAY_MS + 30 * 60_000;
    await handle.backfill({
      start: new Date(missedNight - 60_000),
      end: new Date(missedNight + 60_000),
      overlap: ScheduleOverlapPolicy.ALLOW_ALL,
    });

    const run = await eventually('the backfilled run', async () => {
      for await (const execution of client.workflow.list({ query: `TemporalScheduledById = '${scheduleId}'` })) {
        return execution;
      }
      return undefined;
    });
    const result = (await client.workflow.getHandle(run.workflowId, run.runId).result()) as CostExportResult;
    expect(result.window.label).toBe(dateOf(missedNight - DAY_MS));
    expect(result.window.timeFrame).toEqual({
      startTime: new Date(today - 4 * DAY_MS).toISOString(),
      endTime: new Date(today - 3 * DAY_MS).toISOString(),
    });
    // The run itself started today: the day before today is what the start time would have given.
    expect(dateOf(run.startTime.getTime())).toBe(dateOf(Date.now()));
    expect(result.window.label).not.toBe(dateOf(today - DAY_MS));
    expect(result.export.path).toContain(`cost-export-${dateOf(missedNight - DAY_MS)}.csv`);
  } finally {
    await handle.delete();
  }
});
