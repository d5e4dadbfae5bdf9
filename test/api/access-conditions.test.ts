// Adding and removing an access condition on a role, with expressions compared by structure.
import { roleInputOf, sameExpression, withAccessCondition, withoutAccessCondition } from '../../api/access-conditions';
import { InvalidArgumentError } from '../../api/errors';
import type { AccessExpression, Role } from '../../api/schemas';
import { role as neutralRole } from './helpers';

const prodAws: AccessExpression = {
  group: {
    operator: 'AND',
    operands: [
      { environment: { operator: 'IN', environments: ['PROD'] } },
      { cloudProvider: { operator: 'IN', cloudProviders: ['AWS'] } },
    ],
  },
};
/** The same tree as the service might write it back: every object's keys in another order. */
const prodAwsReordered: AccessExpression = JSON.parse(
  '{"group":{"operands":[{"environment":{"environments":["PROD"],"operator":"IN"}},' +
    '{"cloudProvider":{"cloudProviders":["AWS"],"operator":"IN"}}],"operator":"AND"}}',
) as AccessExpression;

function publicRole(): Role {
  return {
    id: 'role-7',
    name: 'Prod restorers',
    isBuiltInRole: false,
    permissionGrants: [{ permission: 'resources.restore', accessConditionId: 'ac-1' }, { permission: 'jobs.view' }],
    accessConditions: [{ id: 'ac-1', effect: 'INCLUSIVE', expression: prodAwsReordered }],
  };
}

test('expressions compare by structure: key order does not matter, values and array order do', () => {
  expect(sameExpression(prodAws, prodAwsReordered)).toBe(true);
  expect(
    sameExpression({ vpc: { operator: 'IN', vpcs: ['a', 'b'] } }, { vpc: { vpcs: ['a', 'b'], operator: 'IN' } }),
  ).toBe(true);
  expect(sameExpression({ vpc: { operator: 'IN', vpcs: ['a'] } }, { vpc: { operator: 'NOT_IN', vpcs: ['a'] } })).toBe(
    false,
  );
  expect(
    sameExpression({ vpc: { operator: 'IN', vpcs: ['a', 'b'] } }, { vpc: { operator: 'IN', vpcs: ['b', 'a'] } }),
  ).toBe(false);
  expect(sameExpression('resource.environment == "PROD"', 'resource.environment == "PROD"')).toBe(true);
  expect(sameExpression('a', { a: 1 })).toBe(false);
  expect(sameExpression(null, undefined)).toBe(true);
});

test('adding a condition the role already has (written in another key order) changes nothing', () => {
  const { role, conditionId, added } = withAccessCondition(publicRole(), { effect: 'INCLUSIVE', expression: prodAws }, [
    'resources.restore',
  ]);
  expect(added).toBe(false);
  expect(conditionId).toBe('ac-1');
  expect(role).toEqual(roleInputOf(publicRole()));
});

test('adding a new condition gives it a free ID and restricts the named permissions with it, once each', () => {
  const expression = { tagKeyValues: { operator: 'CONTAINS_ANY_OF', tagKeyValues: ['team=db'] } };
  const first = withAccessCondition(publicRole(), { effect: 'EXCLUSIVE', expression }, ['inventory.view']);
  expect(first.added).toBe(true);
  expect(first.conditionId).toBe('condition-1');
  expect(first.role.accessConditions).toEqual([
    { id: 'ac-1', effect: 'INCLUSIVE', expression: prodAwsReordered },
    { id: 'condition-1', effect: 'EXCLUSIVE', expression },
  ]);
  expect(first.role.permissionGrants).toContainEqual({
    permission: 'inventory.view',
    accessConditionId: 'condition-1',
  });
  // The same again, with the keys reordered: nothing more.
  const again = withAccessCondition(
    first.role,
    { effect: 'EXCLUSIVE', expression: { tagKeyValues: { tagKeyValues: ['team=db'], operator: 'CONTAINS_ANY_OF' } } },
    ['inventory.view'],
  );
  expect(again.added).toBe(false);
  expect(again.role).toEqual(first.role);
  // The same expression with the other effect is another condition.
  expect(withAccessCondition(publicRole(), { effect: 'EXCLUSIVE', expression: prodAws }).added).toBe(true);
});

test('a given ID that already names another condition is refused', () => {
  const asked = { effect: 'INCLUSIVE' as const, expression: { vpc: { operator: 'IN', vpcs: ['x'] } }, id: 'ac-1' };
  expect(() => withAccessCondition(publicRole(), asked)).toThrow(InvalidArgumentError);
});

test('removing a condition still restricting a grant is refused: the grant would widen to every resource', () => {
  const err = (() => {
    try {
      withoutAccessCondition(publicRole(), { expression: prodAws });
    } catch (caught) {
      return caught;
    }
    return undefined;
  })();
  expect(err).toBeInstanceOf(InvalidArgumentError);
  expect((err as Error).message).toContain('resources.restore');
});

test('removing with dropGrants drops the condition (found structurally) and the grants it restricted', () => {
  const { role, removed } = withoutAccessCondition(
    publicRole(),
    { expression: prodAws, effect: 'INCLUSIVE' },
    {
      dropGrants: true,
    },
  );
  expect(removed).toEqual(['ac-1']);
  expect(role).toEqual({
    name: 'Prod restorers',
    permissionGrants: [{ permission: 'jobs.view' }],
    accessConditions: [],
  });
});

test('removing a condition the role does not have changes nothing; the other effect does not match', () => {
  const other = withoutAccessCondition(publicRole(), { expression: { vpc: { operator: 'IN', vpcs: ['x'] } } });
  expect(other).toEqual({ role: roleInputOf(publicRole()), removed: [] });
  expect(withoutAccessCondition(publicRole(), { expression: prodAws, effect: 'EXCLUSIVE' }).removed).toEqual([]);
});

test('an unused condition is removed without touching the grants; string expressions work alike', () => {
  const neutral = neutralRole();
  const added = withAccessCondition(neutral, { effect: 'EXCLUSIVE', expression: 'resource.tags.team == "db"' });
  const { role, removed } = withoutAccessCondition(added.role, { expression: 'resource.tags.team == "db"' });
  expect(removed).toEqual([added.conditionId]);
  expect(role).toEqual(roleInputOf(neutral));
});

test('a built-in role, or one with an effect this client does not know, is never rewritten', () => {
  expect(() => roleInputOf({ ...publicRole(), isBuiltInRole: true })).toThrow(/built-in/);
  const odd = { ...publicRole(), accessConditions: [{ id: 'ac-1', effect: 'EFFECT_UNSPECIFIED', expression: null }] };
  expect(() => withAccessCondition(odd, { effect: 'INCLUSIVE', expression: prodAws })).toThrow(InvalidArgumentError);
});

test('a null expression (the public document allows it) is kept as it is', () => {
  const withNull = { ...publicRole(), accessConditions: [{ id: 'ac-1', effect: 'INCLUSIVE', expression: null }] };
  expect(roleInputOf(withNull).accessConditions).toEqual([{ id: 'ac-1', effect: 'INCLUSIVE', expression: null }]);
});
