// Paging through three pages with every listing, and decoding of what the client does not know: new enum values,
// new fields, and the public dialect of the action request.
import type { BackupServiceClient } from '../../api/client';
import type { z } from 'zod';
import { collect, pages } from '../../api/paging';
import * as s from '../../api/schemas';
import { bodies, PROJECT_ID, clientForSuite, parseJson, type RecordedRequest } from './helpers';

const { server, client } = clientForSuite();

const P = `/api/v1/projects/${PROJECT_ID}`;
// Opaque tokens with characters that must survive query encoding.
const SECOND = 'next/2 a+b=';
const THIRD = 'next:3&x';

type Ending = 'missing' | 'null' | 'empty';

interface ListingCase {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  /** The body every page must carry (undefined: no body). */
  body: unknown;
  /** Query parameters every page must carry besides the paging ones. */
  extra?: Record<string, string>;
  /** The page bodies, without their nextToken. */
  pages: [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>];
  iterate: (c: BackupServiceClient, pageSize: number) => AsyncIterable<unknown>;
  /** What the iterator yields, given the page bodies the server sent. */
  expected: (sent: Record<string, unknown>[]) => unknown[];
  /** Whether a page may leave out nextToken. */
  tokenOptional: boolean;
}

function itemsUnder(key: string) {
  return (sent: Record<string, unknown>[]) => sent.flatMap((p) => p[key] as unknown[]);
}
const wholePages = (sent: Record<string, unknown>[]) => sent;

/**
 * A POST listing of three pages holding one item each under `key` (IDs: the key's first letter and the page number),
 * whose iterator yields those items.
 */
function itemListing(
  name: string,
  path: string,
  body: unknown,
  key: string,
  item: (id: string) => unknown,
  iterate: (c: BackupServiceClient, page: { pageSize: number }) => AsyncIterable<unknown>,
): ListingCase {
  const page = (n: number) => ({ [key]: [item(`${key[0]}${n}`)] });
  return {
    name,
    method: 'POST',
    path,
    body,
    pages: [page(1), page(2), page(3)],
    iterate: (c, pageSize) => iterate(c, { pageSize }),
    expected: itemsUnder(key),
    tokenOptional: true,
  };
}

const resourceFilter: s.ResourceListInput = {
  filters: { resourceType: { in: ['PA_KEYVALUE_DB', 'PA_VM'] }, environment: { in: ['PROD'] } },
  sorts: [{ field: 'createdTime', order: 'DESC' }],
};
const accountFilter: s.AccountListInput = {
  filters: { cloudProvider: { notIn: ['PROVIDER_D'] } },
  sorts: [{ field: 'connectedTime', order: 'ASC' }],
};
/** Source and restore accounts list alike: with the account filter, their items under `accounts`. */
function accountListing(
  name: string,
  path: string,
  item: (id: string) => unknown,
  iterate: Parameters<typeof itemListing>[5],
): ListingCase {
  return itemListing(name, path, accountFilter, 'accounts', item, iterate);
}
const jobFilter: s.JobListInput = {
  filters: { snapshotId: { in: ['snap-1'] } },
  sorts: [{ field: 'endTime', order: 'ASC' }],
};
const snapshotFilter: s.SnapshotListInput = {
  filters: { pointInTime: { startDate: '2025-01-01' } },
  sorts: [{ field: 'pointInTime', order: 'ASC' }],
};

// Roles, IdPs, IdP groups and vaults list with no request body: the public API declares none.
const listings: ListingCase[] = [
  {
    name: 'listRoles',
    method: 'POST',
    path: '/api/v1/roles/list',
    body: undefined,
    pages: [
      { roles: [bodies.role('r1')] },
      { roles: [bodies.role('r2'), bodies.role('r3')] },
      { roles: [bodies.role('r4')] },
    ],
    iterate: (c, pageSize) => c.listRoles({ pageSize }),
    expected: itemsUnder('roles'),
    tokenOptional: true,
  },
  {
    name: 'listIdps',
    method: 'POST',
    path: '/api/v1/idps/list',
    body: undefined,
    pages: [{ idps: [bodies.idp('i1')] }, { idps: [bodies.idp('i2')] }, { idps: [] }],
    iterate: (c, pageSize) => c.listIdps({ pageSize }),
    expected: itemsUnder('idps'),
    tokenOptional: true,
  },
  itemListing('listIdpGroups', '/api/v1/idp-groups/list', undefined, 'groups', bodies.idpGroup, (c, page) =>
    c.listIdpGroups(page),
  ),
  accountListing('listSourceAccounts', `${P}/source-accounts/list`, bodies.sourceAccount, (c, page) =>
    c.listSourceAccounts(accountFilter, page),
  ),
  itemListing('listVaults', `${P}/vaults/list`, undefined, 'vaults', bodies.vault, (c, page) => c.listVaults(page)),
  {
    ...itemListing(
      'listResources (include=DYNAMODB_INDEXES)',
      `${P}/resources`,
      resourceFilter,
      'resources',
      bodies.resource,
      (c, page) => c.listResources(resourceFilter, { ...page, include: ['DYNAMODB_INDEXES'] }),
    ),
    extra: { include: 'DYNAMODB_INDEXES' },
  },
  itemListing(
    'listSnapshots',
    `${P}/resources/res-1/snapshots`,
    snapshotFilter,
    'snapshots',
    bodies.snapshot,
    (c, page) => c.listSnapshots('res-1', snapshotFilter, page),
  ),
  itemListing('listBackupJobs', `${P}/backup-jobs`, jobFilter, 'jobs', bodies.backupJob, (c, page) =>
    c.listBackupJobs(jobFilter, page),
  ),
  itemListing('listRestoreJobs', `${P}/restore-jobs`, jobFilter, 'jobs', bodies.restoreJob, (c, page) =>
    c.listRestoreJobs(jobFilter, page),
  ),
  accountListing('listRestoreAccounts', `${P}/restore-accounts/list`, bodies.restoreAccount, (c, page) =>
    c.listRestoreAccounts(accountFilter, page),
  ),
  {
    name: 'queryResultPages',
    method: 'GET',
    path: `${P}/queries/q-1%3Aq-2/results`,
    body: undefined,
    pages: [
      { columns: ['a'], records: [['1']] },
      { columns: ['a'], records: [['2']] },
      { columns: ['a'], records: [['3']] },
    ],
    iterate: (c, pageSize) => c.queryResultPages('q-1:q-2', { pageSize }),
    expected: wholePages,
    // Every page carries nextToken, null on the last (docs/service-interface.md §8).
    tokenOptional: false,
  },
  {
    name: 'costDataPages',
    method: 'POST',
    path: '/api/v1/cost-data',
    body: bodies.costInput(),
    pages: [
      { records: [bodies.costRecord('r1')], totalCount: 3 },
      { records: [bodies.costRecord('r2')], totalCount: 3 },
      { records: [bodies.costRecord('r3')], totalCount: 3 },
    ],
    iterate: (c, pageSize) => c.costDataPages(bodies.costInput(), { pageSize }),
    expected: wholePages,
    tokenOptional: true,
  },
];

const runs = listings.flatMap((c) =>
  (['missing', 'null', 'empty'] as Ending[])
    .filter((e) => e !== 'missing' || c.tokenOptional)
    .map((e) => ({ ...c, ending: e })),
);

function lastPage(body: Record<string, unknown>, ending: Ending): Record<string, unknown> {
  if (ending === 'missing') return body;
  return { ...body, nextToken: ending === 'null' ? null : '' };
}

test.each(runs)('$name pages through three pages (last token $ending)', async (c) => {
  const sent: Record<string, unknown>[] = [
    { ...c.pages[0], nextToken: SECOND },
    { ...c.pages[1], nextToken: THIRD },
    lastPage(c.pages[2], c.ending),
  ];
  server.handler = (req: RecordedRequest) => {
    const token = req.query.get('pageToken');
    const page = token === null ? sent[0] : token === SECOND ? sent[1] : token === THIRD ? sent[2] : undefined;
    return page ? { status: 200, json: page } : { status: 400, json: { error: `unknown token ${token}` } };
  };

  const items = await collect(c.iterate(client(), 2));

  expect(items).toEqual(c.expected(sent));
  const reqs = server.apiRequests;
  expect(reqs).toHaveLength(3);
  expect(reqs.map((r) => r.query.get('pageToken'))).toEqual([null, SECOND, THIRD]);
  for (const req of reqs) {
    expect(`${req.method} ${req.path}`).toBe(`${c.method} ${c.path}`);
    expect(req.query.get('pageSize')).toBe('2');
    for (const [key, value] of Object.entries(c.extra ?? {})) expect(req.query.getAll(key)).toEqual([value]);
    expect([...req.query.keys()].sort()).toEqual(
      ['pageSize', ...(req === reqs[0] ? [] : ['pageToken']), ...Object.keys(c.extra ?? {})].sort(),
    );
    expect(req.headers.authorization).toBe(`Bearer ${server.lastToken}`);
    if (c.body === undefined) expect([req.body, req.headers['content-type']]).toEqual(['', undefined]);
    else expect(parseJson(req.body)).toEqual(c.body);
  }
  // The same filters and sorts, byte for byte, on every page.
  expect(new Set(reqs.map((r) => r.body)).size).toBe(1);
});

test('a starting pageToken is sent on the first request', async () => {
  server.reply(200, { roles: [bodies.role()] });
  await collect(client().listRoles({ pageToken: 'resume-here', pageSize: 7 }));
  expect(server.lastApi().url).toBe('/api/v1/roles/list?pageSize=7&pageToken=resume-here');
});

test('iteration is lazy: stopping after the first item asks for one page only', async () => {
  server.reply(200, { roles: [bodies.role('r1'), bodies.role('r2')], nextToken: 'more' });
  for await (const r of client().listRoles()) {
    expect(r.id).toBe('r1');
    break;
  }
  expect(server.apiRequests).toHaveLength(1);
});

test('a failing page ends the iteration with its error', async () => {
  server.handler = (req) =>
    req.query.get('pageToken') === null
      ? { status: 200, json: { vaults: [bodies.vault()], nextToken: 'n2' } }
      : { status: 503, json: { error: 'down' } };
  await expect(collect(client().listVaults())).rejects.toMatchObject({ code: 'SERVER_ERROR', status: 503 });
  expect(server.apiRequests).toHaveLength(2);
});

test('pages() stops on a missing, null or empty token', async () => {
  for (const last of [{}, { nextToken: null }, { nextToken: '' }]) {
    const seen: (string | undefined)[] = [];
    const all = await collect(
      pages<{ n: number; nextToken?: string | null }>(async ({ pageToken }) => {
        seen.push(pageToken);
        return pageToken === undefined ? { n: 1, nextToken: 'b' } : { n: 2, ...last };
      }),
    );
    expect(all.map((p) => p.n)).toEqual([1, 2]);
    expect(seen).toEqual([undefined, 'b']);
  }
});

describe('decoding what the client does not know', () => {
  test('a resource with unknown enum values and unknown fields keeps them all', async () => {
    const body = {
      ...bodies.resource(),
      resourceType: 'PE_QUANTUM_DB',
      cloudProvider: 'AWS',
      backupStatus: 'QUARANTINED',
      futureField: { x: 1 },
      classifications: { environmentDetails: { environment: 'DEV', isOverridden: false, source: 'ml' } },
      resourceProperties: {
        vmB: { disks: 3 },
        kvDbA: { ...bodies.resource().resourceProperties?.kvDbA, tableClass: 'IA' },
      },
    };
    server.reply(200, { resource: body, requestId: 'abc' });
    const result = await client().getResource('res-1');

    expect(result).toEqual(body);
    expect(result.resourceType).toBe('PE_QUANTUM_DB');
    expect(result.cloudProvider).toBe('AWS');
    expect(result.futureField).toEqual({ x: 1 });
  });

  test('a listing page keeps unknown items fields and enum values', async () => {
    const odd = { ...bodies.resource('r9'), resourceType: 'PE_QUANTUM_DB', futureField: { x: 1 } };
    server.reply(200, { resources: [odd], totalCount: 1, nextToken: null, facets: { byType: {} } });
    const page = await client().listResourcesPage();
    expect(page.resources).toEqual([odd]);
    expect(page.facets).toEqual({ byType: {} });
  });

  test.each(['JOB_ARCHIVED', 'JOB_CANCELLED'])('a job with status %s decodes and keeps it', async (status) => {
    const job = { ...bodies.backupJob('job-1', status), futureField: { x: 1 } };
    job.jobExecutionDetails = { ...job.jobExecutionDetails, errorCode: 'QUANTUM_DECOHERENCE' };
    server.reply(200, { job });
    const result = await client().getBackupJob('job-1');
    expect(result).toEqual(job);
    expect(result.jobExecutionDetails.status).toBe(status);
  });

  test('a restore job with an unknown provider and result decodes', async () => {
    const job = bodies.restoreJob('job-2', 'JOB_ARCHIVED');
    job.destinationDetails = { ...job.destinationDetails, cloudProvider: 'GCP', restoreResult: { bucket: 'x' } };
    server.reply(200, { job });
    await expect(client().getRestoreJob('job-2')).resolves.toEqual(job);
  });

  test('a vault on provider AWS and a source account in an unknown status decode', async () => {
    const v = { ...bodies.vault(), vaultAttributes: { cloudProvider: 'AWS', providerX: { k: 1 } } };
    server.reply(200, { vault: v });
    await expect(client().getVault('vault-1')).resolves.toEqual(v);

    const a = { ...bodies.sourceAccount('acc-1', 'SUSPENDED'), sourceAccountAttributes: { cloudProvider: 'AZURE' } };
    server.reply(200, { sourceAccount: a });
    await expect(client().getSourceAccount('acc-1')).resolves.toEqual(a);
  });

  test('cost records with unknown dimensions and units decode', async () => {
    const record = bodies.costRecord();
    record.costs = [
      {
        meteringDimension: 'PE_QUANTUM_METERING_DIMENSION',
        cost: { amount: 1, unit: 'EUR' },
        usage: { amount: 2, unit: 'QUBITS' },
      },
    ];
    server.reply(200, { records: [record], totalCount: 1 });
    await expect(client().getCostDataPage(bodies.costInput())).resolves.toEqual({ records: [record], totalCount: 1 });
  });

  test('a query status outside the enum decodes', async () => {
    server.reply(200, { status: 'QUEUED', errorMessage: null, futureField: { x: 1 } });
    await expect(client().getQueryStatus('q-1')).resolves.toEqual({
      status: 'QUEUED',
      errorMessage: null,
      futureField: { x: 1 },
    });
  });

  test('an action request in an unknown status and operation decodes', async () => {
    const request = {
      ...bodies.mpaRequest('req-1', 'ESCALATED'),
      operation: 'MPA_OPERATION_DELETE_VAULT',
      futureField: { x: 1 },
    };
    server.reply(200, request);
    await expect(client().getActionRequest('req-1')).resolves.toEqual(request);
  });
});

describe('action requests in both dialects', () => {
  test('the public dialect {mpaRequestDetail: {request, reviews}} is unwrapped', async () => {
    const request = { ...bodies.mpaRequest('req-1', 'APPROVED'), futureField: { x: 1 } };
    server.reply(200, {
      mpaRequestDetail: {
        request,
        reviews: [bodies.mpaReview(), { ...bodies.mpaReview('rev-2'), decision: 'ABSTAINED' }],
      },
    });
    await expect(client().getActionRequest('req-1')).resolves.toEqual(request);
  });

  test('the public dialect without reviews is unwrapped', async () => {
    server.reply(200, { mpaRequestDetail: { request: bodies.mpaRequest('req-1', 'PENDING_APPROVAL') } });
    await expect(client().getActionRequest('req-1')).resolves.toEqual(bodies.mpaRequest('req-1', 'PENDING_APPROVAL'));
  });

  test('the bare MPARequest is returned as it is', async () => {
    server.reply(200, bodies.mpaRequest('req-1', 'EXECUTED'));
    await expect(client().getActionRequest('req-1')).resolves.toEqual(bodies.mpaRequest('req-1', 'EXECUTED'));
  });

  test('a body that is neither is an InvalidResponseError', async () => {
    server.reply(200, { mpaRequestDetail: { reviews: [] } });
    await expect(client().getActionRequest('req-1')).rejects.toMatchObject({ code: 'INVALID_RESPONSE' });
  });
});

describe('query results decoding', () => {
  test('rows of strings pass as they are, with unknown fields kept', async () => {
    const page = {
      columns: ['a', 'b'],
      records: [
        ['1', ''],
        ['2', 'x,y'],
      ],
      nextToken: null,
      extra: 1,
    };
    server.reply(200, page);
    await expect(client().getQueryResultsPage('q-1')).resolves.toEqual(page);
  });

  test.each([
    ['a row that is not a list', ['1']],
    ['a value that is not a string', [['1', 2]]],
    ['a null value', [[null]]],
    ['records that are not a list', { 0: ['1'] }],
  ])('%s is an InvalidResponseError naming records', async (_name, records) => {
    server.reply(200, { columns: ['a'], records, nextToken: null });
    const failure = client().getQueryResultsPage('q-1');
    await expect(failure).rejects.toMatchObject({ code: 'INVALID_RESPONSE' });
    await expect(failure).rejects.toThrow(/records/);
  });
});

describe('the results token read ahead', () => {
  test('a body ending in its nextToken announces it before parsing; one ending otherwise announces nothing', async () => {
    const heard: (string | null)[] = [];
    server.reply(200, { columns: ['a'], records: [['1']], nextToken: 'n/2' });
    const page = await client().getQueryResultsPage('q-1', {}, (token) => heard.push(token));
    expect(heard).toEqual([page.nextToken]);
    server.reply(200, { columns: ['a'], records: [], nextToken: null });
    await client().getQueryResultsPage('q-1', {}, (token) => heard.push(token));
    expect(heard).toEqual(['n/2', null]);
    server.reply(200, { nextToken: 'first', columns: ['a'], records: [] });
    await client().getQueryResultsPage('q-1', {}, (token) => heard.push(token));
    expect(heard).toHaveLength(2);
  });
});

describe('fixtures satisfy the schemas', () => {
  const fixtures: [string, z.ZodType, unknown][] = [
    ['ApiCredentials', s.ApiCredentials, bodies.apiCredentials()],
    ['Permission', s.Permission, bodies.permission()],
    ['Role', s.Role, bodies.role()],
    ['IdentityProvider', s.IdentityProvider, bodies.idp()],
    ['IdpGroup', s.IdpGroup, bodies.idpGroup()],
    ['MpaRequest', s.MpaRequest, bodies.mpaRequest()],
    ['MpaReview', s.MpaReview, bodies.mpaReview()],
    ['SourceAccount', s.SourceAccount, bodies.sourceAccount()],
    ['RestoreAccount', s.RestoreAccount, bodies.restoreAccount()],
    ['Vault', s.Vault, bodies.vault()],
    ['InventoryResource', s.InventoryResource, bodies.resource()],
    ['Snapshot', s.Snapshot, bodies.snapshot()],
    ['BackupJob', s.BackupJob, bodies.backupJob()],
    ['RestoreJob', s.RestoreJob, bodies.restoreJob()],
    ['QueryResults', s.QueryResults, bodies.queryResults()],
    ['CostDataRecord', s.CostDataRecord, bodies.costRecord()],
    ['CostDataInput', s.CostDataInput, bodies.costInput()],
  ];
  test.each(fixtures)('%s', (_name, schema, value) => {
    expect(schema.parse(value)).toEqual(value);
  });
});
