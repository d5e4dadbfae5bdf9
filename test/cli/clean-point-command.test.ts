// `runbooks clean-point`: its command line, checked whole before anything connects (no Temporal here), the restore
// account it finds on a simulator started in-process, and its text report.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeHttpPools } from '../../api';
import { allowedRestoreAccount, parseCleanPoint, printCleanPointReport } from '../../cli/clean-point-command';
import { EXIT_CODES, UsageError } from '../../operator/errors';
import { helpFor } from '../../operator/help';
import { MAX_WINDOW_DAYS, type CleanPointResult } from '../../runbooks/clean-point/contract';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { runCliInProcess } from '../helpers/cli-in-process';
import { serviceEnv } from '../helpers/service-env';

const CHECK = {
  name: 'no encrypted emails',
  databaseName: 'shopdb',
  destination: { amazonBucket: { bucketName: 'query-results-pa-east-1' } },
  queries: [{ name: 'encrypted', sql: "SELECT count(*) FROM customers WHERE email LIKE 'ENC:%'", expect: 'value = 0' }],
};
const INLINE = JSON.stringify(CHECK);

let scratch: string;
let checkFile: string;
let temporalAddress: string | undefined;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'clean-point-command-'));
  checkFile = join(scratch, 'check.json');
  writeFileSync(checkFile, INLINE);
  // Nothing here may connect: a command that tried would fail on this address, not pass.
  temporalAddress = process.env.TEMPORAL_ADDRESS;
  process.env.TEMPORAL_ADDRESS = '127.0.0.1:1';
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  if (temporalAddress === undefined) delete process.env.TEMPORAL_ADDRESS;
  else process.env.TEMPORAL_ADDRESS = temporalAddress;
});

/** The usage error a command line gets. */
function refusal(argv: string[]): string {
  try {
    parseCleanPoint(argv);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error(`accepted: ${argv.join(' ')}`);
}

test('a check from a file, with the defaults: 30 days, no end, the account left to find, text', () => {
  expect(parseCleanPoint(['orders-db', '--check', checkFile])).toEqual({
    input: { resourceId: 'orders-db', check: CHECK, windowDays: 30 },
    format: 'text',
  });
});

test('every option, the check inline', () => {
  const argv = ['orders-db', '--check', INLINE, '--restore-account', 'ra-1', '--window', '366d'];
  const parsed = parseCleanPoint([...argv, '--before', '2026-11-25T00:00:00Z', '-o', 'json']);
  expect(parsed).toEqual({
    input: {
      resourceId: 'orders-db',
      check: CHECK,
      restoreAccountId: 'ra-1',
      windowDays: 366,
      before: '2026-11-25T00:00:00Z',
    },
    format: 'json',
  });
});

test.each(['0d', '367d', '30', 'd', '1.5d', '2w', '30 days', 'thirty'])('--window %s is refused', (window) => {
  expect(refusal(['orders-db', '--check', checkFile, '--window', window])).toMatch(
    new RegExp(`^--window must be <N>d, N days from 1 to ${MAX_WINDOW_DAYS}, not '${window}'\nusage: `),
  );
});

test.each(['yesterday', '2026-11-25', '2026-11-25T00:00:00'])('--before %s is refused: no ISO 8601 time', (before) => {
  expect(refusal(['orders-db', '--check', checkFile, '--before', before])).toMatch(
    /^--before must be an ISO 8601 time/,
  );
});

test('the check and the resource are required', () => {
  expect(refusal(['orders-db'])).toMatch(/^give --check \(queries each point must pass\) or --validation/);
  expect(refusal(['--check', checkFile])).toMatch(/^missing <resourceId>\nusage: runbooks clean-point/);
  expect(refusal(['orders-db', 'other-db', '--check', checkFile])).toMatch(/^unexpected argument 'other-db'/);
  expect(refusal(['orders-db', '--check', ' '])).toMatch(/^--check is empty/);
  expect(refusal(['orders-db', '--check', join(scratch, 'none.json')])).toMatch(
    /^--check .*none\.json: not inline JSON/,
  );
});

test('a validation instead of a check: a restore of each point, validated outside; not both', () => {
  const validation = { name: 'no ransom note', destination: { bucketA: { bucketName: 'restores' } }, windowHours: 4 };
  expect(parseCleanPoint(['media', '--validation', JSON.stringify(validation)]).input).toEqual({
    resourceId: 'media',
    validation,
    windowDays: 30,
  });
  const both = ['media', '--validation', JSON.stringify(validation), '--check', checkFile];
  expect(refusal(both)).toMatch(/^give --check .* or --validation .*, one of them/);
  const overBudget = { ...validation, maxRestores: 21 };
  expect(refusal(['media', '--validation', JSON.stringify(overBudget)])).toMatch(/\n {2}validation\.maxRestores: /);
  const { windowHours: _, ...noWindow } = validation;
  expect(refusal(['media', '--validation', JSON.stringify(noWindow)])).toMatch(/\n {2}validation\.windowHours: /);
});

test('a bad check is refused naming its field, as start refuses an input', () => {
  const badExpectation = { ...CHECK, queries: [{ ...CHECK.queries[0], expect: 'value ~ 0' }] };
  expect(refusal(['orders-db', '--check', JSON.stringify(badExpectation)])).toMatch(
    /^invalid input for cleanPoint; nothing was started:\n {2}check\.queries\.0\.expect: "value ~ 0" is no expectation/,
  );
  const { databaseName: _, ...noDatabase } = CHECK;
  expect(refusal(['orders-db', '--check', JSON.stringify(noDatabase)])).toMatch(/\n {2}check\.databaseName: required/);
  expect(refusal(['orders-db', '--check', JSON.stringify({ ...CHECK, querys: [] })])).toMatch(/\n {2}check\.querys: /);
  expect(refusal(['orders-db', '--check', '{"name": '])).toMatch(/^--check is not valid JSON/);
});

test('in the CLI: an unknown option, a bad window or check are usage errors (2) before anything connects', async () => {
  const unknown = await runCliInProcess(['clean-point', 'orders-db', '--check', checkFile, '--windows', '7d']);
  expect(unknown).toEqual({
    status: EXIT_CODES.usage,
    stdout: '',
    stderr: "unknown option '--windows' for 'clean-point': did you mean '--window'?\n",
  });
  const window = await runCliInProcess(['clean-point', 'orders-db', '--check', checkFile, '--window', '400d']);
  expect(window.status).toBe(EXIT_CODES.usage);
  const check = await runCliInProcess(['clean-point', 'orders-db', '--check', '{"name": "x"}']);
  expect(check.status).toBe(EXIT_CODES.usage);
  expect(check.stderr).toMatch(/check\.queries: required/);
});

test('the help says the window it takes and the exit code when no point is clean', () => {
  const { text } = helpFor('clean-point');
  expect(text).toContain(`1d to ${MAX_WINDOW_DAYS}d`);
  expect(text).toContain(`${EXIT_CODES.runFailed} when no point of the window is clean, or the run failed`);
});

describe('the restore account, found on the service', () => {
  let sim: RunningSimulator;
  let env: Record<string, string>;

  beforeAll(async () => {
    sim = await startSimulator();
    env = serviceEnv(sim);
  });
  afterAll(async () => {
    await closeHttpPools();
    await sim.close();
  });

  const accounts = () => Object.values(sim.ctx.state.restoreAccounts);

  test('several allow restores: a usage error lists them and asks for --restore-account', async () => {
    const allowed = accounts().filter((a) => a.isRestoreAllowed);
    expect(allowed.length).toBeGreaterThan(1);
    const found = allowedRestoreAccount(env);
    await expect(found).rejects.toThrow(UsageError);
    await expect(found).rejects.toThrow(`${allowed.length} restore accounts of ${sim.baseUrl} allow restores:`);
    for (const account of allowed) await expect(found).rejects.toThrow(`\n  ${account.id}  ${account.name}\n`);
    await expect(found).rejects.toThrow('--restore-account <id>');
  });

  test('one allows restores: it is the one; none: a usage error', async () => {
    const [kept, ...others] = accounts().filter((a) => a.isRestoreAllowed);
    for (const account of others) account.isRestoreAllowed = false;
    expect(await allowedRestoreAccount(env)).toBe(kept?.id);
    if (kept) kept.isRestoreAllowed = false;
    await expect(allowedRestoreAccount(env)).rejects.toThrow(
      new UsageError(`no restore account of ${sim.baseUrl} allows restores (of ${accounts().length}); `).message,
    );
  });
});

test('the text report: the verdict, each query of each point in probe order, findings, queries and the run', () => {
  const point = (index: number, verdict: 'pass' | 'fail', count: string) => ({
    index,
    snapshotId: `snap-${index}`,
    pointInTime: `2026-11-${String(30 - index).padStart(2, '0')}T00:00:00.000Z`,
    verdict,
    queries: [
      { name: 'encrypted', queryId: `q-${index}`, rows: 1, firstValue: count, expect: 'value = 0', met: count === '0' },
      { name: 'orders', queryId: `o-${index}`, rows: 0, expect: 'rows >= 1', met: verdict === 'pass' },
    ],
  });
  const result: CleanPointResult = {
    resourceId: 'orders-db',
    check: { name: 'no encrypted emails', sha256: 'ab'.repeat(32) },
    window: { days: 30, before: '2026-11-30T00:00:00.000Z', candidates: 8 },
    clean: {
      snapshotId: 'snap-4',
      pointInTime: '2026-11-26T00:00:00.000Z',
      index: 4,
      behindNewest: { points: 4, seconds: 345_600 },
    },
    verdict: 'clean as of no encrypted emails: snap-4 (2026-11-26T00:00:00.000Z), 4 behind the newest',
    examined: [point(3, 'fail', '12'), point(5, 'pass', '0'), point(4, 'pass', '0'), point(6, 'fail', '3')],
    nonMonotone: [{ passed: 'snap-5', failedOlder: 'snap-6' }],
    queries: { run: 8, linearScan: 10, bound: 8 },
  };
  const lines: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
  try {
    printCleanPointReport(result, 'clean-point-orders-db-0123456789-2026-11-30');
  } finally {
    log.mockRestore();
  }
  expect(lines[0]).toBe(result.verdict);
  const table = lines.slice(lines.indexOf('points examined, in probe order:') + 1);
  expect(table[0]?.split(/\s{2,}/)).toEqual([
    '#',
    'SNAPSHOT',
    'POINT IN TIME',
    'VERDICT',
    'QUERY',
    'ROWS',
    'FIRST VALUE',
    'EXPECT',
    'MET',
  ]);
  expect(table[1]?.split(/\s{2,}/)).toEqual([
    '1',
    'snap-3',
    '2026-11-27T00:00:00.000Z',
    'fail',
    'encrypted',
    '1',
    '12',
    'value = 0',
    'no',
  ]);
  // A point's second query shows only the query's columns.
  expect(table[2]?.trim().split(/\s{2,}/)).toEqual(['orders', '0', '(no row)', 'rows >= 1', 'no']);
  expect(table.filter((line) => /^\d /.test(line)).map((line) => line.split(/\s+/)[1])).toEqual([
    'snap-3',
    'snap-5',
    'snap-4',
    'snap-6',
  ]);
  expect(lines).toContain(
    'warning: snap-5 passed but the older snap-6 failed: damage that went away, or a check that is not monotone',
  );
  expect(lines).toContain('queries:  8 run (bound 8); a scan from the newest would have run 10');
  expect(lines.at(-1)).toBe('workflow: clean-point-orders-db-0123456789-2026-11-30');
});
