// The public dialect's shapes beyond its vocabulary (docs/service-interface.md §11), over raw HTTP: structured
// access-condition expressions, account sort fields, the source-account update body, and filters on public values.
import { METERING_DIMENSIONS } from '../../api/enums';
import { publicMeteringDimension } from '../../simulator/public-tokens';
import { bodyOf, errorOf, publicDialectSuite, stateOf, type Json, type Reply } from './helpers';

const { suite, api, project, state } = publicDialectSuite();

const refused = (reply: Reply, message: RegExp) => {
  expect(reply.status).toBe(400);
  expect(errorOf(reply)).toMatch(message);
};

describe('access-condition expressions are trees', () => {
  const expression = {
    group: {
      operator: 'AND',
      operands: [
        { cloudProvider: { operator: 'IN', cloudProviders: ['AWS', 'GCP'] } },
        {
          group: {
            operator: 'OR',
            operands: [
              { resourceType: { operator: 'IN', resourceTypes: ['AWS_RDS'] } },
              { environment: { operator: 'IN', environments: ['PROD'] } },
            ],
          },
        },
      ],
    },
  };
  const role = (name: string, expr: unknown) => ({
    name,
    permissionGrants: [{ permission: 'inventory.view', accessConditionId: 'c1' }],
    accessConditions: [{ id: 'c1', effect: 'INCLUSIVE', expression: expr }],
  });
  const expressionOf = (body: Json) => ((body.role as Json).accessConditions as Json[])[0]?.expression;

  test('a role is created and read back with its tree; the state keeps it as text in neutral tokens', async () => {
    const created = bodyOf(await api('POST', '/v1/roles', { body: role('tree', expression) }), 201);
    expect(expressionOf(created)).toEqual(expression);
    const id = String((created.role as Json).id);
    expect(expressionOf(bodyOf(await api('GET', `/v1/roles/${id}`)))).toEqual(expression);
    const kept = state().roles[id]?.accessConditions?.[0]?.expression;
    const stored = typeof kept === 'string' ? kept : '';
    expect(JSON.parse(stored)).toEqual({
      group: {
        operator: 'AND',
        operands: [
          { cloudProvider: { operator: 'IN', cloudProviders: ['PROVIDER_A', 'PROVIDER_C'] } },
          {
            group: {
              operator: 'OR',
              operands: [
                { resourceType: { operator: 'IN', resourceTypes: ['PA_RELATIONAL_DB'] } },
                { environment: { operator: 'IN', environments: ['PROD'] } },
              ],
            },
          },
        ],
      },
    });
    expect(stored).toContain('"cloudProviders":["PROVIDER_A","PROVIDER_C"]');
    expect(stored).toContain('PA_RELATIONAL_DB');
    const listed = bodyOf(await api('POST', '/v1/roles/list?pageSize=100')).roles as Json[];
    expect(expressionOf({ role: listed.find((r) => r.id === id) })).toEqual(expression);
  });

  test('an update takes a tree too', async () => {
    const id = String(
      (bodyOf(await api('POST', '/v1/roles', { body: role('updated', expression) }), 201).role as Json).id,
    );
    const narrower = { resourceId: { operator: 'IN', resourceIds: ['r-1'] } };
    expect(expressionOf(bodyOf(await api('PUT', `/v1/roles/${id}`, { body: role('updated', narrower) })))).toEqual(
      narrower,
    );
  });

  test.each([
    ['a string', 'environment == "PROD"', /expression: the public dialect's expression is an object/],
    [
      'two conditions in one node',
      { vpc: { operator: 'IN', vpcs: [] }, subnets: { operator: 'IN', subnets: [] } },
      /exactly one condition, or a group/,
    ],
    [
      'a group of one',
      { group: { operator: 'AND', operands: [{ vpc: { operator: 'IN', vpcs: ['v'] } }] } },
      /at least two/,
    ],
    ['an unknown field', { colour: { operator: 'IN', colours: ['red'] } }, /expression\.colour: unrecognized key/],
    ['a condition without values', { vpc: { operator: 'IN' } }, /an operator and one list of values/],
    ['XOR', { group: { operator: 'XOR', operands: [{}, {}] } }, /expression\.group\.operator/],
    [
      'a neutral provider',
      { cloudProvider: { operator: 'IN', cloudProviders: ['PROVIDER_B'] } },
      /PROVIDER_B is the neutral dialect's provider; the public dialect calls it AZURE/,
    ],
  ])('%s is refused with 400, and nothing is created', async (_name, expr, message) => {
    const before = stateOf(suite.sim);
    refused(await api('POST', '/v1/roles', { body: role('refused', expr) }), message);
    expect(stateOf(suite.sim)).toEqual(before);
  });

  test('an expression stored as neutral text (never a tree) reads as null', async () => {
    const id = String(
      (bodyOf(await api('POST', '/v1/roles', { body: role('text', expression) }), 201).role as Json).id,
    );
    const stored = state().roles[id];
    const condition = stored?.accessConditions?.[0];
    if (!condition) throw new Error('no stored condition');
    condition.expression = 'resource.environment == "PROD"';
    expect(expressionOf(bodyOf(await api('GET', `/v1/roles/${id}`)))).toBeNull();
  });
});

describe('account sort fields', () => {
  const names = async (kind: string, sorts: unknown) =>
    (bodyOf(await api('POST', `${project()}/${kind}-accounts/list`, { body: { sorts } })).accounts as Json[]).map((a) =>
      String(a.name),
    );

  test('source accounts sort by accountName and createdAt; installedVersion and parentIdentifier are accepted', async () => {
    const byName = await names('source', [{ field: 'accountName', order: 'DESC' }]);
    expect(byName).toEqual([...byName].sort().reverse());
    const byCreated = await names('source', [{ field: 'createdAt', order: 'ASC' }]);
    const connected = (name: string) =>
      Object.values(state().sourceAccounts).find((a) => a.name === name)?.connectedTime ?? '~';
    expect(byCreated.map(connected)).toEqual(byCreated.map(connected).sort());
    const unsorted = await names('source', []);
    expect(await names('source', [{ field: 'installedVersion', order: 'DESC' }])).toEqual(unsorted);
    expect(await names('source', [{ field: 'parentIdentifier', order: 'ASC' }])).toEqual(unsorted);
  });

  test('restore accounts sort by accountName, installedVersion or createdAt, not parentIdentifier', async () => {
    const byName = await names('restore', [{ field: 'accountName', order: 'ASC' }]);
    expect(byName).toEqual([...byName].sort());
    expect(await names('restore', [{ field: 'installedVersion', order: 'ASC' }])).toHaveLength(byName.length);
    const path = `${project()}/restore-accounts/list`;
    refused(
      await api('POST', path, { body: { sorts: [{ field: 'parentIdentifier', order: 'ASC' }] } }),
      /restore accounts sort by accountName, installedVersion, createdAt, not parentIdentifier/,
    );
  });

  test.each(['name', 'providerAccountId', 'connectedTime'])('the neutral field %s is refused', async (field) => {
    const reply = await api('POST', `${project()}/source-accounts/list`, {
      body: { sorts: [{ field, order: 'ASC' }] },
    });
    refused(reply, new RegExp(`body\\.sorts\\.0\\.field: source accounts sort by accountName, .*, not ${field}$`));
  });
});

describe('updating a source account', () => {
  const account = (provider: string) => {
    const found = Object.values(state().sourceAccounts).find(
      (a) => a.sourceAccountAttributes.cloudProvider === provider && a.status === 'CONNECTED',
    );
    if (!found) throw new Error(`no connected ${provider} account`);
    return found;
  };
  const patch = (id: string, body: unknown) => api('PATCH', `${project()}/source-accounts/${id}`, { body });

  test('{sourceAccountAttributes: {aws: {roleArn}}} changes the role; the answer speaks public', async () => {
    const aws = account('PROVIDER_A');
    const roleArn = aws.sourceAccountAttributes.providerA?.roleArn.replace(/role\/.*$/, 'role/rotated') ?? '';
    const updated = bodyOf(await patch(aws.id, { name: 'renamed', sourceAccountAttributes: { aws: { roleArn } } }));
    expect(updated.sourceAccount).toMatchObject({
      name: 'renamed',
      sourceAccountAttributes: { cloudProvider: 'AWS', aws: { roleArn } },
    });
    expect(state().sourceAccounts[aws.id]?.sourceAccountAttributes.providerA?.roleArn).toBe(roleArn);
  });

  test('{sourceAccountAttributes: {gcp: {serviceAccount}}} changes the service account', async () => {
    const gcp = account('PROVIDER_C');
    const serviceAccount = gcp.sourceAccountAttributes.providerC?.serviceAccount.replace(/^[^@]+/, 'rotated') ?? '';
    bodyOf(await patch(gcp.id, { sourceAccountAttributes: { gcp: { serviceAccount } } }));
    expect(state().sourceAccounts[gcp.id]?.sourceAccountAttributes.providerC?.serviceAccount).toBe(serviceAccount);
  });

  test.each([
    [
      'with a cloudProvider (the neutral shape)',
      { cloudProvider: 'AWS', aws: { roleArn: 'x' } },
      /sourceAccountAttributes\.cloudProvider: an update names no provider in the public dialect/,
    ],
    [
      'with neutral tokens',
      { cloudProvider: 'PROVIDER_A', providerA: { roleArn: 'x' } },
      /PROVIDER_A is the neutral dialect's provider/,
    ],
    [
      'with a neutral member',
      { providerA: { roleArn: 'x' } },
      /providerA is the neutral dialect's provider member; the public dialect calls it aws/,
    ],
    [
      'naming azure',
      { azure: { tenantId: 't', subscriptionId: 's' } },
      /sourceAccountAttributes\.azure: an update takes only aws or gcp/,
    ],
    [
      "naming another provider's member",
      { gcp: { serviceAccount: 'a@b.iam.example' } },
      /sourceAccountAttributes\.gcp: does not match cloudProvider AWS/,
    ],
  ])('a body %s is refused with 400, and nothing changes', async (_name, attributes, message) => {
    const aws = account('PROVIDER_A');
    const before = stateOf(suite.sim);
    refused(await patch(aws.id, { sourceAccountAttributes: attributes }), message);
    expect(stateOf(suite.sim)).toEqual(before);
  });
});

describe('filters take public values', () => {
  const resources = async (filters: unknown): Promise<Json[]> =>
    bodyOf(await api('POST', `${project()}/resources?pageSize=1000`, { body: { filters } })).resources as Json[];
  const stored = (type: string) => Object.values(state().resources).filter((r) => r.resource.resourceType === type);

  test('resources by provider and by resource type', async () => {
    const azure = await resources({ cloudProvider: { in: ['AZURE'] } });
    expect(azure.length).toBe(
      Object.values(state().resources).filter((r) => r.resource.cloudProvider === 'PROVIDER_B').length,
    );
    expect(new Set(azure.map((r) => r.cloudProvider))).toEqual(new Set(['AZURE']));
    const rds = await resources({ resourceType: { in: ['AWS_RDS'] } });
    expect(rds.map((r) => r.id).sort()).toEqual(
      stored('PA_RELATIONAL_DB')
        .map((r) => r.resource.id)
        .sort(),
    );
    const notRds = await resources({ resourceType: { notIn: ['AWS_RDS'] }, cloudProvider: { in: ['AWS'] } });
    expect(notRds.some((r) => r.resourceType === 'AWS_RDS')).toBe(false);
    expect(notRds.length).toBeGreaterThan(0);
  });

  test('a public type the simulator never has (GCP_DISK) matches nothing, and excludes nothing', async () => {
    expect(await resources({ resourceType: { in: ['GCP_DISK'] } })).toEqual([]);
    const all = Object.keys(state().resources).length;
    expect(await resources({ resourceType: { notIn: ['GCP_DISK'] } })).toHaveLength(all);
    expect(await resources({ resourceType: { in: ['GCP_DISK', 'AWS_RDS'] } })).toHaveLength(
      stored('PA_RELATIONAL_DB').length,
    );
  });

  test('source and restore accounts by provider', async () => {
    const list = async (kind: string) =>
      bodyOf(
        await api('POST', `${project()}/${kind}-accounts/list`, {
          body: { filters: { cloudProvider: { in: ['GCP'] } } },
        }),
      ).accounts as Json[];
    expect((await list('source')).map((a) => (a.sourceAccountAttributes as Json).cloudProvider)).toEqual(['GCP']);
    expect((await list('restore')).map((a) => (a.restoreAccountAttributes as Json).cloudProvider)).toEqual(['GCP']);
  });

  test('cost data by provider and by resource type, grouped by them', async () => {
    const timeFrame = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-03-01T00:00:00Z' };
    const dimensions = async (filters: unknown, groupBy: string) =>
      (
        bodyOf(
          await api('POST', '/v1/cost-data?pageSize=1000', {
            body: { timeFrame, filters, groupBy, granularity: 'TOTAL' },
          }),
        ).records as Json[]
      ).map((r) => r.dimensions as Json);
    expect(await dimensions({ cloudProvider: { in: ['AWS'] } }, 'CLOUD_PROVIDER')).toEqual([{ cloudProvider: 'AWS' }]);
    expect(await dimensions({ resourceType: { in: ['AWS_RDS', 'GCP_CLOUD_SQL_INSTANCE'] } }, 'RESOURCE_TYPE')).toEqual([
      { resourceType: 'AWS_RDS' },
      { resourceType: 'GCP_CLOUD_SQL_INSTANCE' },
    ]);
  });

  test('metering dimensions carry the public names', async () => {
    const timeFrame = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-03-01T00:00:00Z' };
    const body = { timeFrame, groupBy: 'RESOURCE_TYPE', granularity: 'TOTAL' };
    const records = bodyOf(await api('POST', '/v1/cost-data?pageSize=1000', { body })).records as Json[];
    const dimensions = new Set(records.flatMap((r) => (r.costs as Json[]).map((c) => String(c.meteringDimension))));
    expect(dimensions).toContain('AWS_RDS_METERING_DIMENSION');
    for (const d of dimensions) expect(d).not.toMatch(/(^|_)P[A-D]_/);
    expect(METERING_DIMENSIONS.map(publicMeteringDimension).filter((d) => /(^|_)P[A-D]_/.test(d))).toEqual([]);
    expect(publicMeteringDimension('PA_RELATIONAL_DB_TO_PB_VAULT_METERING_DIMENSION')).toBe(
      'AWS_RDS_TO_AZURE_VAULT_METERING_DIMENSION',
    );
    expect(publicMeteringDimension('DATA_TRANSFER_METERING_DIMENSION')).toBe('DATA_TRANSFER_METERING_DIMENSION');
  });
});
