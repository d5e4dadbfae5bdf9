// Conformance of the vault endpoints, over raw HTTP.
import { VaultBody, VaultPage, type Vault } from '../../api';
import { SEEDED_REGIONS, vaultsInRegion } from '../../simulator/routes/vaults';
import {
  allPages,
  errorOf,
  okBody,
  type Reply,
  tokenFor,
  UNKNOWN_ID,
  managementSuite,
  expectBadRequest,
} from './helpers';

const { suite, call } = managementSuite('vaults.manage');
const vaults = () => `/v1/projects/${suite.sim.projectId}/vaults`;

async function listAll(): Promise<Vault[]> {
  const res = await call('POST', `${vaults()}/list`, { body: {} });
  expect(res.status).toBe(200);
  return VaultPage.parse(res.body).vaults;
}

async function create(name: string, region: string, encryptionKey?: string): Promise<Reply> {
  const vaultAttributes = { cloudProvider: 'PROVIDER_A', ...(encryptionKey ? { providerA: { encryptionKey } } : {}) };
  return call('POST', vaults(), { body: { name, region, vaultAttributes } });
}

describe('seeded vaults', () => {
  test('a service-managed vault in every seeded region, and one under a customer key', async () => {
    const all = await listAll();
    for (const [provider, regions] of Object.entries(SEEDED_REGIONS)) {
      for (const region of regions) {
        const managed = all.filter((v) => v.region === region && v.isManagedByEon);
        expect(managed.map((v) => v.vaultAttributes.cloudProvider)).toContain(provider);
        expect(vaultsInRegion(suite.sim.ctx.state, region)[0]?.isManagedByEon).toBe(true);
      }
    }
    const customer = all.filter((v) => v.vaultAttributes.providerA?.encryptionKey);
    expect(customer).toHaveLength(1);
    expect(customer[0]?.isManagedByEon).toBe(false);
  });
});

describe('create', () => {
  test('201 {vault} with a service-managed key; two such vaults in a region never conflict', async () => {
    const res = await create('drill-vault', 'pa-east-1');
    expect(res.status).toBe(201);
    const vault = VaultBody.parse(res.body).vault;
    expect(vault).toMatchObject({
      name: 'drill-vault',
      region: 'pa-east-1',
      isManagedByEon: true,
      vaultAttributes: { cloudProvider: 'PROVIDER_A' },
    });
    expect(vault.vaultAttributes.providerA).toBeUndefined();
    expect(vault.vaultAccountId).toEqual(expect.any(String));
    expect(vault.providerAccountId).toEqual(expect.any(String));
    expect((await create('drill-vault-2', 'pa-east-1')).status).toBe(201);
  });

  test('409 for a customer key already used in the region; the same key elsewhere is fine', async () => {
    const key = 'arn:pa:kms:pa-east-1:111122223333:key/drill';
    const first = await create('cmk-1', 'pa-east-1', key);
    expect(first.status).toBe(201);
    expect(VaultBody.parse(first.body).vault.vaultAttributes.providerA).toEqual({ encryptionKey: key });
    const clash = await create('cmk-2', 'pa-east-1', key);
    expect(clash.status).toBe(409);
    expect(errorOf(clash)).toContain(key);
    expect((await create('cmk-3', 'pa-west-2', key)).status).toBe(201);
    // The seeded customer-key vault conflicts too.
    const seeded = (await listAll()).find((v) => v.vaultAttributes.providerA?.encryptionKey && !v.isManagedByEon);
    const seededKey = seeded?.vaultAttributes.providerA?.encryptionKey;
    if (!seeded || !seededKey) throw new Error('no seeded customer-key vault');
    expect((await create('cmk-4', seeded.region, seededKey)).status).toBe(409);
  });

  test.each([
    ['a missing region', { name: 'v', vaultAttributes: { cloudProvider: 'PROVIDER_A' } }, 'body.region'],
    ['a missing name', { region: 'r', vaultAttributes: { cloudProvider: 'PROVIDER_A' } }, 'body.name'],
    ['missing attributes', { name: 'v', region: 'r' }, 'body.vaultAttributes'],
    [
      'a responses-only provider',
      { name: 'v', region: 'r', vaultAttributes: { cloudProvider: 'PROVIDER_UNSPECIFIED' } },
      'body.vaultAttributes.cloudProvider',
    ],
  ])('400 for %s, naming the field', async (_what, body, field) => {
    expectBadRequest(await call('POST', vaults(), { body }), field);
  });

  test('401 without a token, 403 without vaults.manage, 404 unknown project', async () => {
    const body = { name: 'v', region: 'pa-east-1', vaultAttributes: { cloudProvider: 'PROVIDER_A' } };
    expect((await call('POST', vaults(), { body, auth: null })).status).toBe(401);
    expect((await call('POST', vaults(), { body, auth: suite.viewer })).status).toBe(403);
    expect((await call('POST', `/v1/projects/${UNKNOWN_ID}/vaults`, { body })).status).toBe(404);
  });
});

describe('get', () => {
  test('200 {vault} (inventory.view suffices); 404 unknown vault or project; 401; 403', async () => {
    const [first] = await listAll();
    if (!first) throw new Error('no vault');
    const res = await call('GET', `${vaults()}/${first.id}`, { auth: suite.viewer });
    expect(res.status).toBe(200);
    expect(VaultBody.parse(res.body).vault).toEqual(first);
    expect((await call('GET', `${vaults()}/${UNKNOWN_ID}`)).status).toBe(404);
    expect((await call('GET', `/v1/projects/${UNKNOWN_ID}/vaults/${first.id}`)).status).toBe(404);
    expect((await call('GET', `${vaults()}/${first.id}`, { auth: null })).status).toBe(401);
    expect((await call('GET', `${vaults()}/${first.id}`, { auth: suite.unprivileged })).status).toBe(403);
    const manager = await tokenFor(suite.sim, ['vaults.manage']);
    expect((await call('GET', `${vaults()}/${first.id}`, { auth: manager })).status).toBe(200);
  });
});

describe('patch (rename)', () => {
  test('200 {vault}: only the name changes; any other key is a 400 that changes nothing', async () => {
    const vault = VaultBody.parse((await create('old-name', 'pb-central')).body).vault;
    const moved = await call('PATCH', `${vaults()}/${vault.id}`, { body: { name: 'new-name', region: 'elsewhere' } });
    expect(moved.status).toBe(400);
    expect((moved.body as { error: string }).error).toBe('invalid body.region: unrecognized key');
    expect(VaultBody.parse((await call('GET', `${vaults()}/${vault.id}`)).body).vault).toEqual(vault);
    const res = await call('PATCH', `${vaults()}/${vault.id}`, { body: { name: 'new-name' } });
    expect(res.status).toBe(200);
    expect(VaultBody.parse(res.body).vault).toEqual({ ...vault, name: 'new-name' });
    expect(VaultBody.parse((await call('GET', `${vaults()}/${vault.id}`)).body).vault.name).toBe('new-name');
  });

  test('400 without a name; 404 unknown vault or project; 401; 403', async () => {
    const [first] = await listAll();
    const path = `${vaults()}/${first?.id}`;
    const bad = await call('PATCH', path, { body: { name: '' } });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toContain('body.name');
    expect((await call('PATCH', `${vaults()}/${UNKNOWN_ID}`, { body: { name: 'x' } })).status).toBe(404);
    expect(
      (await call('PATCH', `/v1/projects/${UNKNOWN_ID}/vaults/${first?.id}`, { body: { name: 'x' } })).status,
    ).toBe(404);
    expect((await call('PATCH', path, { body: { name: 'x' }, auth: null })).status).toBe(401);
    expect((await call('PATCH', path, { body: { name: 'x' }, auth: suite.viewer })).status).toBe(403);
  });
});

describe('list', () => {
  test('pages with pageSize and nextToken, {vaults, totalCount, nextToken}', async () => {
    const all = await listAll();
    const pages = await allPages(3, async (q) =>
      okBody(await call('POST', `${vaults()}/list${q}`, { body: {} }), VaultPage),
    );
    for (const page of pages) {
      expect(page.vaults.length).toBeLessThanOrEqual(3);
      expect(page.totalCount).toBe(all.length);
    }
    expect(pages.flatMap((page) => page.vaults.map((v) => v.id))).toEqual(all.map((v) => v.id));
  });

  // The public API declares no body on this list: paging comes from the query. Older clients' `{}` still works.
  test('pages from the query without a body, as with a JSON body', async () => {
    const idsOf = async (body?: unknown) =>
      (await allPages(2, async (q) => okBody(await call('POST', `${vaults()}/list${q}`, { body }), VaultPage))).flatMap(
        (page) => page.vaults.map((v) => v.id),
      );
    const bodyless = await idsOf();
    expect(bodyless).toEqual((await listAll()).map((v) => v.id));
    expect(await idsOf({})).toEqual(bodyless);
  });

  test('400 for a bad pageSize; 404 unknown project; 401; 403', async () => {
    const bad = await call('POST', `${vaults()}/list?pageSize=-1`);
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toContain('query.pageSize');
    expect((await call('POST', `/v1/projects/${UNKNOWN_ID}/vaults/list`)).status).toBe(404);
    expect((await call('POST', `${vaults()}/list`, { auth: null })).status).toBe(401);
    expect((await call('POST', `${vaults()}/list`, { auth: suite.unprivileged })).status).toBe(403);
  });
});
