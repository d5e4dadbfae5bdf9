// Conformance of roles, permissions, identity providers and IdP groups (docs/service-interface.md §7), over raw HTTP.
import { IdpGroupBody, IdpGroupPage, IdpPage, PermissionList, RoleBody, RolePage, type Role } from '../../api';
import { PERMISSIONS } from '../../simulator/permissions';
import { type RunningSimulator } from '../../simulator/server';
import {
  allPages,
  errorOf,
  expectAuthRefusals,
  type Method,
  type Reply,
  okBody,
  simulatorForSuite,
  suiteCall,
  tokenWithout,
  UNKNOWN_ID,
  expectBadRequest,
} from './helpers';

let sim: RunningSimulator;
let token: string;
/** A token whose credentials hold every permission except the ones these endpoints need. */
let unprivileged: string;

const call = suiteCall(() => ({ sim, token }));

async function createRole(name: string, grants = [{ permission: 'inventory.view' }]): Promise<Role> {
  const res = await call('POST', '/v1/roles', { body: { name, permissionGrants: grants } });
  expect(res.status).toBe(201);
  return RoleBody.parse(res.body).role;
}

async function builtIn(name: string): Promise<Role> {
  const res = await call('POST', '/v1/roles/list');
  const role = RolePage.parse(res.body).roles.find((r) => r.name === name);
  if (!role) throw new Error(`no built-in role ${name}`);
  return role;
}

async function firstIdpId(): Promise<string> {
  const idp = IdpPage.parse((await call('POST', '/v1/idps/list')).body).idps[0];
  if (!idp) throw new Error('no seeded identity provider');
  return idp.id;
}

simulatorForSuite({}, async (started, bootstrap) => {
  [sim, token] = [started, bootstrap];
  unprivileged = await tokenWithout(sim, ['roles.manage', 'idp_groups.manage']);
});

describe('GET /v1/permissions', () => {
  test('lists every permission type with its description and whether it takes conditions', async () => {
    const res = await call('GET', '/v1/permissions');
    expect(res.status).toBe(200);
    const { permissions } = PermissionList.parse(res.body);
    expect(permissions.map((p) => p.permissionType).sort()).toEqual(Object.keys(PERMISSIONS).sort());
    expect(permissions.find((p) => p.permissionType === 'inventory.view')).toMatchObject({ allowConditions: true });
    expect(permissions.find((p) => p.permissionType === 'roles.manage')).toMatchObject({ allowConditions: false });
    expect(permissions.every((p) => typeof p.description === 'string' && p.description.length > 0)).toBe(true);
  });

  test('401 without a token, 403 without roles.manage', async () => {
    await expectAuthRefusals(call, 'GET', '/v1/permissions', unprivileged);
  });
});

describe('roles', () => {
  test('built-in roles are seeded and listed first', async () => {
    const page = okBody(await call('POST', '/v1/roles/list', { body: {} }), RolePage);
    expect(page.roles.slice(0, 2).map((r) => [r.name, r.isBuiltInRole])).toEqual([
      ['Admin', true],
      ['Viewer', true],
    ]);
    expect(page.totalCount).toBe(page.roles.length);
    expect(page.nextToken).toBeNull();
  });

  test('create returns 201 {role} and the role can be read back', async () => {
    const res = await call('POST', '/v1/roles', {
      body: {
        name: 'Prod restorer',
        permissionGrants: [{ permission: 'resources.restore', accessConditionId: 'prod' }, { permission: 'jobs.view' }],
        accessConditions: [{ id: 'prod', effect: 'INCLUSIVE', expression: 'environment == "PROD"' }],
      },
    });
    expect(res.status).toBe(201);
    const role = RoleBody.parse(res.body).role;
    expect(role).toMatchObject({ name: 'Prod restorer', isBuiltInRole: false });
    expect(role.accessConditions).toHaveLength(1);
    const read = await call('GET', `/v1/roles/${role.id}`);
    expect(read.status).toBe(200);
    expect(RoleBody.parse(read.body).role).toEqual(role);
  });

  test('create: 409 when the name exists (case-insensitively)', async () => {
    await createRole('Auditors');
    const res = await call('POST', '/v1/roles', {
      body: { name: 'auditors', permissionGrants: [{ permission: 'jobs.view' }] },
    });
    expect(res.status).toBe(409);
    expect(errorOf(res)).toMatch(/already exists/);
  });

  test.each([
    ['a missing name', { permissionGrants: [{ permission: 'jobs.view' }] }, 'body.name'],
    ['no permissions', { name: 'Empty', permissionGrants: [] }, 'body.permissionGrants'],
    ['an unknown permission type', { name: 'X', permissionGrants: [{ permission: 'nope.view' }] }, 'permission'],
    [
      'a grant naming an unknown access condition',
      { name: 'X', permissionGrants: [{ permission: 'jobs.view', accessConditionId: 'c1' }] },
      'body.permissionGrants.0.accessConditionId',
    ],
    [
      'a condition on a permission that takes none',
      {
        name: 'X',
        permissionGrants: [{ permission: 'roles.manage', accessConditionId: 'c1' }],
        accessConditions: [{ id: 'c1', effect: 'EXCLUSIVE', expression: 'tag:env=dev' }],
      },
      'body.permissionGrants.0.accessConditionId',
    ],
    [
      'an unknown condition effect',
      {
        name: 'X',
        permissionGrants: [{ permission: 'jobs.view' }],
        accessConditions: [{ id: 'c1', effect: 'SOMETIMES', expression: 'x' }],
      },
      'body.accessConditions.0.effect',
    ],
  ])('create: 400 for %s, naming the field', async (_what, body, field) => {
    expectBadRequest(await call('POST', '/v1/roles', { body }), field);
  });

  test('create: 401 without a token, 403 without roles.manage', async () => {
    const body = { name: 'Nobody', permissionGrants: [{ permission: 'jobs.view' }] };
    expect((await call('POST', '/v1/roles', { body, auth: null })).status).toBe(401);
    expect((await call('POST', '/v1/roles', { body, auth: unprivileged })).status).toBe(403);
  });

  test('get: 404 for an unknown uuid and for a non-uuid; 401; 403', async () => {
    expect((await call('GET', `/v1/roles/${UNKNOWN_ID}`)).status).toBe(404);
    expect((await call('GET', '/v1/roles/not-a-uuid')).status).toBe(404);
    const admin = await builtIn('Admin');
    expect((await call('GET', `/v1/roles/${admin.id}`, { auth: null })).status).toBe(401);
    expect((await call('GET', `/v1/roles/${admin.id}`, { auth: unprivileged })).status).toBe(403);
  });

  test('put replaces the definition; 409 on a name clash; 400 on a bad body; 404 unknown', async () => {
    const role = await createRole('Operators');
    await createRole('Taken name');
    const body = { name: 'Operators v2', permissionGrants: [{ permission: 'snapshots.take_or_convert' }] };
    const res = await call('PUT', `/v1/roles/${role.id}`, { body });
    expect(res.status).toBe(200);
    expect(RoleBody.parse(res.body).role).toEqual({ id: role.id, isBuiltInRole: false, ...body });
    expect(RoleBody.parse((await call('GET', `/v1/roles/${role.id}`)).body).role.name).toBe('Operators v2');
    // Keeping its own name is no clash.
    expect((await call('PUT', `/v1/roles/${role.id}`, { body })).status).toBe(200);
    const clash = await call('PUT', `/v1/roles/${role.id}`, { body: { ...body, name: 'Taken name' } });
    expect(clash.status).toBe(409);
    const bad = await call('PUT', `/v1/roles/${role.id}`, { body: { name: 'Y', permissionGrants: [{}] } });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toContain('body.permissionGrants.0.permission');
    expect((await call('PUT', `/v1/roles/${UNKNOWN_ID}`, { body })).status).toBe(404);
    expect((await call('PUT', `/v1/roles/${role.id}`, { body, auth: null })).status).toBe(401);
    expect((await call('PUT', `/v1/roles/${role.id}`, { body, auth: unprivileged })).status).toBe(403);
  });

  test('built-in roles cannot be changed or deleted: 403', async () => {
    const viewer = await builtIn('Viewer');
    const body = { name: 'Viewer', permissionGrants: [{ permission: 'vaults.manage' }] };
    const put = await call('PUT', `/v1/roles/${viewer.id}`, { body });
    expect(put.status).toBe(403);
    expect(errorOf(put)).toMatch(/built-in/);
    expect((await call('DELETE', `/v1/roles/${viewer.id}`)).status).toBe(403);
    expect(RoleBody.parse((await call('GET', `/v1/roles/${viewer.id}`)).body).role).toEqual(viewer);
  });

  test('delete returns 204 with no body, then 404; 401; 403', async () => {
    const role = await createRole('Short-lived');
    expect((await call('DELETE', `/v1/roles/${role.id}`, { auth: null })).status).toBe(401);
    expect((await call('DELETE', `/v1/roles/${role.id}`, { auth: unprivileged })).status).toBe(403);
    const res = await call('DELETE', `/v1/roles/${role.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await call('GET', `/v1/roles/${role.id}`)).status).toBe(404);
    expect((await call('DELETE', `/v1/roles/${role.id}`)).status).toBe(404);
  });

  test('list pages with pageSize and an opaque nextToken', async () => {
    const all = RolePage.parse((await call('POST', '/v1/roles/list')).body).roles;
    const pages = await allPages(2, async (query) =>
      okBody(await call('POST', `/v1/roles/list${query}`, { body: {} }), RolePage),
    );
    for (const page of pages) {
      expect(page.roles.length).toBeLessThanOrEqual(2);
      expect(page.totalCount).toBe(all.length);
    }
    expect(pages.flatMap((page) => page.roles.map((r) => r.id))).toEqual(all.map((r) => r.id));
  });

  test('list: 400 for a bad pageSize or pageToken; 401; 403', async () => {
    for (const query of ['?pageSize=0', '?pageSize=ten', '?pageToken=garbage']) {
      const res = await call('POST', `/v1/roles/list${query}`);
      expect(res.status).toBe(400);
      expect(errorOf(res)).toMatch(/page(Size|Token)/);
    }
    await expectAuthRefusals(call, 'POST', '/v1/roles/list', unprivileged);
  });
});

// The public API declares no body on these lists: paging comes from the query. Older clients' `{}` still works.
describe('list calls with no request body', () => {
  /** A page's IDs and its next token, from the reply (which must be a 200). */
  type PageOf = (reply: Reply) => { ids: string[]; nextToken?: string | null };
  const lists: [string, PageOf][] = [
    ['/v1/roles/list', (r) => ({ ...okBody(r, RolePage), ids: okBody(r, RolePage).roles.map((x) => x.id) })],
    ['/v1/idps/list', (r) => ({ ...okBody(r, IdpPage), ids: okBody(r, IdpPage).idps.map((x) => x.id) })],
    [
      '/v1/idp-groups/list',
      (r) => ({ ...okBody(r, IdpGroupPage), ids: okBody(r, IdpGroupPage).groups.map((x) => x.id) }),
    ],
  ];

  beforeAll(async () => {
    // Two groups at least, so that their list pages too.
    const [idpId, viewer] = [await firstIdpId(), await builtIn('Viewer')];
    for (const providerGroupId of ['paged-1', 'paged-2']) {
      expect(
        (await call('POST', '/v1/idp-groups', { body: { idpId, providerGroupId, roleIds: [viewer.id] } })).status,
      ).toBe(201);
    }
  });

  test.each(lists)('%s pages from the query without a body, as with a JSON body', async (path, pageOf) => {
    const idsOf = async (body?: unknown) =>
      (await allPages(1, async (query) => pageOf(await call('POST', `${path}${query}`, { body })))).flatMap(
        (p) => p.ids,
      );
    const bodyless = await idsOf();
    expect(bodyless.length).toBeGreaterThanOrEqual(1);
    expect(await idsOf({})).toEqual(bodyless);
  });
});

describe('identity providers', () => {
  test('list returns the seeded providers', async () => {
    const page = okBody(await call('POST', '/v1/idps/list', { body: {} }), IdpPage);
    expect(page.idps.length).toBeGreaterThanOrEqual(1);
    expect(page.totalCount).toBe(page.idps.length);
    const one = IdpPage.parse((await call('POST', '/v1/idps/list?pageSize=1')).body);
    expect(one.idps).toEqual(page.idps.slice(0, 1));
    expect(typeof one.nextToken).toBe('string');
  });

  test('list: 401 without a token, 403 without idp_groups.manage', async () => {
    await expectAuthRefusals(call, 'POST', '/v1/idps/list', unprivileged);
  });
});

describe('IdP groups', () => {
  test('create 201 {group}; get, put (replaces roleIds), list and delete', async () => {
    const idpId = await firstIdpId();
    const [a, b, c] = [await createRole('Group role A'), await createRole('Group role B'), await createRole('C')];
    const created = await call('POST', '/v1/idp-groups', {
      body: { idpId, providerGroupId: 'sre-team', roleIds: [a.id, a.id, b.id], displayName: 'SRE' },
    });
    expect(created.status).toBe(201);
    const group = IdpGroupBody.parse(created.body).group;
    expect(group).toMatchObject({ idpId, providerGroupId: 'sre-team', roleIds: [a.id, b.id], displayName: 'SRE' });

    const read = await call('GET', `/v1/idp-groups/${group.id}`);
    expect(read.status).toBe(200);
    expect(IdpGroupBody.parse(read.body).group).toEqual(group);

    const put = await call('PUT', `/v1/idp-groups/${group.id}`, { body: { roleIds: [c.id] } });
    expect(put.status).toBe(200);
    expect(IdpGroupBody.parse(put.body).group).toEqual({ ...group, roleIds: [c.id] });

    const listed = IdpGroupPage.parse((await call('POST', '/v1/idp-groups/list', { body: {} })).body);
    expect(listed.groups.map((g) => g.id)).toContain(group.id);
    expect(listed.totalCount).toBe(listed.groups.length);

    // Deleting a role stops the group granting it.
    expect((await call('DELETE', `/v1/roles/${c.id}`)).status).toBe(204);
    expect(IdpGroupBody.parse((await call('GET', `/v1/idp-groups/${group.id}`)).body).group.roleIds).toEqual([]);

    const del = await call('DELETE', `/v1/idp-groups/${group.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await call('GET', `/v1/idp-groups/${group.id}`)).status).toBe(404);
    expect((await call('DELETE', `/v1/idp-groups/${group.id}`)).status).toBe(404);
  });

  test('create: 404 unknown identity provider; 409 group already mapped for that provider', async () => {
    const idpId = await firstIdpId();
    const admin = await builtIn('Admin');
    const body = { idpId, providerGroupId: 'dba-team', roleIds: [admin.id] };
    expect((await call('POST', '/v1/idp-groups', { body: { ...body, idpId: UNKNOWN_ID } })).status).toBe(404);
    expect((await call('POST', '/v1/idp-groups', { body })).status).toBe(201);
    const again = await call('POST', '/v1/idp-groups', { body });
    expect(again.status).toBe(409);
    expect(errorOf(again)).toMatch(/already mapped/);
    // The same provider group ID under another provider is another group.
    const idps = IdpPage.parse((await call('POST', '/v1/idps/list')).body).idps;
    const other = idps.find((i) => i.id !== idpId);
    if (!other) throw new Error('expected a second seeded identity provider');
    expect((await call('POST', '/v1/idp-groups', { body: { ...body, idpId: other.id } })).status).toBe(201);
  });

  test.each([
    ['a missing idpId', { providerGroupId: 'g', roleIds: [] }, 'body.idpId'],
    ['no roles', { providerGroupId: 'g', roleIds: [] }, 'body.roleIds'],
    ['an unknown role', { providerGroupId: 'g', roleIds: [UNKNOWN_ID] }, 'body.roleIds'],
  ])('create: 400 for %s', async (what, body, field) => {
    const full = what === 'a missing idpId' ? body : { ...body, idpId: await firstIdpId() };
    expectBadRequest(await call('POST', '/v1/idp-groups', { body: full }), field);
  });

  test('get, put and delete: 404 unknown; put: 400 for unknown roles', async () => {
    const admin = await builtIn('Admin');
    expect((await call('GET', `/v1/idp-groups/${UNKNOWN_ID}`)).status).toBe(404);
    expect((await call('PUT', `/v1/idp-groups/${UNKNOWN_ID}`, { body: { roleIds: [admin.id] } })).status).toBe(404);
    expect((await call('DELETE', `/v1/idp-groups/${UNKNOWN_ID}`)).status).toBe(404);
    const created = await call('POST', '/v1/idp-groups', {
      body: { idpId: await firstIdpId(), providerGroupId: 'put-400', roleIds: [admin.id], displayName: 'Kept' },
    });
    const group = IdpGroupBody.parse(created.body).group;
    const bad = await call('PUT', `/v1/idp-groups/${group.id}`, { body: { roleIds: [UNKNOWN_ID] } });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toContain('body.roleIds');
    const missing = await call('PUT', `/v1/idp-groups/${group.id}`, { body: {} });
    expect(missing.status).toBe(400);
    expect(errorOf(missing)).toContain('body.roleIds');
    // An omitted displayName is kept.
    const viewer = await builtIn('Viewer');
    const put = await call('PUT', `/v1/idp-groups/${group.id}`, { body: { roleIds: [viewer.id] } });
    expect(IdpGroupBody.parse(put.body).group.displayName).toBe('Kept');
  });

  test('every group call: 401 without a token, 403 without idp_groups.manage', async () => {
    const calls: [Method, string, unknown][] = [
      ['POST', '/v1/idp-groups', { idpId: UNKNOWN_ID, providerGroupId: 'g', roleIds: [UNKNOWN_ID] }],
      ['GET', `/v1/idp-groups/${UNKNOWN_ID}`, undefined],
      ['PUT', `/v1/idp-groups/${UNKNOWN_ID}`, { roleIds: [UNKNOWN_ID] }],
      ['DELETE', `/v1/idp-groups/${UNKNOWN_ID}`, undefined],
      ['POST', '/v1/idp-groups/list', {}],
    ];
    for (const [method, path, body] of calls) {
      expect([method, path, (await call(method, path, { body, auth: null })).status]).toEqual([method, path, 401]);
      expect([method, path, (await call(method, path, { body, auth: unprivileged })).status]).toEqual([
        method,
        path,
        403,
      ]);
    }
  });
});
