import { z } from 'zod';
import { ACCESS_CONDITION_EFFECTS, openEnum } from '../enums';
import { AccessExpressionInput, AccessExpressionRecord } from './access-expression';
import { pageOf, record } from './common';

export const Permission = record({
  permissionType: z.string(),
  description: z.string().optional(),
  allowConditions: z.boolean().optional(),
});
export type Permission = z.infer<typeof Permission>;
export const PermissionList = record({ permissions: z.array(Permission) });

export const AccessCondition = record({
  id: z.string(),
  effect: openEnum(ACCESS_CONDITION_EFFECTS),
  expression: AccessExpressionRecord,
});
export type AccessCondition = z.infer<typeof AccessCondition>;
const PermissionGrant = record({ permission: z.string(), accessConditionId: z.string().optional() });

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

export const IdentityProvider = record({ id: z.string(), providerName: z.string() });
export type IdentityProvider = z.infer<typeof IdentityProvider>;
export const IdpPage = pageOf('idps', IdentityProvider);

export const IdpGroup = record({
  id: z.string(),
  idpId: z.string(),
  providerGroupId: z.string(),
  roleIds: z.array(z.string()),
  displayName: z.string().optional(),
});
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
