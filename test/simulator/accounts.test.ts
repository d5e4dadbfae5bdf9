// Conformance of source and restore accounts (docs/service-interface.md §5, §6), over raw HTTP.
import {
  RestoreAccountBody,
  RestoreAccountPage,
  SourceAccountBody,
  SourceAccountPage,
  type InventoryResourceDocument as InventoryResource,
  type SourceAccount,
} from '../../api';
import type { SimOptions } from '../../simulator/context';
import { accountsModule, connectedSourceAccounts } from '../../simulator/routes/accounts';
import { iamModule } from '../../simulator/routes/iam';
import { vaultsModule } from '../../simulator/routes/vaults';
import { createState } from '../../simulator/state';
import {
  allPages,
  errorOf,
  expectAuthRefusals,
  type Reply,
  UNKNOWN_ID,
  managementSuite,
  expectBadRequest,
} from './helpers';

const { suite, call } = managementSuite('source_accounts.manage');
const accounts = () => `/v1/projects/${suite.sim.projectId}/source-accounts`;
const restoreAccounts = () => `/v1/projects/${suite.sim.projectId}/restore-accounts`;

/**
 * GET of one account: 200 for a viewer (the reply, returned), 404 for an unknown account or project, 401 without a
 * token and 403 without inventory.view.
 */
async function expectGetAnswers(kind: 'source-accounts' | 'restore-accounts', id: string): Promise<Reply> {
  const path = (projectId: string, accountId: string) => `/v1/projects/${projectId}/${kind}/${accountId}`;
  const res = await call('GET', path(suite.sim.projectId, id), { auth: suite.viewer });
  expect(res.status).toBe(200);
  expect((await call('GET', path(suite.sim.projectId, UNKNOWN_ID))).status).toBe(404);
  expect((await call('GET', path(UNKNOWN_ID, id))).status).toBe(404);
  await expectAuthRefusals(call, 'GET', path(suite.sim.projectId, id), suite.unprivileged);
  return res;
}

let counter = 0;
/** A PROVIDER_A account ID nobody has connected yet. */
const freshAccountId = () => `1234567${String(++counter).padStart(5, '0')}`;
const attrsA = (account: string, role = 'backup') => ({
  cloudProvider: 'PROVIDER_A',
  providerA: { roleArn: `arn:pa:iam::${account}:role/${role}` },
});

async function connect(body: unknown): Promise<SourceAccount> {
  const res = await call('POST', accounts(), { body });
  expect(res.status).toBe(200);
  return SourceAccountBody.parse(res.body).sourceAccount;
}

async function listAll(body: unknown = {}): Promise<SourceAccount[]> {
  const res = await call('POST', `${accounts()}/list`, { body });
  expect(res.status).toBe(200);
  return SourceAccountPage.parse(res.body).accounts;
}

function resource(id: string, account: SourceAccount, eonSnapshotCount: number): InventoryResource {
  return {
    id,
    backupStatus: 'PROTECTED',
    providerResourceId: `i-${id}`,
    resourceName: id,
    providerAccountId: account.providerAccountId,
    snapshotStorage: { eonSnapshotCount },
    sourceStorage: { sizeBytes: 1024 },
    tags: {},
    cloudProvider: 'PROVIDER_A',
    resourceType: 'PA_VM',
    region: 'pa-east-1',
  };
}

describe('seeded accounts', () => {
  test('a connected source account per provider A, B and C, and one with insufficient permissions', async () => {
    const all = await listAll();
    for (const provider of ['PROVIDER_A', 'PROVIDER_B', 'PROVIDER_C']) {
      expect(connectedSourceAccounts(suite.sim.ctx.state, provider).length).toBeGreaterThanOrEqual(1);
      expect(all.some((a) => a.status === 'CONNECTED' && a.sourceAccountAttributes?.cloudProvider === provider)).toBe(
        true,
      );
    }
    expect(all.filter((a) => a.status === 'INSUFFICIENT_PERMISSIONS')).toHaveLength(1);
  });

  test('seeding is deterministic per seed', () => {
    const options: SimOptions = {
      seed: 42,
      tokenTtlSeconds: 60,
      bootstrapClientId: 'c',
      bootstrapClientSecret: 's',
    };
    const modules = [iamModule, accountsModule, vaultsModule];
    const pick = (seed: number) => {
      const s = createState({ ...options, seed }, modules);
      return { roles: s.roles, idps: s.idps, src: s.sourceAccounts, rst: s.restoreAccounts, vaults: s.vaults };
    };
    expect(pick(42)).toEqual(pick(42));
    expect(Object.keys(pick(43).src)).not.toEqual(Object.keys(pick(42).src));
  });
});

describe('connect', () => {
  test.each([
    ['PROVIDER_A', attrsA('210987654321'), '210987654321'],
    [
      'PROVIDER_B',
      {
        cloudProvider: 'PROVIDER_B',
        providerB: { tenantId: 't-1', subscriptionId: '3F2504E0-4F89-41D3-9A0C-0305E82C3301' },
      },
      '3f2504e0-4f89-41d3-9a0c-0305e82c3301',
    ],
    [
      'PROVIDER_C',
      { cloudProvider: 'PROVIDER_C', providerC: { serviceAccount: 'backup@warehouse-prod-77.iam.pc-cloud.example' } },
      'warehouse-prod-77',
    ],
  ])('%s: 200 {sourceAccount} CONNECTED, with the provider account ID from its attributes', async (_p, attrs, id) => {
    const before = suite.sim.ctx.clock.now();
    const account = await connect({ name: `acct-${id}`, sourceAccountAttributes: attrs });
    expect(account).toMatchObject({
      providerAccountId: id,
      name: `acct-${id}`,
      status: 'CONNECTED',
      sourceAccountAttributes: attrs,
    });
    expect(Date.parse(account.connectedTime ?? '')).toBeGreaterThanOrEqual(before - 1000);
  });

  test('409 when an account with the same provider account ID exists', async () => {
    const id = freshAccountId();
    await connect({ sourceAccountAttributes: attrsA(id) });
    const res = await call('POST', accounts(), { body: { sourceAccountAttributes: attrsA(id, 'another-role') } });
    expect(res.status).toBe(409);
    expect(errorOf(res)).toContain(id);
  });

  test('an unverifiable role connects with INSUFFICIENT_PERMISSIONS', async () => {
    const account = await connect({ sourceAccountAttributes: attrsA(freshAccountId(), 'insufficient-role') });
    expect(account.status).toBe('INSUFFICIENT_PERMISSIONS');
    expect(account.name).toBe(`PROVIDER_A ${account.providerAccountId}`);
  });

  test.each([
    ['no body', undefined, 'body.sourceAccountAttributes'],
    ['a malformed role ARN', { sourceAccountAttributes: attrsA('12345') }, 'providerA.roleArn'],
    [
      'a provider member that does not match cloudProvider',
      { sourceAccountAttributes: { cloudProvider: 'PROVIDER_B', providerA: { roleArn: 'x' } } },
      'body.sourceAccountAttributes.providerA',
    ],
    [
      'a subscription that is not a uuid',
      { sourceAccountAttributes: { cloudProvider: 'PROVIDER_B', providerB: { tenantId: 't', subscriptionId: 's' } } },
      'providerB.subscriptionId',
    ],
    [
      'a malformed service account',
      { sourceAccountAttributes: { cloudProvider: 'PROVIDER_C', providerC: { serviceAccount: 'nobody' } } },
      'providerC.serviceAccount',
    ],
    ['PROVIDER_D', { sourceAccountAttributes: { cloudProvider: 'PROVIDER_D' } }, 'cloudProvider'],
    [
      'a responses-only provider',
      { sourceAccountAttributes: { cloudProvider: 'PROVIDER_UNSPECIFIED' } },
      'body.sourceAccountAttributes.cloudProvider',
    ],
  ])('400 for %s, naming the field', async (_what, body, field) => {
    expectBadRequest(await call('POST', accounts(), { body }), field);
  });

  test('401 without a token, 403 without source_accounts.manage, 404 unknown project', async () => {
    const body = { sourceAccountAttributes: attrsA(freshAccountId()) };
    expect((await call('POST', accounts(), { body, auth: null })).status).toBe(401);
    expect((await call('POST', accounts(), { body, auth: suite.viewer })).status).toBe(403);
    expect((await call('POST', `/v1/projects/${UNKNOWN_ID}/source-accounts`, { body })).status).toBe(404);
  });
});

describe('get', () => {
  test('200 {sourceAccount}; 404 unknown account or project; 401; 403 without inventory.view', async () => {
    const [first] = await listAll();
    if (!first) throw new Error('no seeded account');
    const res = await expectGetAnswers('source-accounts', first.id);
    expect(SourceAccountBody.parse(res.body).sourceAccount).toEqual(first);
  });
});

describe('patch', () => {
  test('renames, and accepts new attributes for the same account', async () => {
    const id = freshAccountId();
    const account = await connect({ name: 'before', sourceAccountAttributes: attrsA(id) });
    const body = { name: 'after', sourceAccountAttributes: attrsA(id, 'rotated-role') };
    const res = await call('PATCH', `${accounts()}/${account.id}`, { body });
    expect(res.status).toBe(200);
    expect(SourceAccountBody.parse(res.body).sourceAccount).toEqual({ ...account, ...body });
  });

  test('working attributes move an INSUFFICIENT_PERMISSIONS account to CONNECTED', async () => {
    const id = freshAccountId();
    const account = await connect({ sourceAccountAttributes: attrsA(id, 'insufficient') });
    const res = await call('PATCH', `${accounts()}/${account.id}`, { body: { sourceAccountAttributes: attrsA(id) } });
    expect(SourceAccountBody.parse(res.body).sourceAccount.status).toBe('CONNECTED');
  });

  test('400: changed account ID, changed provider, refused verification, invalid JSON, bad field', async () => {
    const id = freshAccountId();
    const account = await connect({ sourceAccountAttributes: attrsA(id) });
    const path = `${accounts()}/${account.id}`;
    const cases: [unknown, string][] = [
      [{ sourceAccountAttributes: attrsA(freshAccountId()) }, 'account ID cannot change'],
      [
        { sourceAccountAttributes: { cloudProvider: 'PROVIDER_C', providerC: { serviceAccount: 'a@bcdefg.iam.x' } } },
        'cloudProvider',
      ],
      [{ sourceAccountAttributes: attrsA(id, 'insufficient') }, 'refused to verify'],
      [{ name: '' }, 'body.name'],
    ];
    for (const [body, message] of cases) {
      const res = await call('PATCH', path, { body });
      expectBadRequest(res, message);
    }
    expect((await call('PATCH', path, { raw: '{"name": ' })).status).toBe(400);
    expect(SourceAccountBody.parse((await call('GET', path)).body).sourceAccount).toEqual(account);
  });

  test('404 unknown; 401; 403 without source_accounts.manage', async () => {
    const [first] = await listAll();
    const body = { name: 'x' };
    expect((await call('PATCH', `${accounts()}/${UNKNOWN_ID}`, { body })).status).toBe(404);
    expect((await call('PATCH', `${accounts()}/${first?.id}`, { body, auth: null })).status).toBe(401);
    expect((await call('PATCH', `${accounts()}/${first?.id}`, { body, auth: suite.viewer })).status).toBe(403);
  });
});

describe('disconnect, reconnect and delete', () => {
  test('disconnect keeps resources with snapshots as DISCONNECTED and drops the rest; reconnect', async () => {
    const account = await connect({ sourceAccountAttributes: attrsA(freshAccountId()) });
    const state = suite.sim.ctx.state;
    const counted = resource('res-counted', account, 3);
    const listed = resource('res-listed', account, 0);
    const bare = resource('res-bare', account, 0);
    for (const r of [counted, listed, bare]) state.resources[r.id] = { resource: r, sourceAccountId: account.id };
    state.snapshots['snap-listed'] = {
      id: 'snap-listed',
      createdTime: suite.sim.ctx.clock.iso(),
      resourceId: listed.id,
    };

    const res = await call('POST', `${accounts()}/${account.id}/disconnect`);
    expect(res.status).toBe(200);
    expect(SourceAccountBody.parse(res.body).sourceAccount.status).toBe('DISCONNECTED');
    expect(state.resources[counted.id]?.resource.backupStatus).toBe('DISCONNECTED');
    expect(state.resources[listed.id]?.resource.backupStatus).toBe('DISCONNECTED');
    expect(state.resources[bare.id]).toBeUndefined();

    const back = await call('POST', `${accounts()}/${account.id}/reconnect`);
    expect(back.status).toBe(200);
    expect(SourceAccountBody.parse(back.body).sourceAccount.status).toBe('CONNECTED');
    expect(state.resources[counted.id]?.resource.backupStatus).toBe('INITIAL_CLASSIFICATION');
  });

  test('reconnecting an unverifiable account gives INSUFFICIENT_PERMISSIONS', async () => {
    const account = await connect({ sourceAccountAttributes: attrsA(freshAccountId(), 'insufficient') });
    await call('POST', `${accounts()}/${account.id}/disconnect`);
    const res = await call('POST', `${accounts()}/${account.id}/reconnect`);
    expect(SourceAccountBody.parse(res.body).sourceAccount.status).toBe('INSUFFICIENT_PERMISSIONS');
  });

  test('delete: 409 while CONNECTED; 200 with an empty body once disconnected; then 404', async () => {
    const account = await connect({ sourceAccountAttributes: attrsA(freshAccountId()) });
    const path = `${accounts()}/${account.id}`;
    const refused = await call('DELETE', path);
    expect(refused.status).toBe(409);
    expect(errorOf(refused)).toMatch(/disconnect/);
    await call('POST', `${path}/disconnect`);
    const res = await call('DELETE', path);
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect((await call('GET', path)).status).toBe(404);
    expect((await call('DELETE', path)).status).toBe(404);
  });

  test('delete: allowed for INSUFFICIENT_PERMISSIONS', async () => {
    const [insufficient] = await listAll({ filters: { accountStatus: { in: ['INSUFFICIENT_PERMISSIONS'] } } });
    if (!insufficient) throw new Error('no INSUFFICIENT_PERMISSIONS account');
    expect((await call('DELETE', `${accounts()}/${insufficient.id}`)).status).toBe(200);
  });

  test('404 unknown; 401; 403 without source_accounts.manage', async () => {
    for (const verb of ['disconnect', 'reconnect']) {
      expect((await call('POST', `${accounts()}/${UNKNOWN_ID}/${verb}`)).status).toBe(404);
      expect((await call('POST', `${accounts()}/${UNKNOWN_ID}/${verb}`, { auth: null })).status).toBe(401);
      expect((await call('POST', `${accounts()}/${UNKNOWN_ID}/${verb}`, { auth: suite.viewer })).status).toBe(403);
    }
    expect((await call('DELETE', `${accounts()}/${UNKNOWN_ID}`, { auth: null })).status).toBe(401);
    expect((await call('DELETE', `${accounts()}/${UNKNOWN_ID}`, { auth: suite.viewer })).status).toBe(403);
  });
});

describe('list', () => {
  test('filters: id, providerAccountId, accountStatus, cloudProvider, accountName', async () => {
    const all = await listAll();
    const [a, b] = all;
    if (!a || !b) throw new Error('expected accounts');
    const ids = async (filters: unknown) => (await listAll({ filters })).map((x) => x.id);
    expect(await ids({ id: { in: [a.id, b.id] } })).toEqual([a.id, b.id]);
    expect(await ids({ id: { notIn: [a.id] } })).toEqual(all.filter((x) => x.id !== a.id).map((x) => x.id));
    expect(await ids({ providerAccountId: { in: [b.providerAccountId] } })).toEqual([b.id]);
    expect(await ids({ providerAccountId: { notIn: [b.providerAccountId] } })).not.toContain(b.id);
    const byStatus = (s: string) => all.filter((x) => x.status === s).map((x) => x.id);
    expect(await ids({ accountStatus: { in: ['DISCONNECTED'] } })).toEqual(byStatus('DISCONNECTED'));
    expect(await ids({ accountStatus: { notIn: ['CONNECTED'] } })).toEqual(
      all.filter((x) => x.status !== 'CONNECTED').map((x) => x.id),
    );
    const byProvider = (p: string) => all.filter((x) => x.sourceAccountAttributes?.cloudProvider === p);
    expect(await ids({ cloudProvider: { in: ['PROVIDER_B'] } })).toEqual(byProvider('PROVIDER_B').map((x) => x.id));
    expect((await ids({ cloudProvider: { notIn: ['PROVIDER_A'] } })).length).toBe(
      all.length - byProvider('PROVIDER_A').length,
    );
    expect(await ids({ accountName: { in: [a.name] } })).toEqual(all.filter((x) => x.name === a.name).map((x) => x.id));
    expect(await ids({ accountName: { notIn: [a.name] } })).not.toContain(a.id);
    expect(await ids({ accountName: { contains: ['payments'] } })).toEqual(
      all.filter((x) => x.name.includes('payments')).map((x) => x.id),
    );
    expect(await ids({ accountName: { notContains: ['payments'] } })).toEqual(
      all.filter((x) => !x.name.includes('payments')).map((x) => x.id),
    );
  });

  test('sorts apply in list order; accounts never connected sort last', async () => {
    const names = (await listAll({ sorts: [{ field: 'name', order: 'DESC' }] })).map((x) => x.name);
    expect(names).toEqual([...names].sort().reverse());
    const byTime = await listAll({ sorts: [{ field: 'connectedTime', order: 'ASC' }] });
    const times = byTime.map((x) => x.connectedTime).filter((t): t is string => t !== undefined);
    expect(times).toEqual([...times].sort());
    expect(byTime.slice(times.length).every((x) => x.connectedTime === undefined)).toBe(true);
  });

  test('pages with pageSize and nextToken; a token reused with other filters is 400', async () => {
    const all = await listAll();
    const pages = await allPages(2, async (q) =>
      SourceAccountPage.parse((await call('POST', `${accounts()}/list${q}`, { body: {} })).body),
    );
    for (const page of pages) expect(page.totalCount).toBe(all.length);
    expect(pages.flatMap((page) => page.accounts.map((x) => x.id))).toEqual(all.map((x) => x.id));
    const first = SourceAccountPage.parse((await call('POST', `${accounts()}/list?pageSize=1`, { body: {} })).body);
    const reused = await call('POST', `${accounts()}/list?pageToken=${encodeURIComponent(first.nextToken ?? '')}`, {
      body: { filters: { cloudProvider: { in: ['PROVIDER_A'] } } },
    });
    expect(reused.status).toBe(400);
  });

  test('400 for a responses-only status or an unknown sort field, naming the field; 401; 403', async () => {
    const bad = await call('POST', `${accounts()}/list`, {
      body: { filters: { accountStatus: { in: ['NOT_READY'] } } },
    });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toContain('body.filters.accountStatus.in.0');
    const sort = await call('POST', `${accounts()}/list`, { body: { sorts: [{ field: 'color', order: 'ASC' }] } });
    expect(sort.status).toBe(400);
    expect(errorOf(sort)).toContain('body.sorts.0.field');
    expect((await call('POST', `${accounts()}/list?pageSize=0`)).status).toBe(400);
    expect((await call('POST', `${accounts()}/list`, { auth: null })).status).toBe(401);
    expect((await call('POST', `${accounts()}/list`, { auth: suite.unprivileged })).status).toBe(403);
  });
});

describe('restore accounts', () => {
  test('list: seeded accounts of providers A, B and C, one not allowed to restore', async () => {
    const res = await call('POST', `${restoreAccounts()}/list`, { body: {}, auth: suite.viewer });
    expect(res.status).toBe(200);
    const page = RestoreAccountPage.parse(res.body);
    expect(page.accounts.length).toBeGreaterThanOrEqual(3);
    expect(page.totalCount).toBe(page.accounts.length);
    const providers = new Set(page.accounts.map((a) => a.restoreAccountAttributes.cloudProvider));
    expect([...providers].sort()).toEqual(['PROVIDER_A', 'PROVIDER_B', 'PROVIDER_C']);
    expect(page.accounts.filter((a) => !a.isRestoreAllowed)).toHaveLength(1);
  });

  test('list: filters, sorts and paging', async () => {
    const all = RestoreAccountPage.parse((await call('POST', `${restoreAccounts()}/list`)).body).accounts;
    const list = async (body: unknown, q = '') =>
      RestoreAccountPage.parse((await call('POST', `${restoreAccounts()}/list${q}`, { body })).body);
    const onlyC = await list({ filters: { cloudProvider: { in: ['PROVIDER_C'] } } });
    expect(onlyC.accounts.map((a) => a.restoreAccountAttributes.cloudProvider)).toEqual(['PROVIDER_C']);
    const named = await list({ filters: { accountName: { contains: ['locked'] } } });
    expect(named.accounts.map((a) => a.isRestoreAllowed)).toEqual([false]);
    const sorted = await list({ sorts: [{ field: 'name', order: 'ASC' }] });
    expect(sorted.accounts.map((a) => a.name)).toEqual(all.map((a) => a.name).sort());
    const page = await list({}, '?pageSize=1');
    expect(page.accounts).toEqual(all.slice(0, 1));
    expect(typeof page.nextToken).toBe('string');
  });

  test('get 200 {restoreAccount}; 404 unknown account or project; 401; 403', async () => {
    const all = RestoreAccountPage.parse((await call('POST', `${restoreAccounts()}/list`)).body).accounts;
    const first = all[0];
    if (!first) throw new Error('no restore account');
    const res = await expectGetAnswers('restore-accounts', first.id);
    expect(RestoreAccountBody.parse(res.body).restoreAccount).toEqual(first);
    expect((await call('POST', `${restoreAccounts()}/list`, { auth: null })).status).toBe(401);
    expect((await call('POST', `${restoreAccounts()}/list`, { auth: suite.unprivileged })).status).toBe(403);
  });
});
