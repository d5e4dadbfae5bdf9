// queryExport and costExport end to end: files on disk, checked against the service's own data.
import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { csvRecord } from '../../runtime/csv';
import { COST_COLUMNS } from '../../runbooks/cost-export/activities';
import { costExport, queryExport } from '../../runbooks/workflows';
import type { CostExportInput } from '../../runbooks/cost-export/contract';
import type { QueryExportInput } from '../../runbooks/query-export/contract';
import { FailureType, RunbookResourceKey } from '../../contracts';
import { dialectOfToken } from '../../api/dialect';
import {
  expectRefusedInput,
  failureOf,
  historyText,
  queryExportInput,
  queryTarget,
  scanForSecrets,
  setupE2E,
  teardownE2E,
  testDialect,
  type E2E,
  type QueryTarget,
} from './helpers';

let fx: E2E;
let db: QueryTarget;

beforeAll(async () => {
  fx = await setupE2E();
  db = await queryTarget(fx, 'events');
}, 120_000);

afterAll(() => teardownE2E(fx), 60_000);

function runQueryExport(
  sql: string,
  extra: Partial<QueryExportInput> = {},
  workflowId = `query-export-${randomUUID()}`,
) {
  return fx.env.client.workflow.start(queryExport, {
    taskQueue: fx.worker.taskQueue,
    workflowId,
    args: [{ ...queryExportInput(db, sql), ...extra }],
  });
}

function runCostExport(input: CostExportInput, workflowId = `cost-export-${randomUUID()}`) {
  return fx.env.client.workflow.execute(costExport, {
    taskQueue: fx.worker.taskQueue,
    workflowId,
    args: [input],
  });
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** Data rows of a CSV file, counting quoted line breaks as part of their field. */
function csvRows(text: string): number {
  let rows = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (c === '\n' && !quoted) rows += 1;
  }
  return rows - 1;
}

test('a query export writes every row to CSV and returns the service output locations', async () => {
  const handle = await runQueryExport('SELECT id, name, email, notes FROM customers ORDER BY id', {
    fileName: 'customers.csv',
  });
  const result = await handle.result();

  expect(result.export.path.endsWith('/query-exports/customers.csv')).toBe(true);
  expect(result.outputLocations).toHaveLength(1);
  // Under the bucket and prefix asked for; the URL scheme is the simulator's own (neither document names one).
  expect(result.outputLocations[0]).toMatch(new RegExp(`^[a-z0-9]+://${db.bucketName}/e2e/`));
  const text = await readFile(result.export.path, 'utf8');
  expect(text.startsWith('id,name,email,notes\r\n')).toBe(true);
  expect(csvRows(text)).toBe(result.export.rows);
  expect(result.export.rows).toBeGreaterThanOrEqual(400);
  expect(result.export.sha256).toBe(sha256(text));
  expect(result.export.bytes).toBe(Buffer.byteLength(text));
  expect((await handle.describe()).typedSearchAttributes.get(RunbookResourceKey)).toBe(db.snapshotId);
});

test('two runs of one workflow ID (a rerun after completion) leave two files, each named for its run', async () => {
  const workflowId = `query-export-rerun-${randomUUID()}`;
  const sql = 'SELECT id, name FROM customers ORDER BY id';
  const first = await runQueryExport(sql, {}, workflowId);
  const firstResult = await first.result();
  const firstText = await readFile(firstResult.export.path);
  const second = await runQueryExport(sql, {}, workflowId);
  const secondResult = await second.result();

  expect(basename(firstResult.export.path)).toBe(`${workflowId}--${first.firstExecutionRunId}.csv`);
  expect(basename(secondResult.export.path)).toBe(`${workflowId}--${second.firstExecutionRunId}.csv`);
  expect(secondResult.export.path).not.toBe(firstResult.export.path);
  // The first run's file is still there, as that run reported it.
  expect(sha256(await readFile(firstResult.export.path))).toBe(firstResult.export.sha256);
  expect(sha256(firstText)).toBe(firstResult.export.sha256);
  expect(sha256(await readFile(secondResult.export.path))).toBe(secondResult.export.sha256);
  const own = (await readdir(dirname(firstResult.export.path))).filter((name) => name.startsWith(workflowId));
  expect(own.sort()).toEqual([basename(firstResult.export.path), basename(secondResult.export.path)].sort());
});

test('an explicit fileName another run wrote is refused (CONFLICT, naming the file) and left as it was', async () => {
  const fileName = `taken-${randomUUID()}.csv`;
  const first = await (await runQueryExport('SELECT id, name FROM customers ORDER BY id', { fileName })).result();
  const before = await stat(first.export.path);

  const other = await runQueryExport('SELECT id FROM events ORDER BY id', { fileName });
  const failure = await failureOf(other);
  expect(failure.type).toBe(FailureType.Conflict);
  expect(failure.nonRetryable).toBe(true);
  expect(failure.message).toContain(`query-exports/${fileName}`);
  expect(failure.message).toContain('another fileName');

  const after = await stat(first.export.path);
  expect(after.ino).toBe(before.ino);
  expect(sha256(await readFile(first.export.path))).toBe(first.export.sha256);
  // Refused before a byte was written: no partial file of the refused run.
  const names = (await readdir(dirname(first.export.path))).filter((name) => name.startsWith(fileName));
  expect(names.sort()).toEqual([fileName, `${fileName}.owner`]);
});

test.each([
  ['a statement that is not a SELECT', 'DELETE FROM events'],
  ['SQL naming no table of the database', 'SELECT * FROM no_such_table'],
])('a query that ends FAILED (%s) fails the run with QueryFailed and the service message', async (_what, sql) => {
  const handle = await runQueryExport(sql);
  const failure = await failureOf(handle);
  expect(failure.type).toBe(FailureType.QueryFailed);
  expect(failure.nonRetryable).toBe(true);
  const details = failure.details?.[0] as { status?: string; errorMessage?: string } | undefined;
  expect(details?.status).toBe('FAILED');
  expect(details?.errorMessage).toBeTruthy();
  expect(failure.message).toContain(details?.errorMessage ?? '');
});

test('an export of more than 20,000 rows over more than 40 pages matches the service data, and history holds no rows', async () => {
  const handle = await runQueryExport('SELECT * FROM events ORDER BY id', { pageSize: 500 });
  const { export: summary, queryId } = await handle.result();
  console.log(`query export: ${summary.rows} rows, ${summary.pages} pages, ${summary.bytes} bytes`);
  expect(summary.rows).toBeGreaterThanOrEqual(20_000);
  expect(summary.pages).toBeGreaterThanOrEqual(40);

  // The same rows, read independently (other page size) with the project's client.
  let expected = '';
  let rows = 0;
  const samples: string[] = [];
  for await (const page of fx.service.queryResultPages(queryId, { pageSize: 3_000 })) {
    if (rows === 0) expected += csvRecord(page.columns, { exact: true });
    for (const record of page.records) {
      expected += csvRecord(record, { exact: true });
      if ([0, 7_777, 19_999].includes(rows)) samples.push(record[1] ?? '');
      rows += 1;
    }
  }
  const file = await readFile(summary.path);
  expect(summary.rows).toBe(rows);
  expect(csvRows(file.toString('utf8'))).toBe(rows);
  expect(sha256(file)).toBe(sha256(expected));
  expect(summary.sha256).toBe(sha256(expected));

  const history = historyText(await handle.fetchHistory());
  expect(samples).toHaveLength(3);
  for (const value of samples) {
    expect(value.length).toBeGreaterThan(10);
    expect(history.includes(value)).toBe(false);
  }
  expect(history.length).toBeLessThan(100_000);
});

test('a cost export over an explicit window passes every option and names its file for the window', async () => {
  const day = 24 * 3600 * 1000;
  const today = Math.floor(Date.now() / day) * day;
  const startTime = new Date(today - 3 * day).toISOString();
  const endTime = new Date(today - day).toISOString();
  const result = await runCostExport({
    window: { startTime, endTime },
    options: { granularity: 'DAILY', groupBy: 'RESOURCE_TYPE', costUnit: 'USD', usageUnit: 'BYTES' },
    pageSize: 7,
  });

  const compact = (iso: string) => iso.replace(/[:.]/g, '').replace(/000Z$/, 'Z');
  expect(result.window.label).toBe(`${compact(startTime)}_${compact(endTime)}`);
  expect(basename(result.export.path)).toBe(`cost-export-${result.window.label}.csv`);
  expect(result.window.timeFrame).toEqual({ startTime, endTime });
  const text = await readFile(result.export.path, 'utf8');
  const lines = text.trimEnd().split('\r\n');
  expect(lines[0]).toBe(COST_COLUMNS.join(','));
  expect(lines.length - 1).toBe(result.export.rows);
  expect(result.export.rows).toBeGreaterThan(0);
  expect(result.export.pages).toBeGreaterThan(1);
  const rows = lines.slice(1).map((line) => line.split(','));
  const column = (name: (typeof COST_COLUMNS)[number]) => COST_COLUMNS.indexOf(name);
  expect(new Set(rows.map((r) => r[column('costUnit')]))).toEqual(new Set(['USD']));
  expect(new Set(rows.map((r) => r[column('usageUnit')]))).toEqual(new Set(['BYTES']));
  expect(rows.every((r) => (r[column('resourceType')] ?? '') !== '')).toBe(true);
  // The types are the service's own, in its dialect.
  expect(new Set(rows.map((r) => dialectOfToken(r[column('resourceType')] ?? '')))).toEqual(new Set([testDialect()]));
  // Daily records: two days in the window.
  expect(new Set(rows.map((r) => r[column('periodStart')]))).toEqual(
    new Set([startTime, new Date(today - 2 * day).toISOString()]),
  );
});

test('a previous-day cost export covers yesterday (UTC) and is named for it', async () => {
  const result = await runCostExport({ window: 'previous-day', options: { groupBy: 'CLOUD_PROVIDER' } });
  const day = 24 * 3600 * 1000;
  const today = Math.floor(Date.now() / day) * day;
  const yesterday = new Date(today - day).toISOString();
  expect(result.window).toEqual({
    label: yesterday.slice(0, 10),
    timeFrame: { startTime: yesterday, endTime: new Date(today).toISOString() },
  });
  expect(basename(result.export.path)).toBe(`cost-export-${yesterday.slice(0, 10)}.csv`);
  expect(result.export.rows).toBeGreaterThan(0);
});

test('a re-run for the same window replaces the file atomically with the same content', async () => {
  const input: CostExportInput = {
    window: { startTime: '2025-01-01T00:00:00Z', endTime: '2025-01-08T00:00:00Z' },
    options: { granularity: 'DAILY', groupBy: 'RESOURCE' },
    pageSize: 50,
  };
  const first = await runCostExport(input);
  const before = await stat(first.export.path);
  const firstText = await readFile(first.export.path);
  const second = await runCostExport(input);
  const after = await stat(second.export.path);

  expect(second.export.path).toBe(first.export.path);
  expect(second.export.sha256).toBe(first.export.sha256);
  expect(sha256(await readFile(second.export.path))).toBe(sha256(firstText));
  // A rename over the old file (a new inode), not a rewrite in place; and no partial file left behind.
  expect(after.ino).not.toBe(before.ino);
  const leftovers = (await readdir(dirname(second.export.path))).filter((name) => !name.endsWith('.csv'));
  expect(leftovers).toEqual([]);
});

test('two runs of one window at once (a schedule and a manual one) each write their own partial file', async () => {
  const input: CostExportInput = {
    // A day of hourly rows in pages of 10: many pages each, so that the two runs' writes interleave.
    window: { startTime: '2025-02-01T00:00:00Z', endTime: '2025-02-02T00:00:00Z' },
    options: { granularity: 'HOURLY', groupBy: 'RESOURCE' },
    pageSize: 10,
  };
  const ids = [`cost-export-${randomUUID()}`, `cost-export-${randomUUID()}`];
  const [a, b] = await Promise.all(ids.map((workflowId) => runCostExport(input, workflowId)));
  if (!a || !b) throw new Error('both runs return a result');

  // Sharing one partial file, the first rename would pull it from under the other, whose attempt would then fail.
  for (const workflowId of ids) {
    const { events } = await fx.env.client.workflow.getHandle(workflowId).fetchHistory();
    const attempts = (events ?? []).flatMap((e) => e.activityTaskStartedEventAttributes?.attempt ?? []);
    expect(attempts.every((attempt) => attempt === 1)).toBe(true);
  }
  expect(b.export.path).toBe(a.export.path);
  // Sharing one partial file, each would have appended to or truncated the other's pages.
  expect(b.export.sha256).toBe(a.export.sha256);
  expect(b.export.rows).toBe(a.export.rows);
  expect(a.export.rows).toBeGreaterThan(10 * 10);
  expect(sha256(await readFile(a.export.path))).toBe(a.export.sha256);
  expect(csvRows((await readFile(a.export.path)).toString('utf8'))).toBe(a.export.rows);
  const leftovers = (await readdir(dirname(a.export.path))).filter((name) => !name.endsWith('.csv'));
  expect(leftovers).toEqual([]);
});

test.each([
  [
    'queryExport',
    { snapshotId: '', query: { databaseName: 'x', query: 'SELECT 1', restoreAccountId: 'r' } },
    'snapshotId',
  ],
  ['queryExport', { snapshotId: 's', query: { databaseName: 'x', query: 'SELECT 1' } }, 'query.restoreAccountId'],
  ['costExport', { window: 'yesterday' }, 'window'],
  ['costExport', { window: { startTime: '2025-01-01T00:00:00Z', endTime: '2025-01-01T06:00:00Z' } }, 'window.endTime'],
] as const)('%s with invalid input %j fails at once with InvalidInput naming %s', async (runbook, input, field) => {
  const handle = await fx.env.client.workflow.start(runbook, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `invalid-${randomUUID()}`,
    args: [input],
  });
  await expectRefusedInput(handle, `invalid input ${field}`);
});

test('no secret or token appears in any workflow history or in the logs', async () => {
  await scanForSecrets(fx, 8);
});
