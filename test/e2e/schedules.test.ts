// `runbooks schedule …` end to end: the CLI, run from source against a dev server with a runbook worker, creates
// schedules that start runs; a trigger during a running drill is skipped and `describe` says so; a cost export's
// backfill writes each day's file once; a paused schedule starts nothing; bad input creates nothing.
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { statusQuery } from '../../contracts';
import type { ScheduleDescribeOutput } from '../../operator/output-shapes';
import type { DrDrillInput, DrDrillResult } from '../../runbooks/dr-drill/contract';
import { runCliFromSourceAsync } from '../helpers/cli-from-source';
import { bucketDestination, cliEnvOf, costExportScheduleArgs, drillTargets, e2eSuite, eventually } from './helpers';

const fx = e2eSuite();
let drillInput: DrDrillInput;

beforeAll(async () => {
  const { vault, account, resources } = drillTargets(fx);
  const [resource] = resources;
  if (!resource) throw new Error('the seeded simulator has no snapshotted non-database resource');
  // One resource, and a drill that waits for its verdict: it runs until the test gives it.
  drillInput = {
    name: `sched-${randomUUID().slice(0, 8)}`,
    resources: { ids: [resource.id] },
    vaultId: vault.id,
    restoreAccountId: account.id,
    destination: bucketDestination('dr-drill-restores', 'schedules/'),
    targets: { rpoSeconds: 3 * 86400, rtoSeconds: 3600 },
    validation: { windowHours: 1 },
  };
}, 120_000);

function runbooks(...args: string[]) {
  return runCliFromSourceAsync(args, cliEnvOf(fx));
}

/** `runbooks …` that must exit 0; its standard output. */
async function ok(...args: string[]): Promise<string> {
  const result = await runbooks(...args);
  expect({ args, status: result.status, stderr: result.stderr }).toEqual({ args, status: 0, stderr: '' });
  return result.stdout;
}

async function describeJson(scheduleId: string): Promise<ScheduleDescribeOutput> {
  return JSON.parse(await ok('schedule', 'describe', scheduleId, '-o', 'json')) as ScheduleDescribeOutput;
}

async function exists(scheduleId: string): Promise<boolean> {
  return fx.env.client.schedule
    .getHandle(scheduleId)
    .describe()
    .then(
      () => true,
      () => false,
    );
}

test('a schedule triggers a drill that completes; a second trigger while it runs is skipped, and describe says so', async () => {
  const scheduleId = `drill-${randomUUID()}`;
  // Once a year: only the triggers start runs.
  const created = await ok(
    'schedule',
    'create',
    scheduleId,
    '--runbook',
    'drDrill',
    '--cron',
    '0 3 1 1 *',
    '--input',
    JSON.stringify(drillInput),
  );
  expect(created).toContain('policies: overlap skip, catch-up window 1h, jitter 5m');

  const first = /^triggered schedule \S+: started (\S+) \(run (\S+)\)$/m.exec(
    await ok('schedule', 'trigger', scheduleId),
  );
  if (!first?.[1] || !first[2]) throw new Error('no started run in the trigger output');
  const handle = fx.env.client.workflow.getHandle(first[1], first[2]);
  // The drill waits for the verdict on its resource: it is still running when the second trigger comes.
  const [resourceId] = await eventually('the drill to wait for a verdict', async () => {
    const waiting = (await handle.query(statusQuery)).awaitingVerdict ?? [];
    return waiting.length > 0 && waiting;
  });
  const second = await ok('schedule', 'trigger', scheduleId);
  expect(second).toMatch(
    new RegExp(`^skipped: schedule ${scheduleId} still runs ${first[1]} and its overlap policy is skip`),
  );

  const during = await describeJson(scheduleId);
  expect(during).toMatchObject({
    runbook: 'drDrill',
    spec: { cron: '0 3 1 1 *', jitterMs: 300_000 },
    policies: { overlap: 'skip', catchupWindowMs: 3_600_000, pauseOnFailure: false },
    paused: false,
    running: [first[1]],
    actions: { taken: 1, skippedOverlap: 1, missedCatchupWindow: 0 },
  });
  expect(during.recentRuns).toEqual([
    expect.objectContaining({ workflowId: first[1], runId: first[2], state: 'RUNNING' }),
  ]);
  expect(during.nextRuns[0]).toMatch(/^\d{4}-01-01T03:0\d:\d\d/);

  await ok('drill', 'validate', first[1], '--resource', resourceId ?? '', '--result', 'pass');
  const result = (await handle.result()) as DrDrillResult;
  expect(result.summary).toMatchObject({ verdict: 'PASS', total: 1, passed: 1 });

  const after = await eventually('describe to show the run completed', async () => {
    const d = await describeJson(scheduleId);
    return d.running.length === 0 && d;
  });
  expect(after.recentRuns).toEqual([expect.objectContaining({ workflowId: first[1], state: 'COMPLETED' })]);
  const text = await ok('schedule', 'describe', scheduleId);
  expect(text).toContain('1 skipped for overlap');
  expect(text).toMatch(new RegExp(`${first[1]}\\s+COMPLETED`));
  await ok('schedule', 'delete', scheduleId);
}, 180_000);

const DAY_MS = 86_400_000;
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

test('a backfill of 3 days writes 3 files; the same backfill again writes none and says so', async () => {
  const scheduleId = `cost-${randomUUID()}`;
  await ok(...costExportScheduleArgs(scheduleId, '--cron', '30 0 * * *', '--paused'));
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  // The nights of 20, 19 and 18 days ago, each exporting the day before it.
  const nights = [20, 19, 18].map((n) => today - n * DAY_MS);
  const days = nights.map((night) => dateOf(night - DAY_MS));
  const files = days.map((day) => join(fx.outputDir, 'cost-exports', `cost-export-${day}.csv`));
  const range = ['--from', dateOf(nights[0] ?? 0), '--to', dateOf(nights[2] ?? 0)];

  const first = await runbooks('schedule', 'backfill', scheduleId, ...range);
  expect(first.status).toBe(0);
  expect(first.stdout).toContain('3 runs: 3 written, 0 already present\n');
  for (const day of days) expect(first.stdout).toMatch(new RegExp(`${day}\\s+written`));
  expect(first.stderr).toContain('[3/3]');
  const written = await Promise.all(files.map((f) => stat(f)));

  const again = await runbooks('schedule', 'backfill', scheduleId, ...range);
  expect(again.status).toBe(0);
  expect(again.stdout).toContain('3 runs: 0 written, 3 already present: nothing changed\n');
  for (const day of days) expect(again.stdout).toMatch(new RegExp(`${day}\\s+already-present`));
  expect(again.stderr).toMatch(/already present in .*, left as it was/);
  // The same files: not renamed over, not touched.
  const kept = await Promise.all(files.map((f) => stat(f)));
  expect(kept.map((s) => [s.ino, s.mtimeMs])).toEqual(written.map((s) => [s.ino, s.mtimeMs]));

  // Six runs in all, each due on its night.
  const d = await describeJson(scheduleId);
  expect(d.actions.taken).toBe(6);
  expect(d.recentRuns.map((r) => r.scheduledAt.slice(0, 10))).toEqual([...nights, ...nights].map(dateOf));
  await ok('schedule', 'delete', scheduleId);
}, 180_000);

test('a paused schedule starts nothing; unpaused, it starts runs', async () => {
  const scheduleId = `paused-${randomUUID()}`;
  await ok(
    ...costExportScheduleArgs(
      scheduleId,
      '--interval',
      '2s',
      '--jitter',
      '0s',
      '--overlap',
      'skip',
      '--paused',
      '--note',
      'held for the test',
    ),
  );
  // Three intervals and more pass while it is paused.
  await new Promise((resolve) => setTimeout(resolve, 7_000));
  const paused = await describeJson(scheduleId);
  // Nor does it count the times it did not run as missed: pausing is deliberate.
  expect(paused).toMatchObject({
    paused: true,
    note: 'held for the test',
    actions: { taken: 0, skippedOverlap: 0, missedCatchupWindow: 0 },
    recentRuns: [],
  });
  let started = 0;
  for await (const _ of fx.env.client.workflow.list({ query: `TemporalScheduledById = '${scheduleId}'` })) started += 1;
  expect(started).toBe(0);

  // The same schedule unpaused does start runs: what the paused one did not do.
  expect(await ok('schedule', 'unpause', scheduleId)).toContain(`unpaused schedule ${scheduleId}`);
  await eventually('a run of the unpaused schedule', async () => (await describeJson(scheduleId)).actions.taken > 0);
  expect(await ok('schedule', 'pause', scheduleId, '--note', 'done')).toContain(`paused schedule ${scheduleId}`);
  expect(await describeJson(scheduleId)).toMatchObject({ paused: true, note: 'done' });
  await ok('schedule', 'delete', scheduleId);
}, 120_000);

test.each([
  ['a bad cron', ['--runbook', 'costExport', '--cron', 'nightly'], /--cron must be a cron expression/],
  ['a cron the server refuses', ['--runbook', 'costExport', '--cron', '61 * * * *'], /refused the schedule/],
  ['a bad interval', ['--runbook', 'costExport', '--interval', '1 day'], /--interval must be a duration/],
  ['an unknown runbook', ['--runbook', 'nightlyDrill', '--cron', '@daily'], /--runbook must be one of/],
  [
    'an input the schema refuses',
    ['--runbook', 'drDrill', '--cron', '@daily', '--input', '{"name":"x"}'],
    /invalid input for drDrill; nothing was started/,
  ],
  ['a bad overlap policy', ['--runbook', 'costExport', '--cron', '@daily', '--overlap', 'never'], /--overlap must be/],
  [
    'a bad jitter',
    ['--runbook', 'costExport', '--cron', '@daily', '--jitter', '5 minutes'],
    /--jitter must be a duration/,
  ],
  [
    'a bad catch-up window',
    ['--runbook', 'costExport', '--cron', '@daily', '--catchup-window', '1'],
    /--catchup-window must be a duration/,
  ],
])(
  '%s: exit 2, a message naming it, and no schedule',
  async (_, args, message) => {
    const scheduleId = `bad-${randomUUID()}`;
    const withInput = args.includes('--input') ? args : [...args, '--input', '{"window":"previous-day"}'];
    const result = await runbooks('schedule', 'create', scheduleId, ...withInput);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
    expect(result.status).toBe(2);
    expect(await exists(scheduleId)).toBe(false);
    const described = await runbooks('schedule', 'describe', scheduleId);
    expect(described.stderr).toMatch(new RegExp(`^no schedule '${scheduleId}'`));
    expect(described.status).toBe(5);
  },
  60_000,
);
