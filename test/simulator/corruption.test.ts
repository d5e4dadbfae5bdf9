// The corruption control route: queries on the snapshots it covers read damaged data, the others read clean data.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryResults, QueryStarted } from '../../api';
import type { SnapshotDocument as Snapshot } from '../../api';
import { SimulatorControlClient } from '../../simulator/control-client';
import { snapshotsOf } from '../../simulator/jobs';
import { databaseNameOf } from '../../simulator/seed-databases';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { UNKNOWN_ID, bodyOf, control, errorOf, expectBadRequest, projectPath, suiteCall, tokenFor } from './helpers';

interface Fixture {
  resourceId: string;
  /** The resource's snapshots, oldest first. */
  snapshots: Snapshot[];
  /** A snapshot of another resource. */
  foreignSnapshotId: string;
  nonRelationalId: string;
}

let sim: RunningSimulator;
let token: string;
let client: SimulatorControlClient;
let fx: Fixture;
const call = suiteCall(() => ({ sim, token }));

const ENC_COUNT = "SELECT count(*) FROM customers WHERE email LIKE 'ENC:%'";
const CUSTOMERS = 'SELECT id, email FROM customers ORDER BY id';
const ORDERS_COUNT = 'SELECT count(*) FROM orders';

/** A generated account whose resources have five snapshots each; queries complete at once. */
async function prepare(started: RunningSimulator): Promise<Fixture> {
  const ctl = new SimulatorControlClient(started.baseUrl);
  await ctl.jobsConfig({ querySeconds: 0, backupSeconds: 0 });
  const generated = await ctl.call<{ sourceAccountId: string }>('POST', '/inventory/generate', {
    resources: 20,
    snapshotsPerResource: 5,
    seed: 11,
  });
  const state = started.ctx.state;
  const mine = Object.values(state.resources)
    .filter((r) => r.sourceAccountId === generated.sourceAccountId)
    .map((r) => r.resource);
  const resource = mine.find((r) => r.resourceType === 'PA_RELATIONAL_DB');
  const nonRelational = mine.find((r) => r.resourceType !== 'PA_RELATIONAL_DB');
  const foreign = nonRelational && snapshotsOf(state, nonRelational.id)[0];
  if (!resource || !foreign) throw new Error('the generated account lacks a relational and another resource');
  return {
    resourceId: resource.id,
    snapshots: snapshotsOf(state, resource.id),
    foreignSnapshotId: foreign.id,
    nonRelationalId: foreign.resourceId,
  };
}

async function start(options: { dataDir?: string } = {}) {
  sim = await startSimulator({ port: 0, ...options });
  token = await tokenFor(sim);
  client = new SimulatorControlClient(sim.baseUrl);
}

/** Submits a query on a snapshot; it completes at once (querySeconds is 0). */
async function submit(snapshot: Snapshot, sql: string): Promise<string> {
  const restoreAccountId = Object.values(sim.ctx.state.restoreAccounts).find((a) => a.isRestoreAllowed)?.id ?? '';
  const res = await call('POST', `${projectPath(sim)}/snapshots/${snapshot.id}/databases/query`, {
    body: {
      databaseName: databaseNameOf(sim.ctx.state.seed, snapshot.resourceId),
      query: sql,
      restoreAccountId,
      destination: { bucketA: { bucketName: 'exports-tests' } },
    },
  });
  return QueryStarted.parse(bodyOf(res, 202)).queryId;
}

async function results(queryId: string): Promise<string[][]> {
  const res = await call('GET', `${projectPath(sim)}/queries/${encodeURIComponent(queryId)}/results?pageSize=10000`);
  const page = QueryResults.parse(bodyOf(res));
  expect(page.nextToken).toBeNull();
  return page.records;
}

const query = async (snapshot: Snapshot, sql: string) => results(await submit(snapshot, sql));
const single = async (snapshot: Snapshot, sql: string) => Number((await query(snapshot, sql))[0]?.[0]);
const snapshotAt = (k: number): Snapshot => {
  const snapshot = fx.snapshots[k];
  if (!snapshot) throw new Error(`no snapshot ${k}`);
  return snapshot;
};

/** Each snapshot's customers and order count before any corruption. */
let clean: { customers: string[][]; orders: number }[];

beforeAll(async () => {
  await start();
  fx = await prepare(sim);
  clean = [];
  for (const snapshot of fx.snapshots) {
    clean.push({ customers: await query(snapshot, CUSTOMERS), orders: await single(snapshot, ORDERS_COUNT) });
  }
});

afterAll(async () => {
  await sim?.close();
});

afterEach(async () => {
  await client.clearCorruption(fx.resourceId);
});

test('the generated resource has five snapshots at distinct times, whose clean data has no ENC value', async () => {
  expect(fx.snapshots).toHaveLength(5);
  const times = fx.snapshots.map((s) => Date.parse(s.pointInTime ?? s.createdTime));
  expect(new Set(times).size).toBe(5);
  expect(clean.every(({ customers }) => customers.length >= 400)).toBe(true);
  expect(clean.flatMap(({ customers }) => customers).some(([, email]) => email?.startsWith('ENC:'))).toBe(false);
  expect(await single(snapshotAt(4), ENC_COUNT)).toBe(0);
});

test('rows-changed from the third snapshot: older ones answer as before, it and newer ones hold ENC rows', async () => {
  const answer = await client.corrupt(fx.resourceId, { from: snapshotAt(2).id });
  expect(answer).toEqual({
    resourceId: fx.resourceId,
    corruption: { from: snapshotAt(2).id, kind: 'rows-changed', table: 'customers' },
    coveredSnapshotIds: fx.snapshots.slice(2).map((s) => s.id),
  });
  expect(await client.corruption(fx.resourceId)).toEqual(answer);

  const encrypted: Set<string>[] = [];
  for (const [k, snapshot] of fx.snapshots.entries()) {
    const rows = await query(snapshot, CUSTOMERS);
    const before = clean[k]?.customers ?? [];
    if (k < 2) {
      expect(rows).toEqual(before);
      expect(await single(snapshot, ENC_COUNT)).toBe(0);
      continue;
    }
    // Same rows, same IDs; about one email in ten replaced, the others untouched.
    expect(rows.map(([id]) => id)).toEqual(before.map(([id]) => id));
    const changed = rows.filter(([, email], i) => email !== before[i]?.[1]);
    expect(changed.every(([, email]) => /^ENC:[0-9a-f]{32}$/.test(email ?? ''))).toBe(true);
    expect(changed.length).toBeGreaterThanOrEqual(Math.floor(rows.length / 20));
    expect(changed.length).toBeLessThanOrEqual(Math.ceil(rows.length / 5));
    expect(await single(snapshot, ENC_COUNT)).toBe(changed.length);
    // The same answer every time.
    expect(await query(snapshot, CUSTOMERS)).toEqual(rows);
    encrypted.push(new Set(changed.map(([id]) => id ?? '')));
  }
  // A row encrypted in one snapshot stays encrypted in the later ones.
  const [third, , fifth] = encrypted;
  expect([...(third ?? [])].every((id) => fifth?.has(id))).toBe(true);
});

test('rows-missing on orders for a non-monotone pattern: the first and last snapshots lose rows, not the middle', async () => {
  const answer = await client.corrupt(fx.resourceId, {
    from: snapshotAt(4).id,
    snapshotIds: [snapshotAt(0).id],
    kind: 'rows-missing',
    table: 'orders',
  });
  expect(answer.coveredSnapshotIds).toEqual([snapshotAt(0).id, snapshotAt(4).id]);
  expect(answer.corruption).toEqual({
    from: snapshotAt(4).id,
    snapshotIds: [snapshotAt(0).id],
    kind: 'rows-missing',
    table: 'orders',
  });
  for (const [k, snapshot] of fx.snapshots.entries()) {
    const before = clean[k]?.orders ?? 0;
    const count = await single(snapshot, ORDERS_COUNT);
    if (k === 0 || k === 4) {
      expect(before - count).toBeGreaterThanOrEqual(Math.floor(before / 20));
      expect(before - count).toBeLessThanOrEqual(Math.ceil(before / 5));
    } else {
      expect(count).toBe(before);
    }
    // The other tables are untouched.
    expect(await query(snapshot, CUSTOMERS)).toEqual(clean[k]?.customers);
  }
});

test('DELETE restores the clean answers', async () => {
  await client.corrupt(fx.resourceId, { snapshotIds: [snapshotAt(1).id] });
  expect(await single(snapshotAt(1), ENC_COUNT)).toBeGreaterThan(0);

  const cleared = await control(sim, 'DELETE', `/corruption/${fx.resourceId}`);
  expect(cleared.status).toBe(204);
  expect(await client.corruption(fx.resourceId)).toEqual({
    resourceId: fx.resourceId,
    corruption: null,
    coveredSnapshotIds: [],
  });
  expect(await query(snapshotAt(1), CUSTOMERS)).toEqual(clean[1]?.customers);
  expect(await single(snapshotAt(1), ENC_COUNT)).toBe(0);
});

test('a snapshot taken after `from` is corrupted too', async () => {
  await client.corrupt(fx.resourceId, { from: snapshotAt(3).id });
  const job = await call('POST', `${projectPath(sim)}/resources/${fx.resourceId}/take-snapshot`, {
    body: { vaultId: snapshotAt(4).vaultId, retentionDays: 7 },
  });
  expect(job.status).toBe(202);
  await client.advanceClock(1);
  const { coveredSnapshotIds } = await client.corruption(fx.resourceId);
  const fresh = snapshotsOf(sim.ctx.state, fx.resourceId).at(-1);
  if (!fresh) throw new Error('no snapshot');
  expect(fresh.id).not.toBe(snapshotAt(4).id);
  expect(coveredSnapshotIds).toEqual([snapshotAt(3).id, snapshotAt(4).id, fresh.id]);
  expect(await single(fresh, ENC_COUNT)).toBeGreaterThan(0);
});

describe('refused input', () => {
  const put = (body: unknown, resourceId = fx.resourceId) => control(sim, 'PUT', `/corruption/${resourceId}`, body);

  test('400 naming the field, and the stored corruption unchanged', async () => {
    const stored = await client.corrupt(fx.resourceId, { from: snapshotAt(3).id });
    const cases: [unknown, string][] = [
      [{}, 'invalid body.from: name the snapshots to corrupt: from, snapshotIds or both'],
      [{ snapshotIds: [] }, 'invalid body.from: name the snapshots to corrupt'],
      [{ from: snapshotAt(0).id, kind: 'rows-gone' }, 'invalid body.kind'],
      [{ from: snapshotAt(0).id, table: 'invoices' }, 'invalid body.table'],
      [{ from: snapshotAt(0).id, snapshotIds: snapshotAt(1).id }, 'invalid body.snapshotIds'],
      [{ from: snapshotAt(0).id, tables: 'orders' }, 'invalid body.tables: unrecognized key'],
    ];
    for (const [body, error] of cases) expectBadRequest(await put(body), error);
    const vm = await put({ from: snapshotAt(0).id }, fx.nonRelationalId);
    expectBadRequest(vm, `resource ${fx.nonRelationalId} is a `);
    expect(errorOf(vm)).toContain('only PA_RELATIONAL_DB has data');
    expect(await client.corruption(fx.resourceId)).toEqual(stored);
  });

  test('404 for an unknown resource, or a snapshot that is not the resource’s', async () => {
    for (const method of ['PUT', 'GET', 'DELETE'] as const) {
      const res = await control(sim, method, `/corruption/${UNKNOWN_ID}`, method === 'PUT' ? { from: 'x' } : undefined);
      expect({ status: res.status, error: errorOf(res) }).toEqual({
        status: 404,
        error: `resource ${UNKNOWN_ID} not found`,
      });
    }
    const foreign = await put({ from: fx.foreignSnapshotId });
    expect(foreign.status).toBe(404);
    expect(errorOf(foreign)).toBe(`snapshot ${fx.foreignSnapshotId} of resource ${fx.resourceId} not found`);
    const unknown = await put({ from: snapshotAt(0).id, snapshotIds: [snapshotAt(1).id, UNKNOWN_ID] });
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown)).toBe(`snapshot ${UNKNOWN_ID} of resource ${fx.resourceId} not found`);
    expect((await client.corruption(fx.resourceId)).corruption).toBeNull();
  });
});

test('with a data directory, the corruption and the queries run under it survive a restart', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'corruption-restart-'));
  const [first, firstFx] = [sim, fx];
  try {
    await start({ dataDir });
    fx = await prepare(sim);
    const stored = await client.corrupt(fx.resourceId, { from: snapshotAt(1).id, kind: 'rows-missing' });
    const customers = 'SELECT count(*) FROM customers';
    const before = await submit(snapshotAt(1), customers);
    const missing = await results(before);
    await sim.close();

    await start({ dataDir });
    expect(await client.corruption(fx.resourceId)).toEqual(stored);
    expect(await query(snapshotAt(1), customers)).toEqual(missing);
    await client.clearCorruption(fx.resourceId);
    expect(Number((await query(snapshotAt(1), customers))[0]?.[0])).toBeGreaterThan(Number(missing[0]?.[0]));
    // Its results are rebuilt in the new process from what the query recorded, not from the corruption now cleared.
    expect(await results(before)).toEqual(missing);
  } finally {
    await sim.close();
    [sim, fx] = [first, firstFx];
    token = await tokenFor(sim);
    client = new SimulatorControlClient(sim.baseUrl);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
