// The bad-input suite's cases, as tables. Every input is otherwise valid against the seeded simulator, so that a
// check that let one through would act on real resources.

/** Real targets from the seeded simulator. */
export interface Targets {
  vaultId: string;
  restoreAccountId: string;
  resourceId: string;
  snapshotId: string;
  databaseName: string;
  accountId: string;
}

export const bucket = { bucketA: { bucketName: 'bad-input-restores' } };
export const DAY = '2026-11-01T00:00:00Z';
export const NEXT_DAY = '2026-11-02T00:00:00Z';

export function drill(t: Targets, overrides: Record<string, unknown> = {}) {
  return {
    name: 'bad-input',
    resources: { ids: [t.resourceId] },
    vaultId: t.vaultId,
    restoreAccountId: t.restoreAccountId,
    destination: bucket,
    targets: { rpoSeconds: 3600, rtoSeconds: 900 },
    ...overrides,
  };
}

export function restore(t: Targets, overrides: Record<string, unknown> = {}) {
  return {
    resourceId: t.resourceId,
    snapshotId: t.snapshotId,
    restoreAccountId: t.restoreAccountId,
    destination: bucket,
    ...overrides,
  };
}

export function queryExport(t: Targets, query: Record<string, unknown> = {}, overrides: Record<string, unknown> = {}) {
  return {
    snapshotId: t.snapshotId,
    query: {
      databaseName: t.databaseName,
      query: 'SELECT * FROM orders',
      restoreAccountId: t.restoreAccountId,
      destination: { bucketA: { bucketName: 'query-results-pa-east-1' } },
      ...query,
    },
    ...overrides,
  };
}

const sqlCheck = (t: Targets, overrides: Record<string, unknown>) => ({
  databaseName: t.databaseName,
  query: 'SELECT * FROM orders',
  expectation: 'rows >= 1',
  destination: { bucketA: { bucketName: 'query-results-pa-east-1' } },
  ...overrides,
});

export type RunbookCase = [runbook: string, input: (t: Targets) => unknown, field: string, message: RegExp];

/** Runbooks started straight through Temporal, bypassing the CLI: each fails with InvalidInput naming the field. */
export const RUNBOOK_CASES: RunbookCase[] = [
  [
    'drDrill',
    (t) => drill(t, { resources: { filters: { resourceTypes: { in: ['PA_VM'] } } } }),
    'resources.filters.resourceTypes',
    /did you mean 'resourceType'/,
  ],
  ['drDrill', (t) => drill(t, { retentionDay: 30 }), 'retentionDay', /did you mean 'retentionDays'/],
  ['drDrill', (t) => drill(t, { destination: {} }), 'destination', /name a target/],
  [
    'drDrill',
    (t) => drill(t, { destination: { bucketA: { bucketName: 'b', prefx: 'p/' } } }),
    'destination.bucketA.prefx',
    /did you mean 'prefix'/,
  ],
  ['drDrill', (t) => drill(t, { sqlCheck: sqlCheck(t, { query: ' \n\t ' }) }), 'sqlCheck.query', /must not be blank/],
  [
    'drDrill',
    (t) => drill(t, { sqlCheck: sqlCheck(t, { destination: {} }) }),
    'sqlCheck.destination',
    /name the bucket/,
  ],
  ['drDrill', (t) => drill(t, { resources: { ids: [t.resourceId], filters: {} } }), 'resources.filters', /not both/],
  ['drDrill', (t) => drill(t, { files: [{ path: '/', isDir: true }] }), 'files.0.isDir', /did you mean 'isDirectory'/],
  ['drDrill', (t) => drill(t, { targets: { rpoSeconds: 60, rtoSeconds: 60, rto: 5 } }), 'targets.rto', /unknown/],
  [
    'drDrill',
    (t) => drill(t, { resources: { ids: [t.resourceId, t.resourceId] } }),
    'resources.ids',
    /names a resource twice/,
  ],
  ['drDrill', (t) => drill(t, { resources: { filters: {}, maxResources: 6000 } }), 'resources.maxResources', /5000/],
  ['drDrill', (t) => drill(t, { resources: { ids: [] } }), 'resources.ids', /names no resource/],
  [
    'drDrill',
    (t) => drill(t, { resources: { ids: Array.from({ length: 5001 }, (_, i) => `${t.resourceId}-${i}`) } }),
    'resources.ids',
    /at most 5,000 resources in one drill/,
  ],
  ['drDrill', (t) => drill(t, { parallelism: 101 }), 'parallelism', /at most 100 resources are drilled at once/],
  [
    'drDrill',
    (t) => drill(t, { recoveryPoint: { select: 'newest' } }),
    'recoveryPoint.select',
    /unknown value 'newest' \(known values: latest, random, fresh, latest-clean\)/,
  ],
  [
    'drDrill',
    (t) => drill(t, { recoveryPoint: { select: 'fresh', windowDays: 5 } }),
    'recoveryPoint.windowDays',
    /'fresh' takes its own snapshot/,
  ],
  ['drDrill', (t) => drill(t, { recoveryPoint: { windowDays: 400 } }), 'recoveryPoint.windowDays', /365/],
  [
    'drDrill',
    (t) => drill(t, { recoveryPoint: { select: 'random' }, reuseRecentSnapshot: true }),
    'reuseRecentSnapshot',
    /applies to recoveryPoint.select 'fresh' only/,
  ],
  ['drDrill', (t) => drill(t, { validation: { windowHours: 200 } }), 'validation.windowHours', /168/],
  [
    'drDrill',
    (t) => drill(t, { validation: { windowHours: 1, notfy: 'ops' } }),
    'validation.notfy',
    /did you mean 'notify'/,
  ],
  ['costExport', () => ({ window: 'previous-day', options: { groupby: 'RESOURCE' } }), 'options.groupby', /groupBy/],
  [
    'costExport',
    () => ({ window: { startTime: DAY, endTime: '2026-11-01T01:00:00Z' } }),
    'window.endTime',
    /at least 24 hours/,
  ],
  ['costExport', () => ({ window: { startTime: NEXT_DAY, endTime: DAY } }), 'window.endTime', /after startTime/],
  [
    'costExport',
    () => ({ window: { startTime: DAY, endTime: NEXT_DAY, timeZone: 'UTC' } }),
    'window.timeZone',
    /unknown field/,
  ],
  [
    'costExport',
    () => ({ window: 'previous-day', options: { filters: { resourceTypes: { in: ['PA_VM'] } } } }),
    'options.filters.resourceTypes',
    /did you mean 'resourceType'/,
  ],
  [
    'costExport',
    () => ({ window: 'previous-day', options: { groupBy: 'CLOUD_PROVIDER', topN: 5 } }),
    'options.topN',
    /RESOURCE/,
  ],
  ['queryExport', (t) => queryExport(t, { destination: {} }), 'query.destination', /name the bucket/],
  ['queryExport', (t) => queryExport(t, { query: '   ' }), 'query.query', /must not be blank/],
  ['queryExport', (t) => queryExport(t, {}, { filename: 'x.csv' }), 'filename', /did you mean 'fileName'/],
  ['queryExport', (t) => queryExport(t, { limit: 10 }), 'query.limit', /unknown field/],
  ['approvalGatedRestore', (t) => restore(t, { destination: {} }), 'destination', /name a target/],
  [
    'approvalGatedRestore',
    (t) => restore(t, { files: [{ path: '/etc', isDirectory: true }] }),
    'files',
    /only a files restore/,
  ],
  [
    'approvalGatedRestore',
    (t) => restore(t, { destination: { storageAccount: { name: 'acct' } } }),
    'destination.storageAccount.container',
    /expected string/,
  ],
  ['approvalGatedRestore', (t) => restore(t, { comments: 'please' }), 'comments', /did you mean 'comment'/],
  ['offboardSourceAccount', () => ({ accountId: '   ' }), 'accountId', /must not be blank/],
  ['offboardSourceAccount', (t) => ({ accountId: t.accountId, force: true }), 'force', /unknown field/],
  ['rotateCredentials', (t) => ({ clientId: t.accountId }), 'input', /rotateCredentials takes no input/],
];

export interface HttpCase {
  name: string;
  method: 'POST';
  /** With `{project}`, `{resource}`, `{snapshot}` filled in. */
  path: string;
  body: (t: Targets) => unknown;
  /** The `{error}` text of the 400. */
  error: RegExp;
}

const fromPath = '/v1/projects/{project}/resources/{resource}';
const snapshotPath = `${fromPath}/snapshots/{snapshot}`;
const frame = (startTime: string, endTime: string) => ({ timeFrame: { startTime, endTime } });

/** The simulator's own HTTP, raw: each is a 400 naming the field, and nothing changes. */
export const HTTP_CASES: HttpCase[] = [
  {
    name: 'a one-hour cost window',
    method: 'POST',
    path: '/v1/cost-data',
    body: () => frame(DAY, '2026-11-01T01:00:00Z'),
    error: /timeFrame\.endTime.*24 hours/,
  },
  {
    name: 'a cost window in reverse',
    method: 'POST',
    path: '/v1/cost-data',
    body: () => frame(NEXT_DAY, DAY),
    error: /timeFrame\.endTime/,
  },
  {
    name: 'cost data pageSize=0',
    method: 'POST',
    path: '/v1/cost-data?pageSize=0',
    body: () => frame(DAY, NEXT_DAY),
    error: /pageSize/,
  },
  {
    name: 'cost data without a time frame',
    method: 'POST',
    path: '/v1/cost-data',
    body: () => ({}),
    error: /timeFrame/,
  },
  {
    name: 'an unknown granularity',
    method: 'POST',
    path: '/v1/cost-data',
    body: () => ({ ...frame(DAY, NEXT_DAY), granularity: 'WEEKLY' }),
    error: /granularity/,
  },
  {
    name: 'a snapshot without a vault',
    method: 'POST',
    path: `${fromPath}/take-snapshot`,
    body: () => ({ retentionDays: 7 }),
    error: /vaultId/,
  },
  {
    name: 'retention as a string',
    method: 'POST',
    path: `${fromPath}/take-snapshot`,
    body: (t) => ({ vaultId: t.vaultId, retentionDays: '7' }),
    error: /retentionDays/,
  },
  {
    name: 'a retention of 0 days',
    method: 'POST',
    path: `${fromPath}/take-snapshot`,
    body: (t) => ({ vaultId: t.vaultId, retentionDays: 0 }),
    error: /retentionDays/,
  },
  {
    name: 'a files restore of no files',
    method: 'POST',
    path: `${snapshotPath}/restore-files`,
    body: (t) => ({ destination: bucket, files: [], restoreAccountId: t.restoreAccountId }),
    error: /files/,
  },
  {
    name: 'a relative file path',
    method: 'POST',
    path: `${snapshotPath}/restore-files`,
    body: (t) => ({
      destination: bucket,
      files: [{ path: 'etc', isDirectory: true }],
      restoreAccountId: t.restoreAccountId,
    }),
    error: /files\.0\.path/,
  },
  {
    name: 'a files restore without a destination',
    method: 'POST',
    path: `${snapshotPath}/restore-files`,
    body: (t) => ({ files: [{ path: '/', isDirectory: true }], restoreAccountId: t.restoreAccountId }),
    error: /destination/,
  },
  {
    name: 'a bucket restore without a restore account',
    method: 'POST',
    path: `${snapshotPath}/restore-bucket`,
    body: () => ({ destination: bucket }),
    error: /restoreAccountId/,
  },
  {
    name: 'a query without a database',
    method: 'POST',
    path: '/v1/projects/{project}/snapshots/{snapshot}/databases/query',
    body: (t) => ({ query: 'SELECT 1', restoreAccountId: t.restoreAccountId, destination: {} }),
    error: /databaseName/,
  },
  {
    name: 'a query that is a number',
    method: 'POST',
    path: '/v1/projects/{project}/snapshots/{snapshot}/databases/query',
    body: (t) => ({ databaseName: t.databaseName, query: 42, restoreAccountId: t.restoreAccountId, destination: {} }),
    error: /query/,
  },
  {
    name: 'resources pageSize=0',
    method: 'POST',
    path: '/v1/projects/{project}/resources?pageSize=0',
    body: () => ({}),
    error: /pageSize/,
  },
  {
    name: 'an unknown resource type filter',
    method: 'POST',
    path: '/v1/projects/{project}/resources',
    body: () => ({ filters: { resourceType: { in: ['PA_MAINFRAME'] } } }),
    error: /filters\.resourceType\.in/,
  },
  // Misspelled keys: refused by name, never silently dropped.
  {
    name: 'a misspelled resource filter (resourceTypes)',
    method: 'POST',
    path: '/v1/projects/{project}/resources',
    body: () => ({ filters: { resourceTypes: { in: ['PA_VM'] } } }),
    error: /filters\.resourceTypes/,
  },
  {
    name: 'a misspelled retention (retentionDay)',
    method: 'POST',
    path: `${fromPath}/take-snapshot`,
    body: (t) => ({ vaultId: t.vaultId, retentionDays: 7, retentionDay: 30 }),
    error: /retentionDay\b/,
  },
  {
    name: 'a misspelled cost grouping (groupby)',
    method: 'POST',
    path: '/v1/cost-data',
    body: () => ({ ...frame(DAY, NEXT_DAY), groupby: 'RESOURCE' }),
    error: /groupby/,
  },
  {
    name: 'an unknown key in a bucket restore destination',
    method: 'POST',
    path: `${snapshotPath}/restore-bucket`,
    body: (t) => ({
      destination: { bucketA: { bucketName: 'restored', prefx: 'a/' } },
      restoreAccountId: t.restoreAccountId,
    }),
    error: /destination\.bucketA\.prefx/,
  },
  {
    name: 'a whitespace-only query',
    method: 'POST',
    path: '/v1/projects/{project}/snapshots/{snapshot}/databases/query',
    body: (t) => ({
      databaseName: t.databaseName,
      query: '   ',
      restoreAccountId: t.restoreAccountId,
      destination: { bucketA: { bucketName: 'exports' } },
    }),
    error: /query/,
  },
];
