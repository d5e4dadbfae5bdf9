// Bad arguments are refused with an InvalidArgumentError naming the field, before anything is sent: the server
// records no request at all, not even a token request.
import { requestToken } from '../../api/auth';
import { BackupServiceClient } from '../../api/client';
import { InvalidArgumentError } from '../../api/errors';
import { HttpTransport } from '../../api/http';
import { collect } from '../../api/paging';
import type { DialectSetting } from '../../api/dialect';
import type * as s from '../../api/schemas';
import { CREDENTIALS, recordingServerForSuite, costInput, failureOf, makeClient, vault } from './helpers';

const server = recordingServerForSuite();

const dayMinusOneMinute: s.CostDataInput = {
  timeFrame: { startTime: '2025-02-01T00:00:00Z', endTime: '2025-02-01T23:59:00Z' },
};
const bucketRestore: s.RestoreBucketInput = { destination: { bucketA: { bucketName: 'b' } }, restoreAccountId: 'ra-1' };

/** Inputs a caller might build from untyped data (configuration, workflow arguments). */
function untyped<T>(value: unknown): T {
  return value as T;
}

interface ValidationCase {
  name: string;
  call: (c: BackupServiceClient) => unknown;
  /**
   * The client's dialect (default auto). A provider or resource type no table knows can only be judged once the wire
   * is known: the neutral dialect's closed list refuses it, the public dialect's open one sends it.
   */
  dialect?: DialectSetting;
  /** The field the error names, exactly. */
  field: string;
}

const cases: ValidationCase[] = [
  // Cost data
  {
    name: 'cost time frame of 23 h 59 min',
    call: (c) => c.getCostDataPage(dayMinusOneMinute),
    field: 'costData.timeFrame.endTime',
  },
  {
    name: 'cost time frame (pages)',
    call: (c) => collect(c.costDataPages(dayMinusOneMinute)),
    field: 'costData.timeFrame.endTime',
  },
  {
    name: 'cost time frame ending before it starts',
    call: (c) =>
      c.getCostDataPage({ timeFrame: { startTime: '2025-02-02T00:00:00Z', endTime: '2025-02-01T00:00:00Z' } }),
    field: 'costData.timeFrame.endTime',
  },
  {
    name: 'cost startTime not a date-time',
    call: (c) => c.getCostDataPage({ timeFrame: { startTime: 'yesterday', endTime: '2025-02-02T00:00:00Z' } }),
    field: 'costData.timeFrame.startTime',
  },
  { name: 'cost topN 0', call: (c) => c.getCostDataPage({ ...costInput(), topN: 0 }), field: 'costData.topN' },
  {
    name: 'cost unit UNSPECIFIED (responses only)',
    call: (c) => c.getCostDataPage({ ...costInput(), costUnit: untyped('UNSPECIFIED') }),
    field: 'costData.costUnit',
  },
  {
    name: 'cost filter with an unknown resource type (neutral wire)',
    call: (c) => c.getCostDataPage({ ...costInput(), filters: { resourceType: { in: untyped(['PE_QUANTUM_DB']) } } }),
    field: 'costData.filters.resourceType.in.0',
    dialect: 'neutral',
  },
  { name: 'cost pageSize 0', call: (c) => c.getCostDataPage(costInput(), { pageSize: 0 }), field: 'page.pageSize' },
  // Paging
  { name: 'pageSize 0 (page)', call: (c) => c.listRolesPage({ pageSize: 0 }), field: 'page.pageSize' },
  { name: 'pageSize 0 (iterator)', call: (c) => collect(c.listRoles({ pageSize: 0 })), field: 'page.pageSize' },
  { name: 'pageSize 2.5', call: (c) => c.listVaultsPage({ pageSize: 2.5 }), field: 'page.pageSize' },
  {
    name: 'pageSize -1 (iterator)',
    call: (c) => collect(c.listResources({}, { pageSize: -1 })),
    field: 'page.pageSize',
  },
  { name: 'empty pageToken', call: (c) => c.listIdpsPage({ pageToken: '' }), field: 'page.pageToken' },
  {
    name: 'query results pageSize 0',
    call: (c) => c.getQueryResultsPage('q-1', { pageSize: 0 }),
    field: 'page.pageSize',
  },
  {
    name: 'query result pages pageSize 0',
    call: (c) => collect(c.queryResultPages('q-1', { pageSize: 0 })),
    field: 'page.pageSize',
  },
  // Path parameters
  { name: 'empty resource id', call: (c) => c.getResource(''), field: 'resourceId' },
  { name: 'blank resource id', call: (c) => c.getResource('   '), field: 'resourceId' },
  {
    name: 'empty resource id (take-snapshot)',
    call: (c) => c.takeSnapshot('', { vaultId: 'v', retentionDays: 1 }),
    field: 'resourceId',
  },
  {
    name: 'empty snapshot id (restore-bucket)',
    call: (c) => c.restoreBucket('res-1', '', bucketRestore),
    field: 'snapshotId',
  },
  { name: 'empty query id', call: (c) => c.getQueryStatus(''), field: 'queryId' },
  { name: 'empty query id (pages)', call: (c) => collect(c.queryResultPages('')), field: 'queryId' },
  { name: 'empty client id (rotate)', call: (c) => c.rotateCredentials(''), field: 'clientId' },
  { name: 'empty role id', call: (c) => c.deleteRole(''), field: 'roleId' },
  { name: 'empty request id', call: (c) => c.cancelActionRequest(''), field: 'requestId' },
  { name: 'empty account id', call: (c) => c.disconnectSourceAccount(''), field: 'accountId' },
  { name: 'empty vault id', call: (c) => c.renameVault('', 'x'), field: 'vaultId' },
  { name: 'empty job id', call: (c) => c.getRestoreJob(''), field: 'jobId' },
  { name: 'empty resource id (snapshot list)', call: (c) => collect(c.listSnapshots('')), field: 'resourceId' },
  {
    name: 'blank approval request id',
    call: (c) => c.restoreBucket('r', 's', bucketRestore, { approvalRequestId: ' ' }),
    field: 'approvalRequestId',
  },
  {
    name: 'empty approval request id',
    call: (c) => c.restoreBucket('r', 's', bucketRestore, { approvalRequestId: '' }),
    field: 'approvalRequestId',
  },
  // Bodies
  {
    name: 'retentionDays 0',
    call: (c) => c.takeSnapshot('res-1', { vaultId: 'v', retentionDays: 0 }),
    field: 'snapshot.retentionDays',
  },
  {
    name: 'empty vaultId',
    call: (c) => c.takeSnapshot('res-1', { vaultId: '', retentionDays: 7 }),
    field: 'snapshot.vaultId',
  },
  {
    name: 'bad enum in a resource filter (neutral wire)',
    call: (c) => c.listResourcesPage({ filters: { resourceType: { in: untyped(['PE_QUANTUM_DB']) } } }),
    field: 'list.filters.resourceType.in.0',
    dialect: 'neutral',
  },
  {
    name: 'a provider that is no token of either dialect (iterator)',
    call: (c) => collect(c.listResources({ filters: { cloudProvider: { notIn: untyped(['aws']) } } })),
    field: 'list.filters.cloudProvider.notIn.0',
  },
  {
    name: 'a responses-only resource type of the public dialect',
    call: (c) => c.listResourcesPage({ filters: { resourceType: { in: untyped(['RESOURCE_TYPE_UNSPECIFIED']) } } }),
    field: 'list.filters.resourceType.in.0',
  },
  {
    name: 'responses-only provider in a filter',
    call: (c) => c.listResourcesPage({ filters: { cloudProvider: { in: untyped(['PROVIDER_UNSPECIFIED']) } } }),
    field: 'list.filters.cloudProvider.in.0',
  },
  {
    name: 'tag filter that is no key=value',
    call: (c) => c.listResourcesPage({ filters: { tagKeyValues: { containsAllOf: ['env'] } } }),
    field: 'list.filters.tagKeyValues.containsAllOf.0',
  },
  {
    name: 'unknown sort field',
    call: (c) => c.listResourcesPage({ sorts: [{ field: untyped('size'), order: 'ASC' }] }),
    field: 'list.sorts.0.field',
  },
  { name: 'unknown include', call: (c) => c.listResourcesPage({}, { include: ['EVERYTHING'] }), field: 'include.0' },
  {
    name: 'responses-only job status in a filter',
    call: (c) => collect(c.listBackupJobs({ filters: { status: { in: untyped(['JOB_UNSPECIFIED']) } } })),
    field: 'list.filters.status.in.0',
  },
  {
    name: 'responses-only account status in a filter',
    call: (c) => c.listSourceAccountsPage({ filters: { accountStatus: { in: untyped(['NOT_READY']) } } }),
    field: 'list.filters.accountStatus.in.0',
  },
  {
    name: 'snapshot list date that is no YYYY-MM-DD',
    call: (c) => c.listSnapshotsPage('res-1', { filters: { pointInTime: { startDate: '2025/01/01' } } }),
    field: 'list.filters.pointInTime.startDate',
  },
  {
    name: 'relative file path',
    call: (c) =>
      c.restoreFiles('r', 's', {
        destination: {},
        files: [{ path: 'etc/hosts', isDirectory: false }],
        restoreAccountId: 'ra',
      }),
    field: 'restore.files.0.path',
  },
  {
    name: 'no files to restore',
    call: (c) => c.restoreFiles('r', 's', { destination: {}, files: [], restoreAccountId: 'ra' }),
    field: 'restore.files',
  },
  {
    name: 'empty restore account',
    call: (c) => c.restoreBucket('r', 's', { destination: {}, restoreAccountId: '' }),
    field: 'restore.restoreAccountId',
  },
  {
    name: 'empty destination bucket name',
    call: (c) => c.restoreBucket('r', 's', { destination: { bucketA: { bucketName: '' } }, restoreAccountId: 'ra' }),
    field: 'restore.destination.bucketA.bucketName',
  },
  {
    name: 'submit action UNSPECIFIED',
    call: (c) => c.submitActionRequest('req-1', { action: untyped('MPA_SUBMIT_ACTION_UNSPECIFIED') }),
    field: 'submit.action',
  },
  {
    name: 'source account provider member that does not match cloudProvider',
    call: (c) =>
      c.connectSourceAccount({
        sourceAccountAttributes: { cloudProvider: 'PROVIDER_A', providerB: { tenantId: 't', subscriptionId: 's' } },
      }),
    field: 'account.sourceAccountAttributes.providerB',
  },
  {
    name: 'source account without its provider member',
    call: (c) => c.updateSourceAccount('acc-1', { sourceAccountAttributes: { cloudProvider: 'PROVIDER_C' } }),
    field: 'account.sourceAccountAttributes.providerC',
  },
  {
    name: 'role without permissions',
    call: (c) => c.createRole({ name: 'r', permissionGrants: [] }),
    field: 'role.permissionGrants',
  },
  {
    name: 'role grant naming an unknown access condition',
    call: (c) =>
      c.updateRole('role-1', { name: 'r', permissionGrants: [{ permission: 'jobs.view', accessConditionId: 'nope' }] }),
    field: 'role.permissionGrants.0.accessConditionId',
  },
  {
    name: 'empty role id in an IdP group',
    call: (c) => c.updateIdpGroup('g-1', { roleIds: [''] }),
    field: 'group.roleIds.0',
  },
  {
    name: 'empty provider group id',
    call: (c) => c.createIdpGroup({ idpId: 'idp-1', providerGroupId: '', roleIds: [] }),
    field: 'group.providerGroupId',
  },
  {
    name: 'vault with the responses-only provider',
    call: (c) =>
      c.createVault({ name: 'v', region: 'r', vaultAttributes: { cloudProvider: untyped('PROVIDER_UNSPECIFIED') } }),
    field: 'vault.vaultAttributes.cloudProvider',
  },
  { name: 'empty vault name', call: (c) => c.renameVault('vault-1', ''), field: 'vault.name' },
  {
    name: 'empty SQL query',
    call: (c) => c.runQuery('snap-1', { databaseName: 'db', query: '', restoreAccountId: 'ra', destination: {} }),
    field: 'query.query',
  },
  {
    name: 'whitespace-only SQL query',
    call: (c) => c.runQuery('snap-1', { databaseName: 'db', query: ' \n\t', restoreAccountId: 'ra', destination: {} }),
    field: 'query.query',
  },
  // Unknown keys: a misspelt field is named, never silently dropped
  {
    name: 'misspelt cost groupBy',
    call: (c) => c.getCostDataPage(untyped({ ...costInput(), groupby: 'RESOURCE' })),
    field: 'costData.groupby',
  },
  {
    name: 'unknown key in a cost time frame',
    call: (c) => c.getCostDataPage(untyped({ timeFrame: { ...costInput().timeFrame, zone: 'UTC' } })),
    field: 'costData.timeFrame.zone',
  },
  {
    name: 'misspelt resource filter',
    call: (c) => c.listResourcesPage(untyped({ filters: { resourceTypes: { in: ['PA_VM'] } } })),
    field: 'list.filters.resourceTypes',
  },
  {
    name: 'unknown key inside an in/notIn filter',
    call: (c) => collect(c.listBackupJobs(untyped({ filters: { status: { include: ['JOB_FAILED'] } } }))),
    field: 'list.filters.status.include',
  },
  {
    name: 'unknown key in a sort',
    call: (c) => c.listResourcesPage(untyped({ sorts: [{ field: 'resourceName', order: 'ASC', nulls: 'LAST' }] })),
    field: 'list.sorts.0.nulls',
  },
  {
    name: 'misspelt retentionDays',
    call: (c) => c.takeSnapshot('res-1', untyped({ vaultId: 'v', retentionDays: 7, retentionDay: 30 })),
    field: 'snapshot.retentionDay',
  },
  {
    name: 'unknown key in a restore destination bucket',
    call: (c) =>
      c.restoreBucket(
        'r',
        's',
        untyped({ destination: { bucketA: { bucketName: 'b', region: 'x' } }, restoreAccountId: 'ra' }),
      ),
    field: 'restore.destination.bucketA.region',
  },
  {
    name: 'unknown destination kind',
    call: (c) =>
      c.restoreBucket('r', 's', untyped({ destination: { bucketB: { bucketName: 'b' } }, restoreAccountId: 'ra' })),
    field: 'restore.destination.bucketB',
  },
  {
    name: 'unknown key in a file path',
    call: (c) =>
      c.restoreFiles(
        'r',
        's',
        untyped({ destination: {}, files: [{ path: '/a', isDirectory: false, mode: 1 }], restoreAccountId: 'ra' }),
      ),
    field: 'restore.files.0.mode',
  },
  {
    name: 'unknown key in a query',
    call: (c) =>
      c.runQuery(
        'snap-1',
        untyped({ databaseName: 'db', query: 'SELECT 1', restoreAccountId: 'ra', destination: {}, limit: 5 }),
      ),
    field: 'query.limit',
  },
  {
    name: 'unknown key in a submit',
    call: (c) => c.submitActionRequest('req-1', untyped({ action: 'CONFIRM', note: 'x' })),
    field: 'submit.note',
  },
  {
    name: 'unknown key in a role grant',
    call: (c) => c.createRole(untyped({ name: 'r', permissionGrants: [{ permission: 'jobs.view', scope: 'all' }] })),
    field: 'role.permissionGrants.0.scope',
  },
  {
    name: 'unknown key in an IdP group',
    call: (c) => c.updateIdpGroup('g-1', untyped({ roleIds: ['role-1'], roles: ['role-2'] })),
    field: 'group.roles',
  },
  {
    name: 'unknown key in source account attributes',
    call: (c) =>
      c.connectSourceAccount(
        untyped({
          sourceAccountAttributes: { cloudProvider: 'PROVIDER_C', providerC: { serviceAccount: 'sa', key: 'k' } },
        }),
      ),
    field: 'account.sourceAccountAttributes.providerC.key',
  },
  {
    name: 'unknown key in a vault',
    call: (c) =>
      c.createVault(untyped({ name: 'v', region: 'r', vaultAttributes: { cloudProvider: 'PROVIDER_A' }, tier: 'x' })),
    field: 'vault.tier',
  },
  {
    name: 'unknown key in a snapshot list filter',
    call: (c) => c.listSnapshotsPage('res-1', untyped({ filters: { pointInTime: { from: '2025-01-01' } } })),
    field: 'list.filters.pointInTime.from',
  },
  {
    name: 'unknown key in an account list',
    call: (c) => c.listSourceAccountsPage(untyped({ filters: { name: { in: ['a'] } } })),
    field: 'list.filters.name',
  },
];

test.each(cases)('$name → InvalidArgumentError($field), nothing sent', async ({ call, field, dialect }) => {
  server.reply(200, {});
  const err = await failureOf(() => call(makeClient(server, dialect ? { dialect } : {})));

  expect(err).toBeInstanceOf(InvalidArgumentError);
  expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', retryable: false, field });
  expect((err as Error).message).toContain(field);
  expect(server.requests).toHaveLength(0);
});

test('an unknown key is named as the field, with the problem "unrecognized key"', async () => {
  const err = await failureOf(() => makeClient(server).getCostDataPage(untyped({ ...costInput(), groupby: 'X' })));
  expect((err as Error).message).toBe('invalid argument costData.groupby: unrecognized key');
  expect(server.requests).toHaveLength(0);
});

test('requestToken sends only clientId and clientSecret, whatever else the credentials object holds', async () => {
  server.reply(200, {});
  const transport = new HttpTransport({ baseUrl: server.url() });
  await requestToken(transport, untyped({ ...CREDENTIALS, source: 'file' }));
  expect(server.tokenRequests).toHaveLength(1);
  expect(JSON.parse(server.tokenRequests[0]?.body ?? '')).toEqual(CREDENTIALS);
});

test('Promise-returning methods reject instead of throwing synchronously', async () => {
  const client = makeClient(server);
  const calls: [string, () => Promise<unknown>][] = [
    ['getCostDataPage', () => client.getCostDataPage(dayMinusOneMinute)],
    ['listRolesPage', () => client.listRolesPage({ pageSize: 0 })],
    ['listResourcesPage', () => client.listResourcesPage({}, { include: ['EVERYTHING'] })],
    ['listSnapshotsPage', () => client.listSnapshotsPage('')],
    ['getResource', () => client.getResource('')],
  ];
  const thrownSynchronously: string[] = [];
  for (const [name, call] of calls) {
    let promise: Promise<unknown> | undefined;
    try {
      promise = call();
    } catch {
      thrownSynchronously.push(name);
    }
    await promise?.catch(() => undefined);
  }
  expect(thrownSynchronously).toEqual([]);
  expect(server.requests).toHaveLength(0);
});

test('the client refuses an empty project id at construction', () => {
  expect(() => makeClient(server, { projectId: '' })).toThrow(InvalidArgumentError);
  expect(() => makeClient(server, { projectId: '' })).toThrow('projectId');
});

test('requestToken refuses empty credentials before sending', async () => {
  const transport = new HttpTransport({ baseUrl: server.url() });
  const err = await failureOf(() => requestToken(transport, { clientId: '', clientSecret: CREDENTIALS.clientSecret }));
  expect(err).toMatchObject({ field: 'credentials.clientId' });
  expect(server.requests).toHaveLength(0);
});

test('control: valid arguments do reach the server', async () => {
  server.reply(200, { vault: vault() });
  await makeClient(server).getVault('vault-1');
  expect(server.tokenRequests).toHaveLength(1);
  expect(server.apiRequests).toHaveLength(1);
});
