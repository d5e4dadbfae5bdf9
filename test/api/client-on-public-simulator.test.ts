// The client against the project's simulator speaking the public dialect, which refuses a neutral token where the
// public document names another: inputs as the runbooks give them (the neutral vocabulary) reach it and are served.
import { BackupServiceClient, closeHttpPools, collect, type InventoryResource } from '../../api';
import { sameExpression, withAccessCondition } from '../../api/access-conditions';
import type { Dialect } from '../../api/dialect';
import { databaseNameOf } from '../../simulator/seed-databases';
import { startSimulator, type RunningSimulator } from '../../simulator/server';

let sim: RunningSimulator;
let client: BackupServiceClient;
const heard: [Dialect, string][] = [];

beforeAll(async () => {
  sim = await startSimulator({ port: 0, prefix: '/api', seed: 3, dialect: 'public' });
  client = new BackupServiceClient({
    baseUrl: sim.baseUrl,
    projectId: sim.projectId,
    credentials: { clientId: sim.clientId, clientSecret: sim.clientSecret },
    onDialect: (dialect, how) => heard.push([dialect, how]),
  });
});

afterAll(async () => {
  await sim.close();
  await closeHttpPools();
});

/** A resource of a neutral type with a snapshot, and that snapshot. */
async function withSnapshot(type: string): Promise<{ resource: InventoryResource; snapshotId: string }> {
  for await (const resource of client.listResources({ filters: { resourceType: { in: [type as 'PA_VM'] } } })) {
    const { snapshots } = await client.listSnapshotsPage(resource.id, {}, { pageSize: 1 });
    if (snapshots[0]) return { resource, snapshotId: snapshots[0].id };
  }
  throw new Error(`no ${type} with a snapshot`);
}

test('auto tells the public dialect from the token answer, once', async () => {
  expect(await client.wireDialect()).toBe('public');
  await client.wireDialect();
  expect(heard).toEqual([['public', 'from the token answer']]);
});

test('over OAuth2 a first listing tells it', async () => {
  const oauth = new BackupServiceClient({
    baseUrl: sim.baseUrl,
    projectId: sim.projectId,
    credentials: { clientId: sim.clientId, clientSecret: sim.clientSecret },
    tokenEndpoint: 'oauth2',
  });
  expect(await oauth.wireDialect()).toBe('public');
});

test('inventory, account and cost filters in the neutral vocabulary select by the public values', async () => {
  const objectStores = await collect(
    client.listResources({
      filters: { cloudProvider: { in: ['PROVIDER_A'] }, resourceType: { in: ['PA_OBJECT_STORE'] } },
    }),
  );
  expect(objectStores.length).toBeGreaterThan(0);
  expect(new Set(objectStores.map((r) => `${r.cloudProvider} ${r.resourceType}`))).toEqual(new Set(['AWS AWS_S3']));
  const accounts = await client.listSourceAccountsPage({
    filters: { cloudProvider: { in: ['PROVIDER_A'] } },
    sorts: [{ field: 'name', order: 'ASC' }],
  });
  expect(accounts.accounts.every((a) => a.sourceAccountAttributes?.cloudProvider === 'AWS')).toBe(true);
  await client.listRestoreAccountsPage({ sorts: [{ field: 'name', order: 'DESC' }] });
  const cost = await client.getCostDataPage({
    timeFrame: { startTime: new Date(Date.now() - 3 * 86_400_000).toISOString(), endTime: new Date().toISOString() },
    filters: { resourceType: { in: ['PA_RELATIONAL_DB'] } },
    groupBy: 'RESOURCE_TYPE',
  });
  expect(cost.records.every((r) => r.dimensions?.resourceType === 'AWS_RDS')).toBe(true);
});

test('restores and a query, their destinations named in the neutral vocabulary, are accepted', async () => {
  const [restoreAccount] = (await client.listRestoreAccountsPage()).accounts.filter((a) => a.isRestoreAllowed);
  const restoreAccountId = restoreAccount?.id ?? '';
  const bucket = await withSnapshot('PA_OBJECT_STORE');
  const restored = await client.restoreBucket(bucket.resource.id, bucket.snapshotId, {
    destination: { bucketA: { bucketName: 'drill-restores', prefix: 'public/' } },
    restoreAccountId,
  });
  expect(['started', 'approvalRequired']).toContain(restored.kind);
  const files = await client.restoreFiles(bucket.resource.id, bucket.snapshotId, {
    destination: { bucketA: { bucketName: 'drill-restores' } },
    files: [{ path: '/', isDirectory: true }],
    restoreAccountId,
  });
  expect(files).toEqual(expect.any(String) as unknown);
  const database = await withSnapshot('PA_RELATIONAL_DB');
  const queryId = await client.runQuery(database.snapshotId, {
    databaseName: databaseNameOf(sim.ctx.state.seed, database.resource.id),
    query: 'SELECT 1',
    restoreAccountId,
    destination: { bucketA: { bucketName: 'query-results' } },
  });
  expect(queryId).toEqual(expect.any(String) as unknown);
});

test('a vault and a source account with provider attributes; the update sends the public body', async () => {
  const vault = await client.createVault({
    name: 'public-vault',
    region: 'us-east-1',
    vaultAttributes: { cloudProvider: 'PROVIDER_A', providerA: { encryptionKey: 'key/public' } },
  });
  expect(vault.vaultAttributes.cloudProvider).toBe('AWS');
  const roleArn = 'arn:aws:iam::444455556666:role/backup';
  const account = await client.connectSourceAccount({
    name: 'public-account',
    sourceAccountAttributes: { cloudProvider: 'PROVIDER_A', providerA: { roleArn } },
  });
  expect(account.sourceAccountAttributes).toMatchObject({ cloudProvider: 'AWS', aws: { roleArn } });
  const renamed = await client.updateSourceAccount(account.id, {
    name: 'public-account-renamed',
    sourceAccountAttributes: { cloudProvider: 'PROVIDER_A', providerA: { roleArn } },
  });
  expect(renamed.name).toBe('public-account-renamed');
});

test('a role with a structured expression: created, read back, and a condition added once', async () => {
  const expression = { environment: { operator: 'IN', environments: ['PROD'] } };
  const created = await client.createRole({
    name: 'public-role',
    permissionGrants: [{ permission: 'inventory.view', accessConditionId: 'c1' }],
    accessConditions: [{ id: 'c1', effect: 'INCLUSIVE', expression }],
  });
  expect(sameExpression(created.accessConditions?.[0]?.expression, expression)).toBe(true);
  const wider = { resourceType: { operator: 'IN', resourceTypes: ['AWS_RDS'] } };
  const { role } = withAccessCondition(created, { effect: 'EXCLUSIVE', expression: wider }, ['jobs.view']);
  const updated = await client.updateRole(created.id, role);
  const again = withAccessCondition(updated, { effect: 'EXCLUSIVE', expression: wider }, ['jobs.view']);
  expect(again.added).toBe(false);
});
