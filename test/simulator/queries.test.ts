// Conformance of the database-query endpoints (docs/service-interface.md §8), over raw HTTP.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryResults, QueryStarted, QueryStatusBody } from '../../api';
import type { InventoryResourceDocument as InventoryResource, SnapshotDocument as Snapshot } from '../../api';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { fillDatabase, growthDays } from '../../simulator/seed-databases';
import { loadSqlEngine } from '../../simulator/sql-engine';
import { allPages, errorOf, okBody, suiteCall, tokenFor, expectBadRequest } from './helpers';

let sim: RunningSimulator;
let token: string;
let fx: Fixture;

interface Fixture {
  resource: InventoryResource;
  databaseName: string;
  earlier: Snapshot;
  later: Snapshot;
  region: string;
  restoreAccountId: string;
  nonRelationalSnapshotId: string;
}

const call = suiteCall(() => ({ sim, token }));
const project = () => `/v1/projects/${sim.projectId}`;
const queryPath = (snapshotId: string) => `${project()}/snapshots/${snapshotId}/databases/query`;
const statusPath = (queryId: string) => `${project()}/queries/${encodeURIComponent(queryId)}/status`;
const resultsPath = (queryId: string, params = '') =>
  `${project()}/queries/${encodeURIComponent(queryId)}/results${params}`;

function runBody(query: string, overrides: Record<string, unknown> = {}) {
  return {
    databaseName: fx.databaseName,
    query,
    restoreAccountId: fx.restoreAccountId,
    destination: { bucketA: { bucketName: `exports-${fx.region}`, prefix: 'runbooks/tests' } },
    ...overrides,
  };
}

async function submit(query: string, snapshot = fx.later): Promise<string> {
  const res = await call('POST', queryPath(snapshot.id), { body: runBody(query) });
  expect(res.status).toBe(202);
  return QueryStarted.parse(res.body).queryId;
}

async function advance(seconds: number) {
  expect((await call('POST', '/_simulator/clock/advance', { body: { seconds }, auth: null })).status).toBe(200);
}

async function completed(query: string, snapshot = fx.later): Promise<string> {
  const id = await submit(query, snapshot);
  await advance(sim.ctx.state.jobsConfig.querySeconds);
  return id;
}

async function allRows(queryId: string, pageSize: number) {
  const pages = await allPages(pageSize, async (params) =>
    okBody(await call('GET', resultsPath(queryId, params)), QueryResults),
  );
  return { rows: pages.flatMap((page) => page.records), pages: pages.length };
}

/** Picks from the seeded inventory: a relational resource with two vaulted snapshots, and what the errors need. */
function prepareFixture(): Fixture {
  const state = sim.ctx.state;
  const time = (s: Snapshot) => s.pointInTime ?? s.createdTime;
  const vaulted = (resourceId: string) =>
    Object.values(state.snapshots)
      .filter((s) => s.resourceId === resourceId && s.vaultId && state.vaults[s.vaultId])
      .sort((a, b) => time(a).localeCompare(time(b)));
  const resource = Object.values(state.resources).find(
    ({ resource: r }) => r.resourceType === 'PA_RELATIONAL_DB' && vaulted(r.id).length >= 2,
  )?.resource;
  if (!resource) throw new Error('the seeded inventory has no PA_RELATIONAL_DB resource with two snapshots');
  const snapshots = vaulted(resource.id);
  const [earlier, later] = [snapshots[0], snapshots.at(-1)];
  const region = state.vaults[later?.vaultId ?? '']?.region;
  const restoreAccountId = Object.values(state.restoreAccounts).find((a) => a.isRestoreAllowed)?.id;
  const nonRelational = Object.values(state.snapshots).find(
    (s) => state.resources[s.resourceId] && state.resources[s.resourceId]?.resource.resourceType !== 'PA_RELATIONAL_DB',
  );
  if (!earlier || !later || !region || !restoreAccountId || !nonRelational) {
    throw new Error('the seeded inventory lacks a vault region, a restore account or a non-relational snapshot');
  }
  return {
    resource,
    databaseName: '',
    earlier,
    later,
    region,
    restoreAccountId,
    nonRelationalSnapshotId: nonRelational.id,
  };
}

beforeAll(async () => {
  sim = await startSimulator({ port: 0 });
  // Query time runs on the simulated clock, which also moves with real time: leave room for a loaded machine.
  sim.ctx.state.jobsConfig.querySeconds = 120;
  token = await tokenFor(sim);
  fx = prepareFixture();
  const state = await call('GET', '/_simulator/state', { auth: null });
  const databases = (state.body as { databases: { resourceId: string; databaseName: string }[] }).databases;
  fx.databaseName = databases.find((d) => d.resourceId === fx.resource.id)?.databaseName ?? '';
});

afterAll(async () => {
  await sim?.close();
});

/** A minimal RFC 4180 reader: quoted fields may hold commas, doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}

/** The rows of a statement run directly on the database the snapshot holds. */
async function directRows(sql: string, s: Snapshot): Promise<{ columns: string[]; values: unknown[][] }> {
  const SQL = await loadSqlEngine();
  const db = new SQL.Database();
  try {
    fillDatabase(db, sim.ctx.state.seed, fx.resource.id, growthDays(sim.ctx.state.seed, fx.resource, s));
    const [result] = db.exec(sql);
    return { columns: result?.columns ?? [], values: result?.values ?? [] };
  } finally {
    db.close();
  }
}

describe('GET /_simulator/state', () => {
  test('lists a database for every PA_RELATIONAL_DB resource, and the bucket rule', async () => {
    const res = await call('GET', '/_simulator/state', { auth: null });
    const body = res.body as {
      databases: { resourceId: string; databaseName: string; tables: string[] }[];
      bucketRule: string;
    };
    const relational = Object.values(sim.ctx.state.resources).filter(
      ({ resource }) => resource.resourceType === 'PA_RELATIONAL_DB',
    );
    expect(body.databases).toHaveLength(relational.length);
    const mine = body.databases.find((d) => d.resourceId === fx.resource.id);
    expect(mine?.databaseName).toMatch(/^[a-z]+$/);
    expect(mine?.tables).toEqual(['customers', 'orders', 'order_items', 'events']);
    expect(body.bucketRule).toMatch(/^any valid bucket name is accepted/);
  });
});

describe('POST .../snapshots/{snapshotId}/databases/query', () => {
  test('202 with a query ID of two UUIDs joined by a colon', async () => {
    const id = await submit('SELECT count(*) AS n FROM customers');
    expect(id).toMatch(/^[0-9a-f-]{36}:[0-9a-f-]{36}$/);
    expect(sim.ctx.state.queries[id]?.snapshotId).toBe(fx.later.id);
  });

  test('400 naming the field when the body is incomplete', async () => {
    const res = await call('POST', queryPath(fx.later.id), { body: { ...runBody('SELECT 1'), query: undefined } });
    expectBadRequest(res, 'body.query');
    const blank = await call('POST', queryPath(fx.later.id), { body: runBody('  \n ') });
    expect(blank.status).toBe(400);
    expect(errorOf(blank)).toBe('invalid body.query: must not be blank');
  });

  test('400 when the destination has no bucketA', async () => {
    const res = await call('POST', queryPath(fx.later.id), { body: runBody('SELECT 1', { destination: {} }) });
    expectBadRequest(res, 'body.destination.bucketA');
  });

  test('400 when the bucket name is not a valid one, or the prefix climbs out of the bucket', async () => {
    const invalid = { bucketA: { bucketName: 'No_Such_Bucket' } };
    const res = await call('POST', queryPath(fx.later.id), { body: runBody('SELECT 1', { destination: invalid }) });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toBe('invalid body.destination.bucketA.bucketName: not a valid bucket name');
    const climbing = { bucketA: { bucketName: `exports-${fx.region}`, prefix: 'a/../../etc' } };
    const res2 = await call('POST', queryPath(fx.later.id), { body: runBody('SELECT 1', { destination: climbing }) });
    expect(res2.status).toBe(400);
    expect(errorOf(res2)).toContain('prefix');
  });

  test('400 when the snapshot is not of a PA_RELATIONAL_DB resource', async () => {
    const res = await call('POST', queryPath(fx.nonRelationalSnapshotId), { body: runBody('SELECT 1') });
    expectBadRequest(res, 'PA_RELATIONAL_DB');
  });

  test('404 for an unknown snapshot, restore account, database or project', async () => {
    expect((await call('POST', queryPath('no-such-snapshot'), { body: runBody('SELECT 1') })).status).toBe(404);
    const noAccount = runBody('SELECT 1', { restoreAccountId: 'no-such-account' });
    expect((await call('POST', queryPath(fx.later.id), { body: noAccount })).status).toBe(404);
    const noDb = await call('POST', queryPath(fx.later.id), { body: runBody('SELECT 1', { databaseName: 'nodb' }) });
    expect(noDb.status).toBe(404);
    expect(errorOf(noDb)).toContain(fx.databaseName);
    const otherProject = `/v1/projects/00000000-0000-4000-8000-000000000000/snapshots/${fx.later.id}/databases/query`;
    expect((await call('POST', otherProject, { body: runBody('SELECT 1') })).status).toBe(404);
  });

  test('401 without a token, 403 without databases.query', async () => {
    expect((await call('POST', queryPath(fx.later.id), { body: runBody('SELECT 1'), auth: null })).status).toBe(401);
    const weak = await tokenFor(sim, ['inventory.view', 'cost_explorer.view']);
    expect((await call('POST', queryPath(fx.later.id), { body: runBody('SELECT 1'), auth: weak })).status).toBe(403);
    const id = await submit('SELECT 1');
    expect((await call('GET', statusPath(id), { auth: weak })).status).toBe(403);
    expect((await call('GET', resultsPath(id), { auth: weak })).status).toBe(403);
    expect((await call('GET', statusPath(id), { auth: null })).status).toBe(401);
    expect((await call('GET', resultsPath(id), { auth: null })).status).toBe(401);
  });
});

describe('query lifecycle', () => {
  test('IN_PROGRESS until querySeconds pass on the simulated clock, then COMPLETED with the CSV location', async () => {
    const seconds = sim.ctx.state.jobsConfig.querySeconds;
    const id = await submit('SELECT id, name FROM customers ORDER BY id LIMIT 5');
    const first = QueryStatusBody.parse((await call('GET', statusPath(id))).body);
    expect(first.status).toBe('IN_PROGRESS');
    expect(first.runningTimeMs).toBeGreaterThanOrEqual(0);
    expect(first.runningTimeMs).toBeLessThan(seconds * 1000);
    expect(first.outputLocations).toBeUndefined();
    expect(first.errorMessage).toBeUndefined();

    const early = await call('GET', resultsPath(id));
    expect(early.status).toBe(409);
    expect(errorOf(early)).toContain('IN_PROGRESS');

    await advance(seconds + 60);
    const done = QueryStatusBody.parse((await call('GET', statusPath(id))).body);
    expect(done.status).toBe('COMPLETED');
    expect(done.runningTimeMs).toBe(seconds * 1000);
    expect(done.outputLocations).toEqual([`bucketa://exports-${fx.region}/runbooks/tests/${id.replace(':', '_')}.csv`]);
    expect(done.errorMessage).toBeUndefined();
  });

  test('accepts the query ID percent-encoded and raw in the path', async () => {
    const id = await completed('SELECT 1 AS one');
    const encoded = await call('GET', `${project()}/queries/${encodeURIComponent(id)}/status`);
    expect(encoded.status).toBe(200);
    expect(encoded.body).toMatchObject({ status: 'COMPLETED' });
    expect(`${project()}/queries/${encodeURIComponent(id)}/status`).toContain('%3A');
    const raw = await call('GET', `${project()}/queries/${id}/results`);
    expect(QueryResults.parse(raw.body)).toEqual({ columns: ['one'], records: [['1']], nextToken: null });
  });

  test('404 for an unknown query on status and results', async () => {
    const unknown = `${sim.ctx.newId()}:${sim.ctx.newId()}`;
    expect((await call('GET', statusPath(unknown))).status).toBe(404);
    expect((await call('GET', resultsPath(unknown))).status).toBe(404);
  });

  test('a non-SELECT statement is accepted, then FAILED with an errorMessage; the data stays intact', async () => {
    const before = await completed('SELECT count(*) FROM events');
    const count = (await call('GET', resultsPath(before))).body as { records: string[][] };
    for (const sql of [
      'DELETE FROM events',
      '  -- comment\n UPDATE customers SET name = 1',
      'WITH doomed AS (SELECT id FROM events) DELETE FROM events WHERE id IN (SELECT id FROM doomed)',
      'SELECT 1; DROP TABLE events',
    ]) {
      const id = await submit(sql);
      expect(QueryStatusBody.parse((await call('GET', statusPath(id))).body).status).toBe('IN_PROGRESS');
      await advance(sim.ctx.state.jobsConfig.querySeconds);
      const status = QueryStatusBody.parse((await call('GET', statusPath(id))).body);
      expect(status.status).toBe('FAILED');
      expect(status.errorMessage).toMatch(/SELECT/);
      expect(status.outputLocations).toBeUndefined();
      const results = await call('GET', resultsPath(id));
      expect(results.status).toBe(409);
      expect(errorOf(results)).toContain('FAILED');
    }
    const after = await completed('SELECT count(*) FROM events');
    expect(((await call('GET', resultsPath(after))).body as { records: string[][] }).records).toEqual(count.records);
  });

  test('a SELECT the engine refuses ends FAILED with the engine message', async () => {
    const id = await completed('SELECT * FROM no_such_table');
    const status = QueryStatusBody.parse((await call('GET', statusPath(id))).body);
    expect(status).toMatchObject({ status: 'FAILED', errorMessage: 'no such table: no_such_table' });
  });
});

describe('GET .../queries/{queryId}/results', () => {
  test('pages through ≥ 20,000 rows over ≥ 40 pages, equal to the rows of a direct SQL run', async () => {
    const sql = 'SELECT * FROM events ORDER BY id';
    const id = await completed(sql);
    const { rows, pages } = await allRows(id, 500);
    const direct = await directRows(sql, fx.later);
    expect(rows.length).toBeGreaterThanOrEqual(20_000);
    expect(pages).toBeGreaterThanOrEqual(40);
    expect(rows.length).toBe(direct.values.length);
    const expected = direct.values.map((row) => row.map((v) => (v === null ? '' : String(v as string | number))));
    expect(rows).toEqual(expected);
    const count = await completed('SELECT count(*) FROM events');
    expect((await call('GET', resultsPath(count))).body).toMatchObject({ records: [[String(rows.length)]] });
  });

  test('default page size is 500, and the last page has a null nextToken', async () => {
    const id = await completed('SELECT id FROM orders ORDER BY id LIMIT 700');
    const first = QueryResults.parse((await call('GET', resultsPath(id))).body);
    expect(first.columns).toEqual(['id']);
    expect(first.records).toHaveLength(500);
    expect(first.nextToken).toEqual(expect.any(String));
    const second = QueryResults.parse(
      (await call('GET', resultsPath(id, `?pageToken=${encodeURIComponent(first.nextToken ?? '')}`))).body,
    );
    expect(second.records).toHaveLength(200);
    expect(second.records[0]).toEqual(['501']);
    expect(second.nextToken).toBeNull();
  });

  test('400 naming the parameter for a bad pageSize or a foreign pageToken', async () => {
    const id = await completed('SELECT id FROM customers LIMIT 3');
    const zero = await call('GET', resultsPath(id, '?pageSize=0'));
    expect(zero.status).toBe(400);
    expect(errorOf(zero)).toContain('query.pageSize');
    const other = await completed('SELECT id FROM customers LIMIT 3');
    const token = QueryResults.parse((await call('GET', resultsPath(other, '?pageSize=1'))).body).nextToken ?? '';
    const foreign = await call('GET', resultsPath(id, `?pageToken=${encodeURIComponent(token)}`));
    expect(foreign.status).toBe(400);
    expect(errorOf(foreign)).toContain('pageToken');
  });

  test('values are strings and NULL is the empty string', async () => {
    const id = await completed('SELECT 42 AS n, 1.5 AS x, NULL AS missing, \'a,"b"\' AS text');
    const page = QueryResults.parse((await call('GET', resultsPath(id))).body);
    expect(page).toEqual({
      columns: ['n', 'x', 'missing', 'text'],
      records: [['42', '1.5', '', 'a,"b"']],
      nextToken: null,
    });
  });

  test('a later snapshot of the same resource holds at least the rows of an earlier one', async () => {
    const sql = "SELECT (SELECT count(*) FROM events) || '/' || (SELECT count(*) FROM orders) AS n";
    const early = await completed(sql, fx.earlier);
    const late = await completed(sql, fx.later);
    const counts = async (id: string) =>
      (QueryResults.parse((await call('GET', resultsPath(id))).body).records[0]?.[0] ?? '').split('/').map(Number);
    const [earlyEvents = 0, earlyOrders = 0] = await counts(early);
    const [lateEvents = 0, lateOrders = 0] = await counts(late);
    expect(earlyEvents).toBeGreaterThanOrEqual(25_000);
    expect(lateEvents).toBeGreaterThanOrEqual(earlyEvents);
    expect(lateOrders).toBeGreaterThanOrEqual(earlyOrders);
    const dayGap =
      growthDays(sim.ctx.state.seed, fx.resource, fx.later) - growthDays(sim.ctx.state.seed, fx.resource, fx.earlier);
    expect(lateEvents - earlyEvents).toBe(10 * dayGap);
  });
});

describe('the result CSV', () => {
  test('is written to the bucket with a header and RFC 4180 quoting, matching the results', async () => {
    const id = await completed('SELECT id, name, notes, city FROM customers ORDER BY id');
    const status = QueryStatusBody.parse((await call('GET', statusPath(id))).body);
    const location = status.outputLocations?.[0] ?? '';
    const state = (await call('GET', '/_simulator/state', { auth: null })).body as { bucketsDir: string };
    const file = join(state.bucketsDir, ...location.replace('bucketa://', '').split('/'));
    const text = readFileSync(file, 'utf8');
    const { rows } = await allRows(id, 1000);
    expect(parseCsv(text)).toEqual([['id', 'name', 'notes', 'city'], ...rows]);
    // The seeded data carries every character a CSV writer must quote.
    expect(text).toMatch(/"[^"]*,[^"]*"/);
    expect(text).toContain('""');
    expect(text).toMatch(/"[^"\r]*\n[^"]*"/);
    expect(rows.some((row) => /[\u0080-\uffff]/.test(row[1] ?? ''))).toBe(true);
  });
});

describe('with a data directory', () => {
  test('a completed query is readable again after a restart, and its CSV lands under <dataDir>/buckets', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'queries-restart-'));
    const first = sim;
    try {
      sim = await startSimulator({ port: 0, dataDir });
      token = await tokenFor(sim);
      const sql = 'SELECT id, email FROM customers ORDER BY id LIMIT 750';
      const id = await completed(sql);
      const before = await allRows(id, 500);
      await sim.close();

      sim = await startSimulator({ port: 0, dataDir });
      token = await tokenFor(sim);
      const status = QueryStatusBody.parse((await call('GET', statusPath(id))).body);
      expect(status.status).toBe('COMPLETED');
      expect(await allRows(id, 500)).toEqual(before);
      const key = (status.outputLocations?.[0] ?? '').replace('bucketa://', '');
      expect(existsSync(join(dataDir, 'buckets', ...key.split('/')))).toBe(true);
      await sim.close();
    } finally {
      sim = first;
      token = await tokenFor(sim);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the generated events_large table', () => {
  const setRows = async (rows: number) =>
    expect((await call('PUT', '/_simulator/tables/events_large', { body: { rows }, auth: null })).status).toBe(200);

  test('serves the row count set on the control API, pages capped at 10,000, the same rows for every query', async () => {
    await setRows(25_003);
    const id = await completed('select *  from events_large order by id;');
    const { rows, pages } = await allRows(id, 50_000);
    expect(pages).toBe(3);
    expect(rows).toHaveLength(25_003);
    expect(rows.map((r) => Number(r[0]))).toEqual(Array.from({ length: 25_003 }, (_, i) => i + 1));
    expect(rows.every((r) => r.length === 5 && r.every((v) => typeof v === 'string'))).toBe(true);
    // Rows come from the seed and their index: another query, paged otherwise, sees the same ones.
    const again = await completed('SELECT * FROM events_large');
    expect((await allRows(again, 777)).rows).toEqual(rows);
  });

  test('its CSV in the bucket holds the header and every row', async () => {
    await setRows(1_234);
    const id = await completed('SELECT * FROM events_large');
    const status = QueryStatusBody.parse((await call('GET', statusPath(id))).body);
    const key = (status.outputLocations?.[0] ?? '').replace('bucketa://', '');
    const summary = (await call('GET', '/_simulator/state', { auth: null })).body as { bucketsDir: string };
    const csv = parseCsv(readFileSync(join(summary.bucketsDir, ...key.split('/')), 'utf8'));
    expect(csv[0]).toEqual(['id', 'occurred_at', 'kind', 'customer_id', 'payload']);
    expect(csv.slice(1)).toEqual((await allRows(id, 10_000)).rows);
  });

  test('a query keeps the row count it was submitted with; any other use of the table FAILS with a message', async () => {
    await setRows(10);
    const id = await completed('SELECT * FROM events_large');
    await setRows(20);
    expect((await allRows(id, 500)).rows).toHaveLength(10);
    const other = await completed('SELECT count(*) FROM events_large');
    const status = QueryStatusBody.parse((await call('GET', statusPath(other))).body);
    expect(status.status).toBe('FAILED');
    expect(status.errorMessage).toContain('SELECT * FROM events_large');
  });
});

describe('PUT /_simulator/latency', () => {
  test('delays every /v1 request by the set milliseconds, and 0 removes it', async () => {
    const timed = async () => {
      const began = performance.now();
      await call('GET', `${project()}/queries/${encodeURIComponent('a:b')}/status`);
      return performance.now() - began;
    };
    expect((await call('PUT', '/_simulator/latency', { body: { ms: 120 }, auth: null })).status).toBe(200);
    // A lower bound only: a delay cannot be shorter than asked.
    expect(await timed()).toBeGreaterThanOrEqual(115);
    expect((await call('GET', '/_simulator/latency', { auth: null })).body).toEqual({ ms: 120 });
    await call('PUT', '/_simulator/latency', { body: { ms: 0 }, auth: null });
    expect((await call('GET', '/_simulator/latency', { auth: null })).body).toEqual({ ms: 0 });
    expect((await call('PUT', '/_simulator/latency', { body: { ms: -1 }, auth: null })).status).toBe(400);
  });
});
