// `runbooks schedule create`'s command line, checked before Temporal is asked anything: each mistake is a usage error
// naming it, and unset policies take the runbook's defaults. (test/e2e/schedules.test.ts checks that nothing is
// created on a server.)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../operator/errors';
import { RUNBOOK_NAMES, RUNBOOKS } from '../../operator/runbooks';
import { parseBackfill } from '../../cli/schedule-backfill';
import { parseCreate } from '../../cli/schedule-create';
import { formatDuration, parseDuration } from '../../cli/schedule-policies';

const COST = ['--runbook', 'costExport', '--input', '{"window":"previous-day"}'];

test.each([
  ['a cron that is no cron', ['--cron', 'every day'], /--cron must be a cron expression/],
  ['neither --cron nor --interval', [], /--cron must be a cron expression .*or give --interval/],
  ['both --cron and --interval', ['--cron', '0 2 * * *', '--interval', '24h'], /give --cron or --interval, not both/],
  ['an interval without a unit', ['--interval', '24'], /--interval must be a duration .* not '24'/],
  ['an interval under a second', ['--interval', '0s'], /--interval must be a duration of at least 1s/],
  ['an interval in weeks', ['--interval', '1w'], /--interval must be a duration/],
  [
    'an unknown overlap policy',
    ['--cron', '@daily', '--overlap', 'queue'],
    /--overlap must be one of skip, buffer-one/,
  ],
  ['a jitter in words', ['--cron', '@daily', '--jitter', 'a bit'], /--jitter must be a duration .*not 'a bit'/],
  ['a jitter as long as the interval', ['--interval', '30m', '--jitter', '30m'], /--jitter \(30m\) must be shorter/],
  [
    'a catch-up window under 10s',
    ['--cron', '@daily', '--catchup-window', '5s'],
    /--catchup-window must be a duration of at least 10s/,
  ],
  ['an unknown time zone', ['--cron', '@daily', '--timezone', 'Mars/Olympus'], /--timezone must be an IANA time zone/],
])('%s is a usage error', (_, args, message) => {
  const parse = () => parseCreate(['nightly', ...COST, ...args]);
  expect(parse).toThrow(UsageError);
  expect(parse).toThrow(message);
});

test('an unknown runbook, and an input its schema refuses, are usage errors', () => {
  expect(() => parseCreate(['x', '--runbook', 'drill', '--cron', '@daily'])).toThrow(
    "unknown runbook 'drill': did you mean 'drDrill'?",
  );
  const bad = () =>
    parseCreate(['x', '--runbook', 'costExport', '--cron', '@daily', '--input', '{"window":"yesterday"}']);
  expect(bad).toThrow(UsageError);
  expect(bad).toThrow(/invalid input for costExport; nothing was started:\n {2}window/);
});

test("unset policies are the runbook's defaults; a drill skips and a cost export buffers one", () => {
  const cost = parseCreate(['nightly', ...COST, '--cron', '0 2 * * *']);
  expect(cost).toMatchObject({ overlap: 'buffer-one', catchupWindowMs: 86_400_000, jitterMs: 300_000 });
  expect(cost.spec).toEqual({ cron: '0 2 * * *' });
  expect(RUNBOOKS.drDrill.schedule.overlap).toBe('skip');
  const given = parseCreate([
    'nightly',
    ...COST,
    '--interval',
    '1h30m',
    '--overlap',
    'allow-all',
    '--jitter',
    '0',
    '--catchup-window',
    '2h',
    '--paused',
    '--note',
    'owned by finops',
  ]);
  expect(given).toMatchObject({ overlap: 'allow-all', jitterMs: 0, catchupWindowMs: 7_200_000, paused: true });
  expect(given.spec).toEqual({ interval: '1h30m', intervalMs: 5_400_000 });
  expect(given.note).toBe('owned by finops');
});

test('every runbook has defaults a schedule can apply', () => {
  for (const d of RUNBOOK_NAMES.map((name) => RUNBOOKS[name].schedule)) {
    expect(parseDuration(d.jitter)).toBeDefined();
    expect(parseDuration(d.catchupWindow)).toBeGreaterThanOrEqual(10_000);
  }
});

test("docs/operations/schedules.md's table of defaults is each contract's schedule", () => {
  const page = readFileSync(join(__dirname, '..', '..', 'docs', 'operations', 'schedules.md'), 'utf8');
  for (const runbook of RUNBOOK_NAMES) {
    const row = new RegExp(`^\\| \`${runbook}\` +\\| \`([a-z-]+)\` +\\| (\\S+) +\\| (\\S+) +\\|`, 'm').exec(page);
    const { overlap, catchupWindow, jitter } = RUNBOOKS[runbook].schedule;
    expect({ runbook, row: row?.slice(1, 4) }).toEqual({ runbook, row: [overlap, catchupWindow, jitter] });
  }
});

test('durations read and print in d, h, m and s', () => {
  expect(parseDuration('24h')).toBe(86_400_000);
  expect(parseDuration('1d2h3m4s')).toBe(93_784_000);
  expect(parseDuration('0')).toBe(0);
  for (const bad of ['', 'h', '1.5h', '-1h', '1 h', '1ms']) expect(parseDuration(bad)).toBeUndefined();
  expect(formatDuration(93_784_000)).toBe('1d2h3m4s');
  expect(formatDuration(0)).toBe('0s');
});

test.each([
  ['no --from', ['--to', '2026-01-02'], /--from and --to are required/],
  ['a date in words', ['--from', 'last monday', '--to', '2026-01-02'], /--from must be a date such as 2026-11-20/],
  ['a time without its zone', ['--from', '2026-01-01T02:00', '--to', '2026-01-02'], /--from must be a date/],
  ['--to before --from', ['--from', '2026-01-05', '--to', '2026-01-02'], /--to must be after --from/],
  ['a range in the future', ['--from', '2999-01-01', '--to', '2999-01-02'], /--from 2999-01-01 is not in the past/],
  ['an unknown policy', ['--from', '2026-01-01', '--to', '2026-01-02', '--overlap', 'all'], /--overlap must be/],
])('backfill with %s is a usage error', (_, args, message) => {
  expect(() => parseBackfill(['nightly', ...args])).toThrow(UsageError);
  expect(() => parseBackfill(['nightly', ...args])).toThrow(message);
});

test("backfill's range: whole UTC days, --to's included; the runs go one after another unless told otherwise", () => {
  const request = parseBackfill(['nightly', '--from', '2026-01-01', '--to', '2026-01-03']);
  expect(request).toMatchObject({ overlap: 'buffer-all', wait: true, json: false });
  expect([request.from.toISOString(), request.to.toISOString()]).toEqual([
    '2026-01-01T00:00:00.000Z',
    '2026-01-04T00:00:00.000Z',
  ]);
  const times = parseBackfill([
    'nightly',
    '--from',
    '2026-01-01T02:00:00+01:00',
    '--to',
    '2026-01-01T03:00:00Z',
    '--no-wait',
  ]);
  expect([times.from.toISOString(), times.to.toISOString(), times.wait]).toEqual([
    '2026-01-01T01:00:00.000Z',
    '2026-01-01T03:00:00.000Z',
    false,
  ]);
});
