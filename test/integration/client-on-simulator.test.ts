import { request } from 'undici';
import {
  BackupServiceClient,
  ConflictError,
  NotFoundError,
  collect,
  closeHttpPools,
  requestToken,
  HttpTransport,
} from '../../api';
import { startSimulator, type RunningSimulator } from '../../simulator/server';

// The project's client against the simulator: every client method, through a path prefix.
let sim: RunningSimulator;
let client: BackupServiceClient;

async function control(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await request(sim.baseUrl + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.body.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  sim = await startSimulator({ port: 0, prefix: '/api', seed: 3 });
  const extra = await control('POST', '/_simulator/credentials', {});
  client = new BackupServiceClient({
    baseUrl: sim.baseUrl,
    projectId: sim.projectId,
    credentials: { clientId: extra.clientId as string, clientSecret: extra.clientSecret as string },
  });
  await control('PUT', '/_simulator/jobs/config', { backupSeconds: 1, restoreSeconds: 1, querySeconds: 1 });
});

afterAll(async () => {
  await sim.close();
  await closeHttpPools();
});

const advance = (seconds: number) => control('POST', '/_simulator/clock/advance', { seconds });

test('token calls in both forms, and both rotations', async () => {
  const transport = new HttpTransport({ baseUrl: sim.baseUrl });
  const creds = await control('POST', '/_simulator/credentials', {});
  const pair = { clientId: creds.clientId as string, clientSecret: creds.clientSecret as string };
  expect((await requestToken(transport, pair, 'json')).expiresInSeconds).toBe(43_200);
  expect((await requestToken(transport, pair, 'oauth2')).accessToken).toMatch(/\S{20,}/);
  const rotated = await client.rotateCredentials(pair.clientId);
  expect(rotated.clientSecret).not.toBe(pair.clientSecret);
  await expect(requestToken(transport, pair)).rejects.toBeInstanceOf(NotFoundError);
  const own = new BackupServiceClient({ baseUrl: sim.baseUrl, projectId: sim.projectId, credentials: rotated });
  const again = await own.rotateCurrentCredentials();
  expect(again.clientId).toBe(pair.clientId);
});

test('roles, permissions, identity providers and IdP groups', async () => {
  const permissions = await client.listPermissions();
  expect(permissions.map((p) => p.permissionType)).toContain('inventory.view');
  const role = await client.createRole({
    name: 'drill-operator',
    permissionGrants: [{ permission: 'inventory.view' }],
  });
  expect((await client.getRole(role.id)).name).toBe('drill-operator');
  const updated = await client.updateRole(role.id, {
    name: 'drill-operator',
    permissionGrants: [{ permission: 'inventory.view' }, { permission: 'jobs.view' }],
  });
  expect(updated.permissionGrants).toHaveLength(2);
  await expect(
    client.createRole({ name: 'drill-operator', permissionGrants: [{ permission: 'jobs.view' }] }),
  ).rejects.toBeInstanceOf(ConflictError);
  expect((await collect(client.listRoles({ pageSize: 1 }))).map((r) => r.id)).toContain(role.id);
  expect((await client.listRolesPage({ pageSize: 1 })).roles).toHaveLength(1);
  const idps = await collect(client.listIdps());
  const idp = idps[0];
  if (!idp) throw new Error('the simulator seeds identity providers');
  expect((await client.listIdpsPage()).idps.length).toBe(idps.length);
  const group = await client.createIdpGroup({ idpId: idp.id, providerGroupId: 'sre', roleIds: [role.id] });
  expect((await client.getIdpGroup(group.id)).providerGroupId).toBe('sre');
  expect((await client.updateIdpGroup(group.id, { roleIds: [role.id], displayName: 'SRE' })).displayName).toBe('SRE');
  expect((await collect(client.listIdpGroups())).map((g) => g.id)).toContain(group.id);
  expect((await client.listIdpGroupsPage()).groups.length).toBeGreaterThan(0);
  await client.deleteIdpGroup(group.id);
  await client.deleteRole(role.id);
  await expect(client.getRole(role.id)).rejects.toBeInstanceOf(NotFoundError);
});

test('source accounts: connect, read, change, list, disconnect, reconnect, delete', async () => {
  const account = await client.connectSourceAccount({
    name: 'payments',
    sourceAccountAttributes: {
      cloudProvider: 'PROVIDER_A',
      providerA: { roleArn: 'arn:pa:iam::123456789012:role/backup' },
    },
  });
  expect(account.status).toBe('CONNECTED');
  expect((await client.getSourceAccount(account.id)).providerAccountId).toBe('123456789012');
  expect((await client.updateSourceAccount(account.id, { name: 'payments-prod' })).name).toBe('payments-prod');
  const listed = await collect(client.listSourceAccounts({ filters: { accountStatus: { in: ['CONNECTED'] } } }));
  expect(listed.map((a) => a.id)).toContain(account.id);
  expect((await client.listSourceAccountsPage({}, { pageSize: 1 })).accounts).toHaveLength(1);
  await expect(client.deleteSourceAccount(account.id)).rejects.toBeInstanceOf(ConflictError);
  expect((await client.disconnectSourceAccount(account.id)).status).toBe('DISCONNECTED');
  expect((await client.reconnectSourceAccount(account.id)).status).toBe('CONNECTED');
  await client.disconnectSourceAccount(account.id);
  await client.deleteSourceAccount(account.id);
  await expect(client.getSourceAccount(account.id)).rejects.toBeInstanceOf(NotFoundError);
});

test('vaults, restore accounts, inventory, snapshots, jobs and restores', async () => {
  const vault = await client.createVault({
    name: 'drills',
    region: 'pa-east-1',
    vaultAttributes: { cloudProvider: 'PROVIDER_A' },
  });
  expect((await client.getVault(vault.id)).region).toBe('pa-east-1');
  expect((await client.renameVault(vault.id, 'drills-2')).name).toBe('drills-2');
  expect((await collect(client.listVaults())).map((v) => v.id)).toContain(vault.id);
  expect((await client.listVaultsPage({ pageSize: 2 })).vaults).toHaveLength(2);

  const restoreAccounts = await collect(client.listRestoreAccounts());
  const target = restoreAccounts.find((a) => a.isRestoreAllowed && a.status === 'CONNECTED');
  if (!target) throw new Error('the simulator seeds a usable restore account');
  expect((await client.getRestoreAccount(target.id)).id).toBe(target.id);
  expect((await client.listRestoreAccountsPage({}, { pageSize: 1 })).accounts).toHaveLength(1);

  const filters = { resourceType: { in: ['PA_OBJECT_STORE' as const] } };
  const stores = await collect(client.listResources({ filters }, { pageSize: 7 }));
  expect(stores.length).toBeGreaterThan(1);
  expect((await client.listResourcesPage({ filters }, { pageSize: 1 })).totalCount).toBe(stores.length);
  const kv = (
    await client.listResourcesPage(
      { filters: { resourceType: { in: ['PA_KEYVALUE_DB'] } } },
      { include: ['DYNAMODB_INDEXES'] },
    )
  ).resources[0];
  expect(kv?.resourceProperties?.kvDbA?.globalSecondaryIndexes).toBeDefined();
  const resource = stores[0];
  if (!resource) throw new Error('no object store');
  expect((await client.getResource(resource.id)).id).toBe(resource.id);

  const jobId = await client.takeSnapshot(resource.id, { vaultId: vault.id, retentionDays: 5 });
  await advance(5);
  const backup = await client.getBackupJob(jobId);
  expect(backup.jobExecutionDetails.status).toBe('JOB_COMPLETED');
  expect((await collect(client.listBackupJobs({ filters: { jobId: { in: [jobId] } } }))).length).toBe(1);
  expect((await client.listBackupJobsPage({}, { pageSize: 1 })).jobs).toHaveLength(1);
  const snapshots = await collect(
    client.listSnapshots(resource.id, { sorts: [{ field: 'pointInTime', order: 'DESC' }] }),
  );
  const snapshot = snapshots.find((s) => s.jobId === jobId);
  if (!snapshot) throw new Error('the backup made no snapshot');
  expect((await client.listSnapshotsPage(resource.id, {}, { pageSize: 1 })).snapshots).toHaveLength(1);
  expect((await client.getSnapshot(snapshot.id)).resourceId).toBe(resource.id);

  const destination = { bucketA: { bucketName: 'restores' } };
  const started = await client.restoreBucket(resource.id, snapshot.id, { destination, restoreAccountId: target.id });
  expect(started.kind).toBe('started');
  const filesJob = await client.restoreFiles(resource.id, snapshot.id, {
    destination,
    files: [{ path: '/', isDirectory: true }],
    restoreAccountId: target.id,
  });
  await advance(5);
  expect((await client.getRestoreJob(filesJob)).jobExecutionDetails.status).toBe('JOB_COMPLETED');
  expect((await collect(client.listRestoreJobs({ filters: { snapshotId: { in: [snapshot.id] } } }))).length).toBe(2);
  expect((await client.listRestoreJobsPage({}, { pageSize: 1 })).jobs).toHaveLength(1);

  // Under a policy the same call needs approval; approved, its repeat runs once.
  await control('POST', '/_simulator/policies', {
    operations: ['MPA_OPERATION_RESTORE_RESOURCE'],
    requiredApprovals: 1,
    approvalWindowHours: 24,
    executionWindowHours: 4,
  });
  const gated = await client.restoreBucket(resource.id, snapshot.id, { destination, restoreAccountId: target.id });
  if (gated.kind !== 'approvalRequired') throw new Error('expected an approval request');
  expect((await client.submitActionRequest(gated.request.id, { action: 'CONFIRM', comment: 'drill' }))?.status).toBe(
    'PENDING_APPROVAL',
  );
  await control('POST', `/_simulator/action-requests/${gated.request.id}/approve`, {});
  expect((await client.getActionRequest(gated.request.id)).status).toBe('APPROVED');
  const repeat = await client.restoreBucket(
    resource.id,
    snapshot.id,
    { destination, restoreAccountId: target.id },
    { approvalRequestId: gated.request.id },
  );
  expect(repeat.kind).toBe('started');
  expect((await client.getActionRequest(gated.request.id)).status).toBe('EXECUTED');
  const another = await client.restoreBucket(resource.id, snapshot.id, { destination, restoreAccountId: target.id });
  if (another.kind !== 'approvalRequired') throw new Error('expected an approval request');
  await client.submitActionRequest(another.request.id, { action: 'CONFIRM' });
  expect((await client.cancelActionRequest(another.request.id))?.status).toBe('CANCELED_PENDING_APPROVAL');
});

test('queries and cost data', async () => {
  const state = await control('GET', '/_simulator/state');
  const database = (state.databases as { resourceId: string; databaseName: string; tables: string[] }[])[0];
  if (!database) throw new Error('the simulator lists queryable databases');
  const snapshot = (await collect(client.listSnapshots(database.resourceId)))[0];
  if (!snapshot?.vaultId) throw new Error('relational resources have snapshots');
  const region = (await client.getVault(snapshot.vaultId)).region;
  const restoreAccountId = (await collect(client.listRestoreAccounts()))[0]?.id ?? '';
  const queryId = await client.runQuery(snapshot.id, {
    databaseName: database.databaseName,
    query: `SELECT * FROM ${database.tables[0] ?? 'customers'}`,
    restoreAccountId,
    destination: { bucketA: { bucketName: `exports-${region}` } },
  });
  expect(queryId).toContain(':');
  await advance(3);
  const status = await client.getQueryStatus(queryId);
  expect(status.status).toBe('COMPLETED');
  const first = await client.getQueryResultsPage(queryId, { pageSize: 10 });
  const all = await collect(client.queryResultPages(queryId, { pageSize: 10 }));
  expect(all[0]?.records).toEqual(first.records);
  expect(all.at(-1)?.nextToken).toBeNull();

  const timeFrame = { startTime: '2026-11-01T00:00:00Z', endTime: '2026-11-03T00:00:00Z' };
  const page = await client.getCostDataPage({ timeFrame, granularity: 'DAILY', costUnit: 'USD' }, { pageSize: 2 });
  expect(page.records.length).toBeGreaterThan(0);
  const pages = await collect(
    client.costDataPages({ timeFrame, granularity: 'DAILY', costUnit: 'USD' }, { pageSize: 2 }),
  );
  expect(pages.flatMap((p) => p.records)).toHaveLength(page.totalCount ?? 0);
});
