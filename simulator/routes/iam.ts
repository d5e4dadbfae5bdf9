import { IdpGroupInput, IdpGroupUpdate, RoleInput, type IdpGroupDocument as IdpGroup, type Role } from '../../api';
import type { FastifyRequest } from 'fastify';
import type { SimContext, SimModule } from '../context';
import { SimError, conflict, forbidden, notFound, parse } from '../errors';
import type { SimState } from '../model';
import { paginate } from '../paging';
import { ALL_PERMISSIONS, PERMISSIONS, type PermissionType } from '../permissions';
import { pageQuery } from './accounts';

type RoleParams = { Params: { roleId: string } };
type GroupParams = { Params: { groupId: string } };

/** Permissions that can be narrowed by an access condition: the ones that act on resources. */
const CONDITIONAL_PERMISSIONS: ReadonlySet<string> = new Set([
  'inventory.view',
  'jobs.view',
  'snapshots.take_or_convert',
  'resources.restore',
  'files.restore',
  'databases.query',
]);

const BUILT_IN_ROLES: { name: string; permissions: readonly PermissionType[] }[] = [
  { name: 'Admin', permissions: ALL_PERMISSIONS },
  { name: 'Viewer', permissions: ['inventory.view', 'jobs.view', 'cost_explorer.view'] },
  {
    name: 'Restore Operator',
    permissions: ['inventory.view', 'jobs.view', 'resources.restore', 'files.restore', 'mpa_requests.manage'],
  },
];

/** Roles, permissions, identity providers and IdP group mappings (docs/service-interface.md §7). */
export const iamModule: SimModule = {
  name: 'iam',
  seed(state, random) {
    for (const role of BUILT_IN_ROLES) {
      const id = random.uuid();
      state.roles[id] = {
        id,
        name: role.name,
        isBuiltInRole: true,
        permissionGrants: role.permissions.map((permission) => ({ permission })),
      };
    }
    for (const providerName of ['Corporate SAML', 'Contractors SAML']) {
      const id = random.uuid();
      state.idps[id] = { id, providerName };
    }
  },
  routes(app, ctx) {
    app.get('/v1/permissions', async (req) => {
      ctx.authorize(req, 'roles.manage');
      return {
        permissions: ALL_PERMISSIONS.map((permissionType) => ({
          permissionType,
          description: PERMISSIONS[permissionType],
          allowConditions: CONDITIONAL_PERMISSIONS.has(permissionType),
        })),
      };
    });

    app.post('/v1/roles', async (req, reply) => {
      ctx.authorize(req, 'roles.manage');
      const input = roleInput(req.body);
      requireUniqueName(ctx.state, input.name);
      const role: Role = { id: ctx.newId(), isBuiltInRole: false, ...input };
      ctx.state.roles[role.id] = role;
      return reply.code(201).send({ role });
    });

    app.get<RoleParams>('/v1/roles/:roleId', async (req) => ({ role: roleOf(ctx, req) }));

    app.put<RoleParams>('/v1/roles/:roleId', async (req) => {
      const role = changeable(roleOf(ctx, req));
      const input = roleInput(req.body);
      requireUniqueName(ctx.state, input.name, role.id);
      const updated: Role = { id: role.id, isBuiltInRole: false, ...input };
      ctx.state.roles[role.id] = updated;
      syncCredentials(ctx, updated);
      return { role: updated };
    });

    app.delete<RoleParams>('/v1/roles/:roleId', async (req, reply) => {
      const role = changeable(roleOf(ctx, req));
      delete ctx.state.roles[role.id];
      // A group keeps its other roles; membership simply stops granting this one.
      for (const group of Object.values(ctx.state.idpGroups)) {
        group.roleIds = group.roleIds.filter((id) => id !== role.id);
      }
      return reply.code(204).send();
    });

    app.post('/v1/roles/list', async (req) => {
      ctx.authorize(req, 'roles.manage');
      const page = paginate(Object.values(ctx.state.roles), pageQuery(req.query), 50, 'roles');
      return { roles: page.items, totalCount: page.totalCount, nextToken: page.nextToken };
    });

    app.post('/v1/idps/list', async (req) => {
      ctx.authorize(req, 'idp_groups.manage');
      const page = paginate(Object.values(ctx.state.idps), pageQuery(req.query), 50, 'idps');
      return { idps: page.items, totalCount: page.totalCount, nextToken: page.nextToken };
    });

    groupRoutes(app, ctx);
  },
};

function groupRoutes(app: Parameters<SimModule['routes']>[0], ctx: SimContext): void {
  app.post('/v1/idp-groups', async (req, reply) => {
    ctx.authorize(req, 'idp_groups.manage');
    const input = parse(IdpGroupInput, req.body, 'body');
    if (!ctx.state.idps[input.idpId]) throw notFound(`identity provider ${input.idpId}`);
    const roleIds = knownRoleIds(ctx.state, input.roleIds);
    const taken = Object.values(ctx.state.idpGroups).some(
      (g) => g.idpId === input.idpId && g.providerGroupId === input.providerGroupId,
    );
    if (taken) throw conflict(`group ${input.providerGroupId} is already mapped for identity provider ${input.idpId}`);
    const group: IdpGroup = {
      id: ctx.newId(),
      idpId: input.idpId,
      providerGroupId: input.providerGroupId,
      roleIds,
      ...(input.displayName !== undefined ? { displayName: input.displayName } : {}),
    };
    ctx.state.idpGroups[group.id] = group;
    return reply.code(201).send({ group });
  });

  app.get<GroupParams>('/v1/idp-groups/:groupId', async (req) => ({ group: groupOf(ctx, req) }));

  app.put<GroupParams>('/v1/idp-groups/:groupId', async (req) => {
    const group = groupOf(ctx, req);
    const input = parse(IdpGroupUpdate, req.body, 'body');
    group.roleIds = knownRoleIds(ctx.state, input.roleIds);
    if (input.displayName !== undefined) group.displayName = input.displayName;
    return { group };
  });

  app.delete<GroupParams>('/v1/idp-groups/:groupId', async (req, reply) => {
    delete ctx.state.idpGroups[groupOf(ctx, req).id];
    return reply.code(204).send();
  });

  app.post('/v1/idp-groups/list', async (req) => {
    ctx.authorize(req, 'idp_groups.manage');
    const page = paginate(Object.values(ctx.state.idpGroups), pageQuery(req.query), 50, 'groups');
    return { groups: page.items, totalCount: page.totalCount, nextToken: page.nextToken };
  });
}

/** The shared schema, plus what only the service knows: which permission types exist and which take conditions. */
function roleInput(body: unknown): RoleInput {
  const input = parse(RoleInput, body, 'body');
  input.permissionGrants.forEach((grant, i) => {
    const where = `body.permissionGrants.${i}`;
    if (!(grant.permission in PERMISSIONS)) {
      throw new SimError(400, `invalid ${where}.permission: unknown permission type ${grant.permission}`);
    }
    if (grant.accessConditionId && !CONDITIONAL_PERMISSIONS.has(grant.permission)) {
      throw new SimError(400, `invalid ${where}.accessConditionId: ${grant.permission} takes no access condition`);
    }
  });
  const ids = (input.accessConditions ?? []).map((c) => c.id);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate) throw new SimError(400, `invalid body.accessConditions: duplicate id ${duplicate}`);
  return input;
}

function requireUniqueName(state: SimState, name: string, exceptId?: string): void {
  const wanted = name.trim().toLowerCase();
  const clash = Object.values(state.roles).some((r) => r.id !== exceptId && r.name.trim().toLowerCase() === wanted);
  if (clash) throw conflict(`a role named ${name} already exists`);
}

/** The role a route names, once the caller is allowed to manage roles. */
function roleOf(ctx: SimContext, req: FastifyRequest<RoleParams>): Role {
  ctx.authorize(req, 'roles.manage');
  const role = ctx.state.roles[req.params.roleId];
  if (!role) throw notFound(`role ${req.params.roleId}`);
  return role;
}

function changeable(role: Role): Role {
  if (role.isBuiltInRole) throw forbidden(`built-in role ${role.name} cannot be changed or deleted`);
  return role;
}

/** The IdP group a route names, once the caller is allowed to manage groups. */
function groupOf(ctx: SimContext, req: FastifyRequest<GroupParams>): IdpGroup {
  ctx.authorize(req, 'idp_groups.manage');
  const group = ctx.state.idpGroups[req.params.groupId];
  if (!group) throw notFound(`IdP group ${req.params.groupId}`);
  return group;
}

/** A mapping grants one or more existing roles; a repeated id counts once. */
function knownRoleIds(state: SimState, roleIds: readonly string[]): string[] {
  if (roleIds.length === 0) throw new SimError(400, 'invalid body.roleIds: map the group to at least one role');
  const unknown = roleIds.find((id) => !state.roles[id]);
  if (unknown) throw new SimError(400, `invalid body.roleIds: unknown role ${unknown}`);
  return [...new Set(roleIds)];
}

/** Credentials bound to a role carry its permissions, so a role change reaches them at once. */
function syncCredentials(ctx: SimContext, role: Role): void {
  const granted = role.permissionGrants.map((g) => g.permission).filter((p) => p in PERMISSIONS);
  for (const credentials of Object.values(ctx.state.credentials)) {
    if (credentials.roleId === role.id) credentials.permissions = [...new Set(granted)];
  }
}
