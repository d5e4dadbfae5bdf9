// The client speaks one dialect on the wire, whatever dialect (or concept names) its inputs use: against a local
// service answering as the public document does, every body carries public tokens only; against one speaking the
// neutral vocabulary, neutral ones only. With `auto` it tells the dialect from the token answer or a first listing.
import type { BackupServiceClient } from '../../api/client';
import type { Dialect, DialectSetting } from '../../api/dialect';
import { InvalidArgumentError } from '../../api/errors';
import { makeClient, recordingServerForSuite, type RecordedRequest } from './helpers';
import {
  NEUTRAL_TOKEN,
  P,
  neutralHandler,
  publicService,
  structuredExpression,
  tokensOnlyOf,
  wordsOf,
} from './dialect-services';

const server = recordingServerForSuite();

/** Inputs may name tokens in either dialect, or by concept. */
type Naming = 'neutral' | 'public' | 'concept';
const NAMES = {
  neutral: { aws: 'PROVIDER_A', gcp: 'PROVIDER_C', awsMember: 'providerA', gcpMember: 'providerC' },
  public: { aws: 'AWS', gcp: 'GCP', awsMember: 'aws', gcpMember: 'gcp' },
  concept: { aws: 'amazonWebServices', gcp: 'googleCloud', awsMember: 'amazonWebServices', gcpMember: 'googleCloud' },
};
const TYPES = { neutral: ['PA_RELATIONAL_DB', 'PA_OBJECT_STORE'], public: ['AWS_RDS', 'AWS_S3'] };
const BUCKETS = {
  neutral: { amazon: 'bucketA', google: 'bucketC', azure: 'storageAccount' },
  public: { amazon: 's3Bucket', google: 'gcsBucket', azure: 'storageAccount' },
  concept: { amazon: 'amazonBucket', google: 'googleBucket', azure: 'azureBlobContainer' },
};
const DAY = { startTime: '2025-02-01T00:00:00Z', endTime: '2025-02-02T00:00:00Z' };

/** Inputs built from untyped names: the client's types name the neutral vocabulary. */
const as = <T>(value: unknown) => value as T;

/** Every call whose body holds a dialect's tokens, with inputs named one way. */
async function callsWithTokens(c: BackupServiceClient, naming: Naming, wire: Dialect): Promise<void> {
  const n = NAMES[naming];
  const [rds, s3] = naming === 'neutral' ? TYPES.neutral : TYPES.public;
  const b = BUCKETS[naming];
  const nameSort = naming === 'public' ? 'accountName' : 'name';
  await c.listResourcesPage(
    as({ filters: { cloudProvider: { in: [n.aws] }, resourceType: { in: [rds], notIn: [s3] } } }),
  );
  await c.getCostDataPage(
    as({ timeFrame: DAY, filters: { cloudProvider: { notIn: [n.gcp] }, resourceType: { in: [rds] } } }),
  );
  const accounts = { filters: { cloudProvider: { in: [n.aws] } }, sorts: [{ field: nameSort, order: 'ASC' }] };
  await c.listSourceAccountsPage(as(accounts));
  await c.listRestoreAccountsPage(as(accounts));
  const roleArn = 'arn:aws:iam::123456789012:role/eon';
  await c.connectSourceAccount(
    as({ name: 'Prod', sourceAccountAttributes: { cloudProvider: n.aws, [n.awsMember]: { roleArn } } }),
  );
  // The public update names no cloudProvider: the member says which.
  const update = {
    [n.gcpMember]: { serviceAccount: 'sa@p.iam' },
    ...(naming === 'public' ? {} : { cloudProvider: n.gcp }),
  };
  await c.updateSourceAccount('acc-1', as({ name: 'Renamed', sourceAccountAttributes: update }));
  await c.createVault(
    as({
      name: 'v',
      region: 'us-east-1',
      vaultAttributes: { cloudProvider: n.aws, [n.awsMember]: { encryptionKey: 'k' } },
    }),
  );
  const restoreAccountId = 'ra-1';
  await c.restoreBucket(
    'res-1',
    'snap-1',
    as({ destination: { [b.amazon]: { bucketName: 'out', prefix: 'd/' } }, restoreAccountId }),
  );
  await c.restoreBucket(
    'res-1',
    'snap-1',
    as({ destination: { [b.azure]: { name: 'sa', container: 'c' } }, restoreAccountId }),
  );
  const files = [{ path: '/etc', isDirectory: true }];
  await c.restoreFiles(
    'res-1',
    'snap-1',
    as({ destination: { [b.google]: { bucketName: 'out' } }, files, restoreAccountId }),
  );
  const query = {
    databaseName: 'orders',
    query: 'SELECT 1',
    restoreAccountId,
    destination: { [b.amazon]: { bucketName: 'q' } },
  };
  await c.runQuery('snap-1', as(query));
  const expression = wire === 'public' ? structuredExpression : 'resource.environment == "PROD"';
  await c.createRole(
    as({
      name: 'r',
      permissionGrants: [{ permission: 'jobs.view', accessConditionId: 'c1' }],
      accessConditions: [{ id: 'c1', effect: 'INCLUSIVE', expression }],
    }),
  );
}

const bodyOf = (req: RecordedRequest | undefined) =>
  req?.body ? (JSON.parse(req.body) as Record<string, unknown>) : {};
const sent = (path: string, method = 'POST') =>
  server.apiRequests.filter((r) => r.method === method && r.path === path);

describe.each<[DialectSetting, Naming]>([
  ['public', 'neutral'],
  ['public', 'public'],
  ['public', 'concept'],
  ['auto', 'neutral'],
  ['auto', 'concept'],
])('a public wire (dialect %s), inputs named by %s', (dialect, naming) => {
  test('every body carries public tokens only, in the public shapes', async () => {
    publicService(server);
    const detected: [Dialect, string][] = [];
    const client = makeClient(server, { dialect, onDialect: (d, how) => detected.push([d, how]) });
    await callsWithTokens(client, naming, 'public');

    expect(detected).toEqual([['public', dialect === 'auto' ? 'from the token answer' : 'configured']]);
    const neutralOnly = tokensOnlyOf('neutral');
    for (const req of server.apiRequests) {
      expect(wordsOf(req.body).filter((w) => neutralOnly.has(w))).toEqual([]);
      expect(req.body).not.toMatch(NEUTRAL_TOKEN);
    }
    // No listing was needed to tell the dialect: the token answer told.
    expect(server.apiRequests).toHaveLength(12);
    expect(bodyOf(sent(`${P}/resources`)[0]).filters).toEqual({
      cloudProvider: { in: ['AWS'] },
      resourceType: { in: ['AWS_RDS'], notIn: ['AWS_S3'] },
    });
    expect(bodyOf(sent(`${P}/source-accounts/list`)[0]).sorts).toEqual([{ field: 'accountName', order: 'ASC' }]);
    expect(bodyOf(sent(`${P}/source-accounts`)[0]).sourceAccountAttributes).toEqual({
      cloudProvider: 'AWS',
      aws: { roleArn: 'arn:aws:iam::123456789012:role/eon' },
    });
    expect(bodyOf(sent(`${P}/source-accounts/acc-1`, 'PATCH')[0])).toEqual({
      name: 'Renamed',
      sourceAccountAttributes: { gcp: { serviceAccount: 'sa@p.iam' } },
    });
    expect(bodyOf(sent(`${P}/vaults`)[0]).vaultAttributes).toEqual({
      cloudProvider: 'AWS',
      aws: { encryptionKey: 'k' },
    });
    const restores = sent(`${P}/resources/res-1/snapshots/snap-1/restore-bucket`).map((r) => bodyOf(r).destination);
    expect(restores).toEqual([
      { s3Bucket: { bucketName: 'out', prefix: 'd/' } },
      { storageAccount: { name: 'sa', container: 'c' } },
    ]);
    expect(bodyOf(sent(`${P}/resources/res-1/snapshots/snap-1/restore-files`)[0]).destination).toEqual({
      gcsBucket: { bucketName: 'out' },
    });
    expect(bodyOf(sent(`${P}/snapshots/snap-1/databases/query`)[0]).destination).toEqual({
      s3Bucket: { bucketName: 'q' },
    });
    expect(bodyOf(sent('/api/v1/roles')[0]).accessConditions).toEqual([
      { id: 'c1', effect: 'INCLUSIVE', expression: structuredExpression },
    ]);
  });
});

describe.each<Naming>(['public', 'concept', 'neutral'])('a neutral wire, inputs named by %s', (naming) => {
  test('every body carries neutral tokens only, in the neutral shapes', async () => {
    server.handler = neutralHandler;
    const detected: [Dialect, string][] = [];
    const client = makeClient(server, { onDialect: (d, how) => detected.push([d, how]) });
    await callsWithTokens(client, naming, 'neutral');

    expect(detected).toEqual([['neutral', 'from the token answer']]);
    const publicOnly = tokensOnlyOf('public');
    for (const req of server.apiRequests) expect(wordsOf(req.body).filter((w) => publicOnly.has(w))).toEqual([]);
    expect(server.apiRequests).toHaveLength(12);
    expect(bodyOf(sent(`${P}/resources`)[0]).filters).toEqual({
      cloudProvider: { in: ['PROVIDER_A'] },
      resourceType: { in: ['PA_RELATIONAL_DB'], notIn: ['PA_OBJECT_STORE'] },
    });
    expect(bodyOf(sent(`${P}/restore-accounts/list`)[0]).sorts).toEqual([{ field: 'name', order: 'ASC' }]);
    expect(bodyOf(sent(`${P}/source-accounts/acc-1`, 'PATCH')[0]).sourceAccountAttributes).toEqual({
      cloudProvider: 'PROVIDER_C',
      providerC: { serviceAccount: 'sa@p.iam' },
    });
    expect(bodyOf(sent(`${P}/resources/res-1/snapshots/snap-1/restore-files`)[0]).destination).toEqual({
      bucketC: { bucketName: 'out' },
    });
    expect(bodyOf(sent(`${P}/snapshots/snap-1/databases/query`)[0]).destination).toEqual({
      bucketA: { bucketName: 'q' },
    });
  });
});

// What the wire's dialect cannot say is refused before it is sent, naming the member as the caller gave it.
interface Refusal {
  name: string;
  dialect: DialectSetting;
  call: (c: BackupServiceClient) => Promise<unknown>;
  field: string;
  /** Words the message must contain, and must not (a translated name). */
  says: RegExp;
  never?: RegExp;
}

const restoreAccountId = 'ra-1';
const refusals: Refusal[] = [
  ...(['public', 'auto', 'neutral'] as const).flatMap((dialect): Refusal[] => [
    {
      name: 'a query to a Google bucket (gcsBucket): a query destination names only an Amazon bucket',
      dialect,
      call: (c) =>
        c.runQuery(
          'snap-1',
          as({
            databaseName: 'd',
            query: 'SELECT 1',
            restoreAccountId,
            destination: { gcsBucket: { bucketName: 'b' } },
          }),
        ),
      field: 'query.destination.gcsBucket',
      says: /only to amazonBucket/,
      never: /bucketC|googleBucket/,
    },
    {
      name: 'a query to a Google bucket named by concept',
      dialect,
      call: (c) =>
        c.runQuery(
          'snap-1',
          as({
            databaseName: 'd',
            query: 'SELECT 1',
            restoreAccountId,
            destination: { googleBucket: { bucketName: 'b' } },
          }),
        ),
      field: 'query.destination.googleBucket',
      says: /only to/,
      never: /bucketC|gcsBucket/,
    },
    {
      name: 'a bad field inside a public destination is named as given',
      dialect,
      call: (c) => c.restoreBucket('r', 's', as({ destination: { s3Bucket: { bucketName: '' } }, restoreAccountId })),
      field: 'restore.destination.s3Bucket.bucketName',
      says: /s3Bucket/,
      never: /bucketA/,
    },
    {
      name: 'a destination member neither dialect names',
      dialect,
      call: (c) =>
        c.restoreFiles(
          'r',
          's',
          as({
            destination: { azureBucket: { bucketName: 'b' } },
            files: [{ path: '/a', isDirectory: false }],
            restoreAccountId,
          }),
        ),
      field: 'restore.destination.azureBucket',
      says: /unrecognized key/,
    },
  ]),
  {
    name: 'a source-account sort the public dialect does not pair (connectedTime)',
    dialect: 'public',
    call: (c) => c.listSourceAccountsPage({ sorts: [{ field: 'connectedTime', order: 'ASC' }] }),
    field: 'list.sorts.0.field',
    says: /connectedTime has no counterpart in the public dialect; sort source accounts by accountName, installedVersion, parentIdentifier, createdAt/,
  },
  {
    name: 'a restore-account sort the public dialect has only for source accounts (parentIdentifier)',
    dialect: 'public',
    call: (c) => c.listRestoreAccountsPage(as({ sorts: [{ field: 'parentIdentifier', order: 'ASC' }] })),
    field: 'list.sorts.0.field',
    says: /parentIdentifier has no counterpart/,
  },
  {
    name: 'a public-only sort on a neutral wire (installedVersion)',
    dialect: 'neutral',
    call: (c) => c.listSourceAccountsPage(as({ sorts: [{ field: 'installedVersion', order: 'DESC' }] })),
    field: 'list.sorts.0.field',
    says: /installedVersion has no counterpart in the neutral dialect/,
  },
  {
    name: 'an Azure update on a public wire (its update names aws and gcp only)',
    dialect: 'public',
    call: (c) =>
      c.updateSourceAccount(
        'acc-1',
        as({ sourceAccountAttributes: { azure: { tenantId: 't', subscriptionId: 's' } } }),
      ),
    field: 'account.sourceAccountAttributes.azure',
    says: /only the aws or gcp attributes/,
  },
  {
    name: 'a string expression on a public wire',
    dialect: 'public',
    call: (c) =>
      c.createRole({
        name: 'r',
        permissionGrants: [{ permission: 'jobs.view' }],
        accessConditions: [{ id: 'c', effect: 'INCLUSIVE', expression: 'x == 1' }],
      }),
    field: 'role.accessConditions.0.expression',
    says: /structured expression/,
  },
  {
    name: 'a structured expression on a neutral wire',
    dialect: 'neutral',
    call: (c) =>
      c.createRole({
        name: 'r',
        permissionGrants: [{ permission: 'jobs.view' }],
        accessConditions: [{ id: 'c', effect: 'INCLUSIVE', expression: structuredExpression }],
      }),
    field: 'role.accessConditions.0.expression',
    says: /as a string/,
  },
  {
    name: 'a misspelt attribute in a structured expression',
    dialect: 'public',
    call: (c) =>
      c.updateRole(
        'role-1',
        as({
          name: 'r',
          permissionGrants: [{ permission: 'jobs.view' }],
          accessConditions: [{ id: 'c', effect: 'INCLUSIVE', expression: { resourceTypes: { operator: 'IN' } } }],
        }),
      ),
    field: 'role.accessConditions.0.expression.resourceTypes',
    says: /unrecognized key/,
  },
  {
    name: 'a public-only resource type on a neutral wire (GCP_DISK)',
    dialect: 'neutral',
    call: (c) => c.listResourcesPage(as({ filters: { resourceType: { in: ['GCP_DISK'] } } })),
    field: 'list.filters.resourceType.in.0',
    says: /Invalid option/,
  },
];

test.each(refusals)('$name ($dialect) → InvalidArgumentError($field), nothing sent', async (r) => {
  publicService(server);
  const err = await r.call(makeClient(server, { dialect: r.dialect })).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InvalidArgumentError);
  expect(err).toMatchObject({ field: r.field });
  expect((err as Error).message).toMatch(r.says);
  if (r.never) expect((err as Error).message).not.toMatch(r.never);
  expect(server.requests).toHaveLength(0);
});

test('on a public wire a provider or resource type no table knows is sent as it is (enums stay open)', async () => {
  publicService(server);
  const types = ['AWS_REDSHIFT', 'GCP_DISK', 'AWS_RDS'];
  await makeClient(server, { dialect: 'public' }).listResourcesPage({
    filters: { resourceType: { in: as(types) }, cloudProvider: { in: as(['ORACLE_CLOUD', 'PROVIDER_B']) } },
  });
  expect(bodyOf(server.lastApi()).filters).toEqual({
    resourceType: { in: types },
    cloudProvider: { in: ['ORACLE_CLOUD', 'AZURE'] },
  });
});
