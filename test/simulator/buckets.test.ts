// Destination buckets: any valid name by default; where the control API declared a restore account's buckets, a
// restore or a query must name one of them, and a query one in the snapshot's vault region.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Snapshot } from '../../api';
import { databaseNameOf } from '../../simulator/seed-databases';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { call, control, errorOf, projectPath, stateOf, tokenFor, underRestorePolicy } from './helpers';

let sim: RunningSimulator;
let token: string;
let fx: { snapshot: Snapshot; databaseName: string; region: string; otherRegion: string; accounts: string[] };

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 4 });
  token = await tokenFor(sim);
  const state = sim.ctx.state;
  const snapshot = Object.values(state.snapshots).find(
    (s) => state.resources[s.resourceId]?.resource.resourceType === 'PA_RELATIONAL_DB' && s.vaultId,
  );
  const region = state.vaults[snapshot?.vaultId ?? '']?.region;
  const otherRegion = Object.values(state.vaults).find((v) => v.region !== region)?.region;
  const accounts = Object.values(state.restoreAccounts)
    .filter((a) => a.isRestoreAllowed && a.status === 'CONNECTED')
    .map((a) => a.id);
  if (!snapshot || !region || !otherRegion || accounts.length < 2) throw new Error('the seed lacks what tests need');
  fx = { snapshot, databaseName: databaseNameOf(state.seed, snapshot.resourceId), region, otherRegion, accounts };
});
afterAll(() => sim.close());

const account = (i: number) => fx.accounts[i] ?? '';
const queryBody = (restoreAccountId: string, bucketName: string) => ({
  databaseName: fx.databaseName,
  query: 'SELECT count(*) AS n FROM customers',
  restoreAccountId,
  destination: { bucketA: { bucketName, prefix: 'checks' } },
});
const runQuery = (body: unknown) =>
  call(sim, 'POST', `${projectPath(sim)}/snapshots/${fx.snapshot.id}/databases/query`, { body, token });
const restorePath = (kind: 'restore-files' | 'restore-bucket') =>
  `${projectPath(sim)}/resources/${fx.snapshot.resourceId}/snapshots/${fx.snapshot.id}/${kind}`;
const restoreBody = (kind: 'restore-files' | 'restore-bucket', restoreAccountId: string, destination: unknown) =>
  kind === 'restore-files'
    ? { destination, restoreAccountId, files: [{ path: '/data', isDirectory: true }] }
    : { destination, restoreAccountId };
const declare = (restoreAccountId: string, buckets: unknown) =>
  control(sim, 'PUT', `/restore-accounts/${restoreAccountId}/buckets`, { buckets });

describe('by default, any valid bucket name', () => {
  test('a query into a bucket named without any region writes its CSV under that bucket', async () => {
    const reply = await runQuery(queryBody(account(0), 'results'));
    expect(reply.status).toBe(202);
    const queryId = (reply.body as { queryId: string }).queryId;
    await control(sim, 'POST', '/clock/advance', { seconds: sim.ctx.state.jobsConfig.querySeconds });
    token = await tokenFor(sim);
    const status = await call(sim, 'GET', `${projectPath(sim)}/queries/${encodeURIComponent(queryId)}/status`, {
      token,
    });
    const location = (status.body as { outputLocations: string[] }).outputLocations[0] ?? '';
    expect(location).toBe(`bucketa://results/checks/${queryId.replace(':', '_')}.csv`);
    const { bucketsDir } = (await control(sim, 'GET', '/state')).body as { bucketsDir: string };
    expect(existsSync(join(bucketsDir, 'results', 'checks', `${queryId.replace(':', '_')}.csv`))).toBe(true);
  });

  test.each(['restore-files', 'restore-bucket'] as const)('%s into any bucket name starts a job', async (kind) => {
    const destination = { bucketC: { bucketName: 'my-restores' } };
    const reply = await call(sim, 'POST', restorePath(kind), {
      body: restoreBody(kind, account(0), destination),
      token,
    });
    expect(reply.status).toBe(202);
  });
});

describe('declared buckets', () => {
  beforeAll(async () => {
    const reply = await declare(account(1), [
      { name: 'drills-home', region: fx.region },
      { name: 'drills-away', region: fx.otherRegion },
    ]);
    expect(reply.status).toBe(200);
  });

  test('GET returns them, and /_simulator/state lists them', async () => {
    const reply = await control(sim, 'GET', `/restore-accounts/${account(1)}/buckets`);
    expect(reply.body).toEqual({
      restoreAccountId: account(1),
      buckets: [
        { name: 'drills-home', region: fx.region },
        { name: 'drills-away', region: fx.otherRegion },
      ],
    });
    const state = (await control(sim, 'GET', '/state')).body as { buckets: unknown[] };
    expect(state.buckets).toContainEqual({ restoreAccountId: account(1), name: 'drills-home', region: fx.region });
    const none = await control(sim, 'GET', `/restore-accounts/${account(0)}/buckets`);
    expect(none.body).toEqual({ restoreAccountId: account(0), buckets: [] });
  });

  test('a query into an undeclared bucket is a 400 naming the field, and creates nothing', async () => {
    const before = stateOf(sim);
    const reply = await runQuery(queryBody(account(1), 'results'));
    expect(reply.status).toBe(400);
    expect(errorOf(reply)).toBe(
      `invalid body.destination.bucketA.bucketName: bucket results does not exist in restore account ${account(1)} ` +
        '(it has drills-home, drills-away)',
    );
    expect(stateOf(sim)).toEqual(before);
  });

  test("a query into a declared bucket of another region than the snapshot's vault is a 400", async () => {
    const before = stateOf(sim);
    const reply = await runQuery(queryBody(account(1), 'drills-away'));
    expect(reply.status).toBe(400);
    expect(errorOf(reply)).toBe(
      `invalid body.destination.bucketA.bucketName: bucket drills-away is in ${fx.otherRegion}, ` +
        `but the snapshot's vault is in ${fx.region}`,
    );
    expect(stateOf(sim)).toEqual(before);
  });

  test('a query into a declared bucket of the vault region is accepted', async () => {
    expect((await runQuery(queryBody(account(1), 'drills-home'))).status).toBe(202);
  });

  test.each([
    ['restore-files', 'bucketA'],
    ['restore-bucket', 'bucketA'],
    ['restore-files', 'bucketC'],
    ['restore-bucket', 'bucketC'],
  ] as const)('%s into an undeclared %s is a 400 naming the field, and creates nothing', async (kind, member) => {
    const before = stateOf(sim);
    const body = restoreBody(kind, account(1), { [member]: { bucketName: 'elsewhere' } });
    const reply = await call(sim, 'POST', restorePath(kind), { body, token });
    expect(reply.status).toBe(400);
    expect(errorOf(reply)).toMatch(
      new RegExp(`^invalid body\\.destination\\.${member}\\.bucketName: bucket elsewhere does not exist`),
    );
    expect(stateOf(sim)).toEqual(before);
  });

  test('under an approval policy, an undeclared bucket creates no action request', async () => {
    await underRestorePolicy(sim, { requiredApprovals: 1, windowHours: 1 }, async () => {
      const before = stateOf(sim);
      const body = restoreBody('restore-bucket', account(1), { bucketA: { bucketName: 'elsewhere' } });
      expect((await call(sim, 'POST', restorePath('restore-bucket'), { body, token })).status).toBe(400);
      expect(stateOf(sim)).toEqual(before);
    });
  });

  test('a restore into a declared bucket starts a job, whatever its region', async () => {
    const body = restoreBody('restore-bucket', account(1), { bucketA: { bucketName: 'drills-away' } });
    expect((await call(sim, 'POST', restorePath('restore-bucket'), { body, token })).status).toBe(202);
  });

  test('another restore account, without a declaration, still accepts any name', async () => {
    expect((await runQuery(queryBody(account(0), 'anything-at-all'))).status).toBe(202);
  });
});

describe('PUT /_simulator/restore-accounts/{id}/buckets', () => {
  test('404 for an unknown restore account; 400 for a bad name, a repeat or a missing region', async () => {
    const before = stateOf(sim);
    expect((await declare('no-such-account', [])).status).toBe(404);
    const bad = await declare(account(0), [{ name: 'Bad_Name', region: fx.region }]);
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toMatch(/^invalid body\.buckets\.0\.name: not a valid bucket name/);
    const twice = await declare(account(0), [
      { name: 'twice', region: fx.region },
      { name: 'twice', region: fx.otherRegion },
    ]);
    expect(twice.status).toBe(400);
    expect(errorOf(twice)).toBe('invalid body.buckets: bucket twice is declared twice');
    const noRegion = await declare(account(0), [{ name: 'b-1' }]);
    expect(noRegion.status).toBe(400);
    expect(errorOf(noRegion)).toMatch(/^invalid body\.buckets\.0\.region: /);
    expect(stateOf(sim)).toEqual(before);
  });

  test('an empty list removes the declaration', async () => {
    const id = account(1);
    expect((await declare(id, [])).body).toEqual({ restoreAccountId: id, buckets: [] });
    expect((await runQuery(queryBody(id, 'results'))).status).toBe(202);
  });
});
