// Every service request body is a strict object: an unknown key is a 400 naming it, and nothing changes.
import { ResourceBody } from '../../api';
import { type RunningSimulator } from '../../simulator/server';
import { call, errorOf, type Method, projectPath, simulatorForSuite, stateOf } from './helpers';

let sim: RunningSimulator;
let token: string;

simulatorForSuite({ seed: 3 }, (started, bootstrap) => {
  [sim, token] = [started, bootstrap];
});

interface Case {
  name: string;
  method: Method;
  path: () => string;
  body: () => unknown;
  /** The field named in the error, after `invalid `. */
  field: string;
}

const p = () => projectPath(sim);
const first = <T>(records: Record<string, T>): T => {
  const value = Object.values(records)[0];
  if (value === undefined) throw new Error('nothing seeded');
  return value;
};
const timeFrame = { startTime: '2026-11-01T00:00:00Z', endTime: '2026-11-02T00:00:00Z' };
const bucket = { bucketA: { bucketName: 'restores' } };

const cases: Case[] = [
  {
    name: 'misspelt cost groupBy',
    method: 'POST',
    path: () => '/v1/cost-data',
    body: () => ({ timeFrame, groupby: 'RESOURCE' }),
    field: 'body.groupby',
  },
  {
    name: 'unknown key in a cost filter',
    method: 'POST',
    path: () => '/v1/cost-data',
    body: () => ({ timeFrame, filters: { resourceType: { in: ['PA_VM'], except: [] } } }),
    field: 'body.filters.resourceType.except',
  },
  {
    name: 'misspelt resource filter',
    method: 'POST',
    path: () => `${p()}/resources`,
    body: () => ({ filters: { resourceTypes: { in: ['PA_VM'] } } }),
    field: 'body.filters.resourceTypes',
  },
  {
    name: 'misspelt retentionDays',
    method: 'POST',
    path: () => `${p()}/resources/${first(sim.ctx.state.resources).resource.id}/take-snapshot`,
    body: () => ({ vaultId: first(sim.ctx.state.vaults).id, retentionDays: 7, retentionDay: 30 }),
    field: 'body.retentionDay',
  },
  {
    name: 'unknown key in a restore-bucket destination',
    method: 'POST',
    path: () => `${p()}/resources/r/snapshots/s/restore-bucket`,
    body: () => ({ destination: { bucketA: { bucketName: 'b', region: 'pa-east-1' } }, restoreAccountId: 'ra' }),
    field: 'body.destination.bucketA.region',
  },
  {
    name: 'unknown key in a restore-files file',
    method: 'POST',
    path: () => `${p()}/resources/r/snapshots/s/restore-files`,
    body: () => ({
      destination: bucket,
      files: [{ path: '/etc', isDirectory: true, recursive: true }],
      restoreAccountId: 'ra',
    }),
    field: 'body.files.0.recursive',
  },
  {
    name: 'unknown key in a query',
    method: 'POST',
    path: () => `${p()}/snapshots/s/databases/query`,
    body: () => ({ databaseName: 'db', query: 'SELECT 1', restoreAccountId: 'ra', destination: bucket, timeout: 5 }),
    field: 'body.timeout',
  },
  {
    name: 'unknown key in a job list sort',
    method: 'POST',
    path: () => `${p()}/backup-jobs`,
    body: () => ({ sorts: [{ field: 'createdTime', order: 'DESC', limit: 1 }] }),
    field: 'body.sorts.0.limit',
  },
  {
    name: 'unknown key in a snapshot list filter',
    method: 'POST',
    path: () => `${p()}/resources/${first(sim.ctx.state.resources).resource.id}/snapshots`,
    body: () => ({ filters: { pointInTime: { after: '2026-01-01' } } }),
    field: 'body.filters.pointInTime.after',
  },
  {
    name: 'unknown key in a source account',
    method: 'POST',
    path: () => `${p()}/source-accounts`,
    body: () => ({
      sourceAccountAttributes: { cloudProvider: 'PROVIDER_C', providerC: { serviceAccount: 'sa@p.iam' } },
      tags: {},
    }),
    field: 'body.tags',
  },
  {
    name: 'unknown key in a source account update',
    method: 'PATCH',
    path: () => `${p()}/source-accounts/${first(sim.ctx.state.sourceAccounts).id}`,
    body: () => ({ name: 'renamed', status: 'CONNECTED' }),
    field: 'body.status',
  },
  {
    name: 'unknown key in an account list filter',
    method: 'POST',
    path: () => `${p()}/restore-accounts/list`,
    body: () => ({ filters: { name: { in: ['A'] } } }),
    field: 'body.filters.name',
  },
  {
    name: 'unknown key in a vault',
    method: 'POST',
    path: () => `${p()}/vaults`,
    body: () => ({ name: 'v', region: 'pa-east-1', vaultAttributes: { cloudProvider: 'PROVIDER_A' }, tier: 'cold' }),
    field: 'body.tier',
  },
  {
    name: 'unknown key in a vault rename',
    method: 'PATCH',
    path: () => `${p()}/vaults/${first(sim.ctx.state.vaults).id}`,
    body: () => ({ name: 'renamed', region: 'elsewhere' }),
    field: 'body.region',
  },
  {
    name: 'unknown key in a role grant',
    method: 'POST',
    path: () => '/v1/roles',
    body: () => ({ name: 'auditors', permissionGrants: [{ permission: 'jobs.view', scope: 'all' }] }),
    field: 'body.permissionGrants.0.scope',
  },
  {
    name: 'unknown key in an IdP group',
    method: 'POST',
    path: () => '/v1/idp-groups',
    body: () => ({ idpId: first(sim.ctx.state.idps).id, providerGroupId: 'g', roleIds: [], members: [] }),
    field: 'body.members',
  },
  {
    name: 'unknown key in a token request',
    method: 'POST',
    path: () => '/v1/token',
    body: () => ({ clientId: sim.clientId, clientSecret: sim.clientSecret, audience: 'x' }),
    field: 'body.audience',
  },
];

test.each(cases)('$name → 400 "invalid $field: unrecognized key", state unchanged', async (c) => {
  const before = stateOf(sim);
  const tokensBefore = Object.keys(sim.ctx.state.tokens).length;
  const reply = await call(sim, c.method, c.path(), { body: c.body(), token });
  expect(reply.status).toBe(400);
  expect(errorOf(reply)).toBe(`invalid ${c.field}: unrecognized key`);
  expect(stateOf(sim)).toEqual(before);
  expect(Object.keys(sim.ctx.state.tokens)).toHaveLength(tokensBefore);
});

test('the same bodies without the unknown key are accepted (control)', async () => {
  const reply = await call(sim, 'POST', '/v1/cost-data', { body: { timeFrame, groupBy: 'RESOURCE' }, token });
  expect(reply.status).toBe(200);
  const list = await call(sim, 'POST', `${p()}/resources?pageSize=1`, {
    body: { filters: { resourceType: { in: ['PA_VM'] } } },
    token,
  });
  expect(list.status).toBe(200);
});

test('unknown response fields stay open: the client keeps them', () => {
  const resource = first(sim.ctx.state.resources).resource;
  const decoded = ResourceBody.parse({ resource: { ...resource, futureField: 1 }, extra: true });
  expect(decoded).toMatchObject({ extra: true, resource: { futureField: 1 } });
});
