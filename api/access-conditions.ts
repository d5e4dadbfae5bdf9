import { ACCESS_CONDITION_EFFECTS } from './enums';
import { InvalidArgumentError } from './errors';
import type { AccessExpression, Role, RoleInput } from './schemas';

/**
 * Adding or removing one access condition on a role, for a read-change-write of the whole role (PUT replaces it).
 * Expressions compare by structure (a tree's key order does not matter), so that a condition read back from the
 * service is recognised as the one asked for, and adding it twice leaves the role as it was. Removing never widens
 * a grant: a grant still restricted by the condition is refused, or dropped with it when asked.
 */

type Effect = (typeof ACCESS_CONDITION_EFFECTS)[number];

export interface ConditionAsked {
  effect: Effect;
  expression: AccessExpression | null;
  /** The ID of a new condition; by default the first free `condition-<n>`. */
  id?: string;
}

/** Whether two expressions say the same: equal strings, or trees equal whatever the order of their keys. */
export function sameExpression(
  a: AccessExpression | null | undefined,
  b: AccessExpression | null | undefined,
): boolean {
  return canonical(a ?? null) === canonical(b ?? null);
}

/** The role as the create and update calls take it. A built-in role cannot be changed, so it is refused here. */
export function roleInputOf(role: Role | RoleInput): RoleInput {
  if ('isBuiltInRole' in role && role.isBuiltInRole) {
    throw new InvalidArgumentError('role', `${role.name} is a built-in role, which cannot be changed`);
  }
  const accessConditions = role.accessConditions?.map(({ id, effect, expression }) => {
    if (!(ACCESS_CONDITION_EFFECTS as readonly string[]).includes(effect)) {
      // Rewriting a condition this client cannot read could change what it means.
      throw new InvalidArgumentError(
        `role.accessConditions.${id}.effect`,
        `${effect} is not an effect this client knows`,
      );
    }
    return { id, effect: effect as Effect, expression };
  });
  return {
    name: role.name,
    permissionGrants: role.permissionGrants.map(({ permission, accessConditionId }) =>
      accessConditionId === undefined ? { permission } : { permission, accessConditionId },
    ),
    ...(accessConditions ? { accessConditions } : {}),
  };
}

/**
 * The role with the condition (reused when an equal one is there), and grants of `permissions` restricted by it
 * (each once). `added` says whether the role changed.
 */
export function withAccessCondition(
  role: Role | RoleInput,
  asked: ConditionAsked,
  permissions: readonly string[] = [],
): { role: RoleInput; conditionId: string; added: boolean } {
  const input = roleInputOf(role);
  const conditions = input.accessConditions ?? [];
  const existing = conditions.find((c) => c.effect === asked.effect && sameExpression(c.expression, asked.expression));
  let conditionId = existing?.id;
  let next = conditions;
  if (conditionId === undefined) {
    conditionId = asked.id ?? freeId(conditions.map((c) => c.id));
    if (conditions.some((c) => c.id === conditionId)) {
      throw new InvalidArgumentError('condition.id', `${conditionId} already names another access condition`);
    }
    next = [...conditions, { id: conditionId, effect: asked.effect, expression: asked.expression }];
  }
  const grants = [...input.permissionGrants];
  for (const permission of permissions) {
    if (!grants.some((g) => g.permission === permission && g.accessConditionId === conditionId)) {
      grants.push({ permission, accessConditionId: conditionId });
    }
  }
  const added = next !== conditions || grants.length !== input.permissionGrants.length;
  return { role: { ...input, permissionGrants: grants, accessConditions: next }, conditionId, added };
}

/**
 * The role without the conditions equal to `match` (of its effect, when given). A grant restricted by one of them
 * would apply to every resource once the condition is gone: it is refused, unless `dropGrants` removes such grants.
 */
export function withoutAccessCondition(
  role: Role | RoleInput,
  match: { expression: AccessExpression | null; effect?: Effect },
  options: { dropGrants?: boolean } = {},
): { role: RoleInput; removed: string[] } {
  const input = roleInputOf(role);
  const conditions = input.accessConditions ?? [];
  const matches = (c: (typeof conditions)[number]) =>
    (match.effect === undefined || c.effect === match.effect) && sameExpression(c.expression, match.expression);
  const removed = conditions.filter(matches).map((c) => c.id);
  if (removed.length === 0) return { role: input, removed };
  const restricted = input.permissionGrants.filter((g) => g.accessConditionId && removed.includes(g.accessConditionId));
  if (restricted.length > 0 && !options.dropGrants) {
    const names = restricted.map((g) => g.permission).join(', ');
    throw new InvalidArgumentError(
      'role.permissionGrants',
      `${names} ${restricted.length === 1 ? 'is' : 'are'} restricted by the condition; without it they would apply to ` +
        'every resource: drop them too (dropGrants) or change them first',
    );
  }
  const permissionGrants = input.permissionGrants.filter((g) => !restricted.includes(g));
  if (permissionGrants.length === 0) {
    throw new InvalidArgumentError(
      'role.permissionGrants',
      'removing the condition would leave the role no permission',
    );
  }
  return { role: { ...input, permissionGrants, accessConditions: conditions.filter((c) => !matches(c)) }, removed };
}

function freeId(taken: readonly string[]): string {
  for (let n = 1; ; n++) if (!taken.includes(`condition-${n}`)) return `condition-${n}`;
}

/** JSON with every object's keys sorted; absent (undefined) members are left out, as JSON leaves them. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
