// Every method of BackupServiceClient once, against a real local HTTP server behind a base URL with a path prefix:
// the request line (method, exact encoded path, query), the headers, the body encoding and the decoded result.
import { BackupServiceClient } from '../../api/client';
import { collect } from '../../api/paging';
import type * as s from '../../api/schemas';
import { bodies, PROJECT_ID, clientForSuite, parseJson, type JsonReply } from './helpers';

const { server, client } = clientForSuite();

const P = `/api/v1/projects/${PROJECT_ID}`;

const roleInput: s.RoleInput = {
  name: 'Restorers',
  permissionGrants: [{ permission: 'resources.restore', accessConditionId: 'ac-1' }],
  accessConditions: [{ id: 'ac-1', effect: 'EXCLUSIVE', expression: 'resource.environment == "STAGE"' }],
};
const accountList: s.AccountListInput = {
  filters: {
    accountStatus: { in: ['CONNECTED'] },
    cloudProvider: { in: ['PROVIDER_A'] },
    accountName: { contains: ['prod'] },
  },
  sorts: [{ field: 'name', order: 'ASC' }],
};
const resourceList: s.ResourceListInput = {
  filters: {
    resourceType: { in: ['PA_KEYVALUE_DB'] },
    backupStatus: { notIn: ['TERMINATED'] },
    tagKeyValues: { containsAnyOf: ['env=prod'] },
  },
  sorts: [
    { field: 'resourceName', order: 'ASC' },
    { field: 'latestSnapshotTime', order: 'DESC' },
  ],
};
const jobList: s.JobListInput = {
  filters: { status: { in: ['JOB_FAILED', 'JOB_PARTIAL'] }, providerResourceId: { in: ['table/res-1'] } },
  sorts: [{ field: 'createdTime', order: 'DESC' }],
};
const bucketRestore: s.RestoreBucketInput = {
  destination: { bucketA: { bucketName: 'restore-bucket', prefix: 'drill/' } },
  restoreAccountId: 'ra-1',
};
const queryInput: s.RunQueryInput = {
  databaseName: 'orders',
  query: 'SELECT id, name FROM customers',
  restoreAccountId: 'ra-1',
  destination: { bucketA: { bucketName: 'query-out', prefix: 'q/' } },
};
const QUERY_ID = '6b1f0c7e-0000-4000-8000-000000000001:9a2e1d3f-0000-4000-8000-000000000002';
const QUERY_PATH = `${P}/queries/6b1f0c7e-0000-4000-8000-000000000001%3A9a2e1d3f-0000-4000-8000-000000000002`;

interface EndpointCase {
  name: string;
  call: (c: BackupServiceClient) => Promise<unknown>;
  reply: JsonReply;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The exact request target: prefix, encoded path and query string. */
  url: string;
  /** The JSON body expected; absent when the call sends no body. */
  sent?: unknown;
  approval?: string;
  result: unknown;
}

const cases: EndpointCase[] = [
  // 4.1 Credentials
  {
    name: 'rotateCredentials',
    call: (c) => c.rotateCredentials('client 7/f'),
    reply: { status: 200, json: bodies.apiCredentials() },
    method: 'POST',
    url: '/api/v1/api-credentials/client%207%2Ff/rotate',
    result: bodies.apiCredentials(),
  },
  {
    name: 'rotateCurrentCredentials',
    call: (c) => c.rotateCurrentCredentials(),
    reply: { status: 200, json: bodies.apiCredentials('rotated-Secret-current') },
    method: 'POST',
    url: '/api/v1/api-credentials/current/rotate',
    result: bodies.apiCredentials('rotated-Secret-current'),
  },
  // 4.2 Roles, permissions, identity providers
  {
    name: 'createRole',
    call: (c) => c.createRole(roleInput),
    reply: { status: 201, json: { role: bodies.role('role-9') } },
    method: 'POST',
    url: '/api/v1/roles',
    sent: roleInput,
    result: bodies.role('role-9'),
  },
  {
    name: 'listPermissions',
    call: (c) => c.listPermissions(),
    reply: { status: 200, json: { permissions: [bodies.permission(), bodies.permission('jobs.view')] } },
    method: 'GET',
    url: '/api/v1/permissions',
    result: [bodies.permission(), bodies.permission('jobs.view')],
  },
  {
    name: 'getRole',
    call: (c) => c.getRole('role/1'),
    reply: { status: 200, json: { role: bodies.role() } },
    method: 'GET',
    url: '/api/v1/roles/role%2F1',
    result: bodies.role(),
  },
  {
    name: 'updateRole',
    call: (c) => c.updateRole('role-2', roleInput),
    reply: { status: 200, json: { role: bodies.role('role-2') } },
    method: 'PUT',
    url: '/api/v1/roles/role-2',
    sent: roleInput,
    result: bodies.role('role-2'),
  },
  {
    name: 'deleteRole (204, empty body)',
    call: (c) => c.deleteRole('role-2'),
    reply: { status: 204 },
    method: 'DELETE',
    url: '/api/v1/roles/role-2',
    result: undefined,
  },
  {
    name: 'listRolesPage',
    call: (c) => c.listRolesPage({ pageSize: 10, pageToken: 'tok a/b' }),
    reply: { status: 200, json: { roles: [bodies.role()], totalCount: 11, nextToken: 'n2' } },
    method: 'POST',
    url: '/api/v1/roles/list?pageSize=10&pageToken=tok+a%2Fb',
    result: { roles: [bodies.role()], totalCount: 11, nextToken: 'n2' },
  },
  {
    name: 'listRoles',
    call: (c) => collect(c.listRoles()),
    reply: { status: 200, json: { roles: [bodies.role('r1'), bodies.role('r2')] } },
    method: 'POST',
    url: '/api/v1/roles/list',
    result: [bodies.role('r1'), bodies.role('r2')],
  },
  {
    name: 'listIdpsPage',
    call: (c) => c.listIdpsPage({ pageSize: 5 }),
    reply: { status: 200, json: { idps: [bodies.idp()], totalCount: 1 } },
    method: 'POST',
    url: '/api/v1/idps/list?pageSize=5',
    result: { idps: [bodies.idp()], totalCount: 1 },
  },
  {
    name: 'listIdps',
    call: (c) => collect(c.listIdps()),
    reply: { status: 200, json: { idps: [bodies.idp('i1'), bodies.idp('i2')], totalCount: 2 } },
    method: 'POST',
    url: '/api/v1/idps/list',
    result: [bodies.idp('i1'), bodies.idp('i2')],
  },
  {
    name: 'createIdpGroup',
    call: (c) => c.createIdpGroup({ idpId: 'idp-1', providerGroupId: 'pg-42', roleIds: ['role-1'] }),
    reply: { status: 201, json: { group: bodies.idpGroup() } },
    method: 'POST',
    url: '/api/v1/idp-groups',
    sent: { idpId: 'idp-1', providerGroupId: 'pg-42', roleIds: ['role-1'] },
    result: bodies.idpGroup(),
  },
  {
    name: 'getIdpGroup',
    call: (c) => c.getIdpGroup('group-1'),
    reply: { status: 200, json: { group: bodies.idpGroup() } },
    method: 'GET',
    url: '/api/v1/idp-groups/group-1',
    result: bodies.idpGroup(),
  },
  {
    name: 'updateIdpGroup',
    call: (c) => c.updateIdpGroup('group 1', { roleIds: ['role-1', 'role-3'], displayName: 'Ops' }),
    reply: { status: 200, json: { group: bodies.idpGroup() } },
    method: 'PUT',
    url: '/api/v1/idp-groups/group%201',
    sent: { roleIds: ['role-1', 'role-3'], displayName: 'Ops' },
    result: bodies.idpGroup(),
  },
  {
    name: 'deleteIdpGroup',
    call: (c) => c.deleteIdpGroup('group-1'),
    reply: { status: 204 },
    method: 'DELETE',
    url: '/api/v1/idp-groups/group-1',
    result: undefined,
  },
  {
    name: 'listIdpGroupsPage',
    call: (c) => c.listIdpGroupsPage({ pageToken: 'g2' }),
    reply: { status: 200, json: { groups: [bodies.idpGroup()], nextToken: null } },
    method: 'POST',
    url: '/api/v1/idp-groups/list?pageToken=g2',
    result: { groups: [bodies.idpGroup()], nextToken: null },
  },
  {
    name: 'listIdpGroups',
    call: (c) => collect(c.listIdpGroups({ pageSize: 50 })),
    reply: { status: 200, json: { groups: [bodies.idpGroup('g1')] } },
    method: 'POST',
    url: '/api/v1/idp-groups/list?pageSize=50',
    result: [bodies.idpGroup('g1')],
  },
  // 4.3 Action requests
  {
    name: 'getActionRequest (bare MPARequest)',
    call: (c) => c.getActionRequest('req-1'),
    reply: { status: 200, json: bodies.mpaRequest() },
    method: 'GET',
    url: `${P}/action-approvals/my-requests/req-1`,
    result: bodies.mpaRequest(),
  },
  {
    name: 'submitActionRequest (CONFIRM)',
    call: (c) => c.submitActionRequest('req-1', { action: 'CONFIRM', comment: 'please approve' }),
    reply: { status: 200, json: { actionApprovalRequest: bodies.mpaRequest('req-1', 'PENDING_APPROVAL') } },
    method: 'POST',
    url: `${P}/action-approvals/my-requests/req-1/submit`,
    sent: { action: 'CONFIRM', comment: 'please approve' },
    result: bodies.mpaRequest('req-1', 'PENDING_APPROVAL'),
  },
  {
    name: 'submitActionRequest (DISCARD, empty result)',
    call: (c) => c.submitActionRequest('req-2', { action: 'DISCARD' }),
    reply: { status: 200, json: {} },
    method: 'POST',
    url: `${P}/action-approvals/my-requests/req-2/submit`,
    sent: { action: 'DISCARD' },
    result: undefined,
  },
  {
    name: 'cancelActionRequest',
    call: (c) => c.cancelActionRequest('req-1'),
    reply: { status: 200, json: { actionApprovalRequest: bodies.mpaRequest('req-1', 'CANCELED_APPROVED') } },
    method: 'POST',
    url: `${P}/action-approvals/my-requests/req-1/cancel`,
    result: bodies.mpaRequest('req-1', 'CANCELED_APPROVED'),
  },
  // 4.4 Source accounts
  {
    name: 'connectSourceAccount',
    call: (c) =>
      c.connectSourceAccount({
        name: 'prod',
        sourceAccountAttributes: { cloudProvider: 'PROVIDER_B', providerB: { tenantId: 't-1', subscriptionId: 's-1' } },
      }),
    reply: { status: 200, json: { sourceAccount: bodies.sourceAccount() } },
    method: 'POST',
    url: `${P}/source-accounts`,
    sent: {
      name: 'prod',
      sourceAccountAttributes: { cloudProvider: 'PROVIDER_B', providerB: { tenantId: 't-1', subscriptionId: 's-1' } },
    },
    result: bodies.sourceAccount(),
  },
  {
    name: 'getSourceAccount',
    call: (c) => c.getSourceAccount('acc-1'),
    reply: { status: 200, json: { sourceAccount: bodies.sourceAccount() } },
    method: 'GET',
    url: `${P}/source-accounts/acc-1`,
    result: bodies.sourceAccount(),
  },
  {
    name: 'updateSourceAccount',
    call: (c) => c.updateSourceAccount('acc-1', { name: 'renamed' }),
    reply: { status: 200, json: { sourceAccount: bodies.sourceAccount() } },
    method: 'PATCH',
    url: `${P}/source-accounts/acc-1`,
    sent: { name: 'renamed' },
    result: bodies.sourceAccount(),
  },
  {
    name: 'deleteSourceAccount (200, empty body)',
    call: (c) => c.deleteSourceAccount('acc-1'),
    reply: { status: 200 },
    method: 'DELETE',
    url: `${P}/source-accounts/acc-1`,
    result: undefined,
  },
  {
    name: 'listSourceAccountsPage',
    call: (c) => c.listSourceAccountsPage(accountList, { pageSize: 2 }),
    reply: { status: 200, json: { accounts: [bodies.sourceAccount()], totalCount: 1 } },
    method: 'POST',
    url: `${P}/source-accounts/list?pageSize=2`,
    sent: accountList,
    result: { accounts: [bodies.sourceAccount()], totalCount: 1 },
  },
  {
    name: 'listSourceAccounts',
    call: (c) => collect(c.listSourceAccounts(accountList)),
    reply: { status: 200, json: { accounts: [bodies.sourceAccount('a1'), bodies.sourceAccount('a2')], totalCount: 2 } },
    method: 'POST',
    url: `${P}/source-accounts/list`,
    sent: accountList,
    result: [bodies.sourceAccount('a1'), bodies.sourceAccount('a2')],
  },
  {
    name: 'disconnectSourceAccount',
    call: (c) => c.disconnectSourceAccount('acc-1'),
    reply: { status: 200, json: { sourceAccount: bodies.sourceAccount('acc-1', 'DISCONNECTED') } },
    method: 'POST',
    url: `${P}/source-accounts/acc-1/disconnect`,
    result: bodies.sourceAccount('acc-1', 'DISCONNECTED'),
  },
  {
    name: 'reconnectSourceAccount',
    call: (c) => c.reconnectSourceAccount('acc-1'),
    reply: { status: 200, json: { sourceAccount: bodies.sourceAccount() } },
    method: 'POST',
    url: `${P}/source-accounts/acc-1/reconnect`,
    result: bodies.sourceAccount(),
  },
  // 4.5 Vaults
  {
    name: 'createVault',
    call: (c) =>
      c.createVault({
        name: 'dr',
        region: 'region-1',
        vaultAttributes: { cloudProvider: 'PROVIDER_A', providerA: { encryptionKey: 'key/abc' } },
      }),
    reply: { status: 201, json: { vault: bodies.vault() } },
    method: 'POST',
    url: `${P}/vaults`,
    sent: {
      name: 'dr',
      region: 'region-1',
      vaultAttributes: { cloudProvider: 'PROVIDER_A', providerA: { encryptionKey: 'key/abc' } },
    },
    result: bodies.vault(),
  },
  {
    name: 'getVault',
    call: (c) => c.getVault('vault-1'),
    reply: { status: 200, json: { vault: bodies.vault() } },
    method: 'GET',
    url: `${P}/vaults/vault-1`,
    result: bodies.vault(),
  },
  {
    name: 'renameVault',
    call: (c) => c.renameVault('vault-1', 'new name'),
    reply: { status: 200, json: { vault: bodies.vault() } },
    method: 'PATCH',
    url: `${P}/vaults/vault-1`,
    sent: { name: 'new name' },
    result: bodies.vault(),
  },
  {
    name: 'listVaultsPage',
    call: (c) => c.listVaultsPage({ pageSize: 3 }),
    reply: { status: 200, json: { vaults: [bodies.vault()], totalCount: 1 } },
    method: 'POST',
    url: `${P}/vaults/list?pageSize=3`,
    result: { vaults: [bodies.vault()], totalCount: 1 },
  },
  {
    name: 'listVaults',
    call: (c) => collect(c.listVaults()),
    reply: { status: 200, json: { vaults: [bodies.vault('v1'), bodies.vault('v2')], totalCount: 2 } },
    method: 'POST',
    url: `${P}/vaults/list`,
    result: [bodies.vault('v1'), bodies.vault('v2')],
  },
  // 4.6 Resources and snapshots
  {
    name: 'listResourcesPage (include=DYNAMODB_INDEXES)',
    call: (c) => c.listResourcesPage(resourceList, { pageSize: 2, include: ['DYNAMODB_INDEXES'] }),
    reply: { status: 200, json: { resources: [bodies.resource()], totalCount: 1 } },
    method: 'POST',
    url: `${P}/resources?pageSize=2&include=DYNAMODB_INDEXES`,
    sent: resourceList,
    result: { resources: [bodies.resource()], totalCount: 1 },
  },
  {
    name: 'listResources (include=DYNAMODB_INDEXES)',
    call: (c) => collect(c.listResources(resourceList, { include: ['DYNAMODB_INDEXES'] })),
    reply: { status: 200, json: { resources: [bodies.resource('r1'), bodies.resource('r2')], totalCount: 2 } },
    method: 'POST',
    url: `${P}/resources?include=DYNAMODB_INDEXES`,
    sent: resourceList,
    result: [bodies.resource('r1'), bodies.resource('r2')],
  },
  {
    name: 'listResources (empty body)',
    call: (c) => collect(c.listResources()),
    reply: { status: 200, json: { resources: [], totalCount: 0 } },
    method: 'POST',
    url: `${P}/resources`,
    sent: {},
    result: [],
  },
  {
    name: 'getResource',
    call: (c) => c.getResource('res/1'),
    reply: { status: 200, json: { resource: bodies.resource() } },
    method: 'GET',
    url: `${P}/resources/res%2F1`,
    result: bodies.resource(),
  },
  {
    name: 'takeSnapshot',
    call: (c) => c.takeSnapshot('res-1', { vaultId: 'vault-1', retentionDays: 30 }),
    reply: { status: 202, json: { jobId: 'job-77' } },
    method: 'POST',
    url: `${P}/resources/res-1/take-snapshot`,
    sent: { vaultId: 'vault-1', retentionDays: 30 },
    result: 'job-77',
  },
  {
    name: 'restoreFiles',
    call: (c) =>
      c.restoreFiles('res-1', 'snap 1', {
        destination: { bucketC: { bucketName: 'b', prefix: 'p/' } },
        files: [{ path: '/etc/hosts', isDirectory: false }],
        restoreAccountId: 'ra-1',
      }),
    reply: { status: 202, json: { jobId: 'job-78' } },
    method: 'POST',
    url: `${P}/resources/res-1/snapshots/snap%201/restore-files`,
    sent: {
      destination: { bucketC: { bucketName: 'b', prefix: 'p/' } },
      files: [{ path: '/etc/hosts', isDirectory: false }],
      restoreAccountId: 'ra-1',
    },
    result: 'job-78',
  },
  {
    name: 'restoreBucket (202: started)',
    call: (c) => c.restoreBucket('res-1', 'snap-1', bucketRestore),
    reply: { status: 202, json: { jobId: 'job-79' } },
    method: 'POST',
    url: `${P}/resources/res-1/snapshots/snap-1/restore-bucket`,
    sent: bucketRestore,
    result: { kind: 'started', jobId: 'job-79' },
  },
  {
    name: 'restoreBucket (201: approval required)',
    call: (c) => c.restoreBucket('res-1', 'snap-1', bucketRestore),
    reply: { status: 201, json: { actionApprovalRequest: bodies.mpaRequest('req-5') } },
    method: 'POST',
    url: `${P}/resources/res-1/snapshots/snap-1/restore-bucket`,
    sent: bucketRestore,
    result: { kind: 'approvalRequired', request: bodies.mpaRequest('req-5') },
  },
  {
    name: 'restoreBucket (with an approved request id)',
    call: (c) => c.restoreBucket('res-1', 'snap-1', bucketRestore, { approvalRequestId: 'req-5' }),
    reply: { status: 202, json: { jobId: 'job-80' } },
    method: 'POST',
    url: `${P}/resources/res-1/snapshots/snap-1/restore-bucket`,
    sent: bucketRestore,
    approval: 'req-5',
    result: { kind: 'started', jobId: 'job-80' },
  },
  {
    name: 'protectedCall (generic path, 201)',
    call: (c) => c.protectedCall(`/v1/projects/${PROJECT_ID}/restore-accounts`, { providerAccountId: '1' }, 'req-6'),
    reply: { status: 201, json: { actionApprovalRequest: bodies.mpaRequest('req-7') } },
    method: 'POST',
    url: `${P}/restore-accounts`,
    sent: { providerAccountId: '1' },
    approval: 'req-6',
    result: { kind: 'approvalRequired', request: bodies.mpaRequest('req-7') },
  },
  {
    name: 'listSnapshotsPage',
    call: (c) =>
      c.listSnapshotsPage(
        'res-1',
        {
          filters: { pointInTime: { startDate: '2025-01-01', endDate: '2025-01-31' } },
          sorts: [{ field: 'pointInTime', order: 'DESC' }],
        },
        { pageSize: 4 },
      ),
    reply: { status: 200, json: { snapshots: [bodies.snapshot()], totalCount: 1 } },
    method: 'POST',
    url: `${P}/resources/res-1/snapshots?pageSize=4`,
    sent: {
      filters: { pointInTime: { startDate: '2025-01-01', endDate: '2025-01-31' } },
      sorts: [{ field: 'pointInTime', order: 'DESC' }],
    },
    result: { snapshots: [bodies.snapshot()], totalCount: 1 },
  },
  {
    name: 'listSnapshots',
    call: (c) => collect(c.listSnapshots('res/1')),
    reply: { status: 200, json: { snapshots: [bodies.snapshot('s1'), bodies.snapshot('s2')] } },
    method: 'POST',
    url: `${P}/resources/res%2F1/snapshots`,
    sent: {},
    result: [bodies.snapshot('s1'), bodies.snapshot('s2')],
  },
  {
    name: 'getSnapshot',
    call: (c) => c.getSnapshot('snap-1'),
    reply: { status: 200, json: { snapshot: bodies.snapshot() } },
    method: 'GET',
    url: `${P}/snapshots/snap-1`,
    result: bodies.snapshot(),
  },
  // Jobs
  {
    name: 'getBackupJob',
    call: (c) => c.getBackupJob('job-1'),
    reply: { status: 200, json: { job: bodies.backupJob() } },
    method: 'GET',
    url: `${P}/backup-jobs/job-1`,
    result: bodies.backupJob(),
  },
  {
    name: 'getRestoreJob',
    call: (c) => c.getRestoreJob('job-2'),
    reply: { status: 200, json: { job: bodies.restoreJob() } },
    method: 'GET',
    url: `${P}/restore-jobs/job-2`,
    result: bodies.restoreJob(),
  },
  {
    name: 'listBackupJobsPage',
    call: (c) => c.listBackupJobsPage(jobList, { pageSize: 20, pageToken: 'b2' }),
    reply: { status: 200, json: { jobs: [bodies.backupJob()], totalCount: 21, nextToken: 'b3' } },
    method: 'POST',
    url: `${P}/backup-jobs?pageSize=20&pageToken=b2`,
    sent: jobList,
    result: { jobs: [bodies.backupJob()], totalCount: 21, nextToken: 'b3' },
  },
  {
    name: 'listBackupJobs',
    call: (c) => collect(c.listBackupJobs(jobList)),
    reply: { status: 200, json: { jobs: [bodies.backupJob('j1'), bodies.backupJob('j2')], totalCount: 2 } },
    method: 'POST',
    url: `${P}/backup-jobs`,
    sent: jobList,
    result: [bodies.backupJob('j1'), bodies.backupJob('j2')],
  },
  {
    name: 'listRestoreJobsPage',
    call: (c) => c.listRestoreJobsPage(jobList, { pageSize: 20 }),
    reply: { status: 200, json: { jobs: [bodies.restoreJob()], totalCount: 1 } },
    method: 'POST',
    url: `${P}/restore-jobs?pageSize=20`,
    sent: jobList,
    result: { jobs: [bodies.restoreJob()], totalCount: 1 },
  },
  {
    name: 'listRestoreJobs',
    call: (c) => collect(c.listRestoreJobs()),
    reply: { status: 200, json: { jobs: [bodies.restoreJob('j3')], totalCount: 1 } },
    method: 'POST',
    url: `${P}/restore-jobs`,
    sent: {},
    result: [bodies.restoreJob('j3')],
  },
  // Restore accounts
  {
    name: 'listRestoreAccountsPage',
    call: (c) => c.listRestoreAccountsPage(accountList, { pageSize: 1 }),
    reply: { status: 200, json: { accounts: [bodies.restoreAccount()], totalCount: 1 } },
    method: 'POST',
    url: `${P}/restore-accounts/list?pageSize=1`,
    sent: accountList,
    result: { accounts: [bodies.restoreAccount()], totalCount: 1 },
  },
  {
    name: 'listRestoreAccounts',
    call: (c) => collect(c.listRestoreAccounts()),
    reply: {
      status: 200,
      json: { accounts: [bodies.restoreAccount('ra-1'), bodies.restoreAccount('ra-2')], totalCount: 2 },
    },
    method: 'POST',
    url: `${P}/restore-accounts/list`,
    sent: {},
    result: [bodies.restoreAccount('ra-1'), bodies.restoreAccount('ra-2')],
  },
  {
    name: 'getRestoreAccount',
    call: (c) => c.getRestoreAccount('ra-1'),
    reply: { status: 200, json: { restoreAccount: bodies.restoreAccount() } },
    method: 'GET',
    url: `${P}/restore-accounts/ra-1`,
    result: bodies.restoreAccount(),
  },
  // 4.7 Queries
  {
    name: 'runQuery',
    call: (c) => c.runQuery('snap-1', queryInput),
    reply: { status: 202, json: { queryId: QUERY_ID } },
    method: 'POST',
    url: `${P}/snapshots/snap-1/databases/query`,
    sent: queryInput,
    result: QUERY_ID,
  },
  {
    name: 'getQueryStatus (":" in the query ID is %3A)',
    call: (c) => c.getQueryStatus(QUERY_ID),
    reply: { status: 200, json: { status: 'COMPLETED', runningTimeMs: 1200, outputLocations: ['bucket/q/out.csv'] } },
    method: 'GET',
    url: `${QUERY_PATH}/status`,
    result: { status: 'COMPLETED', runningTimeMs: 1200, outputLocations: ['bucket/q/out.csv'] },
  },
  {
    name: 'getQueryResultsPage',
    call: (c) => c.getQueryResultsPage(QUERY_ID, { pageSize: 100, pageToken: 'r2' }),
    reply: { status: 200, json: bodies.queryResults('r3') },
    method: 'GET',
    url: `${QUERY_PATH}/results?pageToken=r2&pageSize=100`,
    result: bodies.queryResults('r3'),
  },
  {
    name: 'queryResultPages',
    call: (c) => collect(c.queryResultPages(QUERY_ID, { pageSize: 500 })),
    reply: { status: 200, json: bodies.queryResults(null) },
    method: 'GET',
    url: `${QUERY_PATH}/results?pageSize=500`,
    result: [bodies.queryResults(null)],
  },
  // 4.8 Cost data
  {
    name: 'getCostDataPage',
    call: (c) => c.getCostDataPage(bodies.costInput(), { pageSize: 10 }),
    reply: { status: 200, json: { records: [bodies.costRecord()], totalCount: 1, resourceCount: 1 } },
    method: 'POST',
    url: '/api/v1/cost-data?pageSize=10',
    sent: bodies.costInput(),
    result: { records: [bodies.costRecord()], totalCount: 1, resourceCount: 1 },
  },
  {
    name: 'costDataPages',
    call: (c) => collect(c.costDataPages(bodies.costInput())),
    reply: { status: 200, json: { records: [bodies.costRecord()], totalCount: 1, resourceCount: 1, nextToken: null } },
    method: 'POST',
    url: '/api/v1/cost-data',
    sent: bodies.costInput(),
    result: [{ records: [bodies.costRecord()], totalCount: 1, resourceCount: 1, nextToken: null }],
  },
];

test.each(cases)('$name', async (c) => {
  server.handler = () => c.reply;
  const result = await c.call(client());

  expect(result).toEqual(c.result);
  expect(server.apiRequests).toHaveLength(1);
  const req = server.lastApi();
  expect(`${req.method} ${req.url}`).toBe(`${c.method} ${c.url}`);
  expect(req.headers.authorization).toBe(`Bearer ${server.lastToken}`);
  expect(req.headers.accept).toBe('application/json');
  expect(req.headers['x-action-approval-request-id']).toBe(c.approval);
  if ('sent' in c) {
    expect(req.headers['content-type']).toBe('application/json');
    expect(parseJson(req.body)).toEqual(c.sent);
  } else {
    expect(req.headers['content-type']).toBeUndefined();
    expect(req.body).toBe('');
  }
});

// The public API declares no request body on these four lists (a strict service answers 415 to one): paging rides in
// the query, and a bodyless POST still states its empty length.
const bodylessLists: [string, (c: BackupServiceClient, page: { pageSize: number; pageToken: string }) => unknown][] = [
  [`${P}/vaults/list`, (c, page) => c.listVaultsPage(page)],
  ['/api/v1/roles/list', (c, page) => c.listRolesPage(page)],
  ['/api/v1/idps/list', (c, page) => c.listIdpsPage(page)],
  ['/api/v1/idp-groups/list', (c, page) => c.listIdpGroupsPage(page)],
];

test.each(bodylessLists)('%s sends no body, paging in the query', async (path, list) => {
  server.reply(200, { vaults: [], roles: [], idps: [], groups: [], totalCount: 0 });
  await list(client(), { pageSize: 7, pageToken: 'next/7' });
  const req = server.lastApi();
  expect(`${req.method} ${req.path}`).toBe(`POST ${path}`);
  expect(Object.fromEntries(req.query)).toEqual({ pageSize: '7', pageToken: 'next/7' });
  expect(req.body).toBe('');
  expect(req.headers['content-type']).toBeUndefined();
  expect(req.headers['content-length']).toBe('0');
});

test('a resources list still sends its JSON body, paging in the query', async () => {
  server.reply(200, { resources: [], totalCount: 0 });
  await client().listResourcesPage(resourceList, { pageSize: 7, pageToken: 'next/7' });
  const req = server.lastApi();
  expect(Object.fromEntries(req.query)).toEqual({ pageSize: '7', pageToken: 'next/7' });
  expect(req.headers['content-type']).toBe('application/json');
  expect(parseJson(req.body)).toEqual(resourceList);
});

test('one token serves the whole suite (fetched once, cached)', async () => {
  server.reply(200, { vault: bodies.vault() });
  await client().getVault('vault-1');
  expect(server.tokenRequests).toHaveLength(0);
  expect(server.issuedTokens).toHaveLength(1);
});

test("serviceNow follows the service's clock from the Date header of its last answer", async () => {
  const serviceTime = Date.parse('2031-05-06T07:08:09Z');
  server.reply(200, { vault: bodies.vault() }, { date: new Date(serviceTime).toUTCString() });
  await client().getVault('vault-1');
  // Whole seconds, read a moment ago: within a second or two of the service's time, years from ours.
  expect(Math.abs(client().serviceNow() - serviceTime)).toBeLessThan(2_000);
});

test('every public method of the client is exercised above', () => {
  const methods = Object.getOwnPropertyNames(BackupServiceClient.prototype).filter(
    (name) =>
      name !== 'constructor' &&
      // wireDialect has its own tests (wire-dialect.test.ts).
      ![
        'data',
        'project',
        'listPage',
        'all',
        'snapshotPath',
        'serviceNow',
        'serviceOffsetBounds',
        'sendable',
        'wireDialect',
      ].includes(name),
  );
  const covered = new Set(cases.map((c) => c.name.split(' ')[0]));
  expect(methods.filter((m) => !covered.has(m))).toEqual([]);
});
