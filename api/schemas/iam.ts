import { z } from 'zod';
import { ACCESS_CONDITION_EFFECTS, openEnum } from '../enums';
import { AccessExpressionInput, AccessExpressionRecord } from './access-expression';
import { pageOf, readerOf, record } from './common';

export const PermissionDocument = record({
  permissionType: z.string(),
  description: z.string().optional(),
  allowConditions: z.boolean().optional(),
});
/** Doctor reads a permission's type (the catalogue check); the rest is tolerant. */
export const Permission = readerOf(PermissionDocument, ['description', 'allowConditions']);
export type Permission = z.infer<typeof Permission>;
export const PermissionList = record({ permissions: z.array(Permission) });

export const AccessCondition = record({
  id: z.string(),
  effect: openEnum(ACCESS_CONDITION_EFFECTS),
  expression: AccessExpressionRecord,
});
export type AccessCondition = z.infer<typeof AccessCondition>;
const PermissionGrant = record({ permission: z.string(), accessConditionId: z.string().optional() });

/**
 * No runbook reads a role, but the client's read-change-write of a role writes it back whole (`roleInputOf`,
 * api/access-conditions.ts; PUT replaces the role): a grant or condition dropped here would be one removed there. And a
 * role's ID is what every call on it takes. So a role stays checked.
 */
export const Role = record({
  id: z.string(),
  name: z.string(),
  isBuiltInRole: z.boolean(),
  permissionGrants: z.array(PermissionGrant),
  accessConditions: z.array(AccessCondition).optional(),
});
export type Role = z.infer<typeof Role>;

export const RoleInput = z
  .strictObject({
    name: z.string().min(1),
    permissionGrants: z
      .array(z.strictObject({ permission: z.string().min(1), accessConditionId: z.string().min(1).optional() }))
      .min(1, 'a role needs at least one permission'),
    accessConditions: z
      .array(
        z.strictObject({
          id: z.string().min(1),
          effect: z.enum(ACCESS_CONDITION_EFFECTS),
          expression: AccessExpressionInput,
        }),
      )
      .optional(),
  })
  .superRefine((role, ctx) => {
    const known = new Set((role.accessConditions ?? []).map((c) => c.id));
    role.permissionGrants.forEach((grant, i) => {
      if (grant.accessConditionId && !known.has(grant.accessConditionId)) {
        ctx.addIssue({
          code: 'custom',
          path: ['permissionGrants', i, 'accessConditionId'],
          message: 'names no access condition of this role',
        });
      }
    });
  });
export type RoleInput = z.infer<typeof RoleInput>;

export const RoleBody = record({ role: Role });
export const RolePage = pageOf('roles', Role);

export const IdentityProviderDocument = record({ id: z.string(), providerName: z.string() });
export type IdentityProviderDocument = z.infer<typeof IdentityProviderDocument>;
/** No runbook reads an identity provider; its ID is what a group names it by. The rest is tolerant. */
export const IdentityProvider = readerOf(IdentityProviderDocument, ['providerName']);
export type IdentityProvider = z.infer<typeof IdentityProvider>;
export const IdpPage = pageOf('idps', IdentityProvider);

export const IdpGroupDocument = record({
  id: z.string(),
  idpId: z.string(),
  providerGroupId: z.string(),
  roleIds: z.array(z.string()),
  displayName: z.string().optional(),
});
export type IdpGroupDocument = z.infer<typeof IdpGroupDocument>;
/**
 * No runbook reads an IdP group (an update replaces its roles, never read back); its ID is what every call on it takes.
 * The rest is tolerant.
 */
export const IdpGroup = readerOf(IdpGroupDocument, ['idpId', 'providerGroupId', 'roleIds', 'displayName']);
export type IdpGroup = z.infer<typeof IdpGroup>;
export const IdpGroupInput = z.strictObject({
  idpId: z.string().min(1),
  providerGroupId: z.string().min(1),
  roleIds: z.array(z.string().min(1)),
  displayName: z.string().optional(),
});
export type IdpGroupInput = z.infer<typeof IdpGroupInput>;
/** A group's identity provider and provider group never change: only its roles and name. */
export const IdpGroupUpdate = IdpGroupInput.omit({ idpId: true, providerGroupId: true });
export type IdpGroupUpdate = z.infer<typeof IdpGroupUpdate>;
export const IdpGroupBody = record({ group: IdpGroup });
export const IdpGroupPage = pageOf('groups', IdpGroup);
