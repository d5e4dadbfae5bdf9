import type { ResourceType } from '../../api/enums';
import { DEFAULT_MAX_RESOURCES, DrDrillInput, drDrillContract } from './contract';
import {
  meetsConditions,
  selectIds,
  serverFiltersOf,
  tagConditionHolds,
  type SelectableResource,
  type Selection,
  type TagCondition,
} from './selection';

const BASE = {
  name: 'selection-test',
  vaultId: 'vault-1',
  restoreAccountId: 'restore-acct-1',
  destination: { amazonBucket: { bucketName: 'drills' } },
  targets: { rpoSeconds: 86400, rtoSeconds: 3600 },
};

/** The issues a resources input is refused with, as `path: message`. */
function refusals(resources: unknown): string[] {
  const parsed = DrDrillInput.safeParse({ ...BASE, resources });
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

const resourcesOf = (resources: unknown) => {
  const parsed = DrDrillInput.safeParse({ ...BASE, resources });
  if (!parsed.success) throw new Error(parsed.error.message);
  return parsed.data.resources;
};

describe('the selection schema', () => {
  test.each<[string, unknown]>([
    ['a tag equals', { tags: [{ key: 'env', equals: 'prod' }] }],
    ['a tag any of', { tags: [{ key: 'tier', anyOf: ['1', '2'] }] }],
    ['a tag exists', { tags: [{ key: 'backup', exists: true }] }],
    ['a tag absent', { tags: [{ key: 'backup', exists: false }] }],
    ['a tag not equal', { tags: [{ key: 'legacy', not: { equals: 'yes' } }] }],
    ['a tag not any of', { tags: [{ key: 'legacy', not: { anyOf: ['yes', 'true'] } }] }],
    ['a tag with an empty value', { tags: [{ key: 'backup', equals: '' }] }],
    [
      'two conditions on one key',
      {
        tags: [
          { key: 'env', exists: true },
          { key: 'env', not: { equals: 'dev' } },
        ],
      },
    ],
    ['resource types of either dialect', { resourceTypes: ['PA_VM', 'AWS_RDS'] }],
    ['accounts', { accounts: ['123456789012'] }],
    ['regions', { regions: ['pa-east-1'] }],
    ['environments', { environments: ['PROD', 'STAGE'] }],
    ['include alone', { include: ['res-1'] }],
    ['all', { all: true }],
    ['all with include and exclude', { all: true, include: ['res-1'], exclude: ['res-2'] }],
    ['every condition', drDrillContract.examples?.selection?.resources],
  ])('takes %s', (_name, resources) => {
    expect(refusals(resources)).toEqual([]);
  });

  test.each<[string, unknown, string]>([
    [
      'an empty condition',
      { tags: [{ key: 'env' }] },
      'resources.tags.0: an empty condition: give equals, anyOf, exists or not',
    ],
    [
      'equals and anyOf on one tag',
      { tags: [{ key: 'env', equals: 'prod', anyOf: ['prod'] }] },
      'resources.tags.0.anyOf: give equals or anyOf, not both',
    ],
    [
      'two tests on one tag',
      { tags: [{ key: 'env', exists: true, not: { equals: 'dev' } }] },
      'resources.tags.0.not: one test per condition: equals, anyOf, exists or not (two conditions on one key are both required)',
    ],
    [
      'an empty not',
      { tags: [{ key: 'env', not: {} }] },
      'resources.tags.0.not: an empty test: give equals, anyOf or exists',
    ],
    [
      'equals and anyOf under not',
      { tags: [{ key: 'env', not: { equals: 'a', anyOf: ['b'] } }] },
      'resources.tags.0.not.anyOf: give equals or anyOf, not both',
    ],
    ['a blank key', { tags: [{ key: ' ', exists: true }] }, 'resources.tags.0.key: must not be blank'],
    [
      'an empty anyOf',
      { tags: [{ key: 'tier', anyOf: [] }] },
      'resources.tags.0.anyOf: an empty anyOf matches nothing: give at least one value',
    ],
    [
      'an anyOf naming a value twice',
      { tags: [{ key: 'tier', anyOf: ['1', '1'] }] },
      'resources.tags.0.anyOf: names a value twice',
    ],
    ['an empty tags list', { tags: [] }, 'resources.tags: an empty list selects nothing: leave tags out'],
    [
      'an empty list of regions',
      { regions: [] },
      'resources.regions: an empty list selects nothing: leave regions out',
    ],
    ['a region twice', { regions: ['pa-east-1', 'pa-east-1'] }, 'resources.regions: names a region twice'],
    [
      'include and exclude naming one ID',
      { include: ['res-1', 'res-2'], exclude: ['res-2'] },
      'resources.exclude: names a resource that include names too: an ID is either always in or always out',
    ],
    [
      'exclude alone',
      { exclude: ['res-2'] },
      'resources: a selection takes all: true, a condition (tags, resourceTypes, accounts, regions, environments) or include',
    ],
    [
      'all with a condition',
      { all: true, regions: ['pa-east-1'] },
      'resources.all: all takes every protected resource: give it without conditions (tags, resourceTypes, accounts, regions, environments), or the conditions without it',
    ],
    [
      'a selection with ids',
      { ids: ['res-1'], include: ['res-2'] },
      'resources.ids: a selection (all, tags, resourceTypes, …, include, exclude) stands alone: not with ids or filters',
    ],
    [
      'a selection with filters',
      { filters: { environment: { in: ['PROD'] } }, regions: ['pa-east-1'] },
      'resources.ids: a selection (all, tags, resourceTypes, …, include, exclude) stands alone: not with ids or filters',
    ],
    ['a misspelt member', { tag: [{ key: 'env', exists: true }] }, "resources: unknown field (did you mean 'tags'?)"],
    [
      'a maxResources too large',
      { all: true, maxResources: 5001 },
      'resources.maxResources: Too big: expected number to be <=5000',
    ],
  ])('refuses %s, naming the path', (_name, resources, refusal) => {
    expect(refusals(resources)).toContain(refusal);
  });

  test('a value no enum knows is refused, naming the path', () => {
    expect(refusals({ resourceTypes: ['PA_VMM'] })).toEqual([
      "resources.resourceTypes.0: unknown value 'PA_VMM' (did you mean 'PA_VM'?); a value the service added after this release needs allowUnknownValues: true",
    ]);
    expect(refusals({ environments: ['PRODUCTION'] })[0]).toMatch(/^resources\.environments\.0: /);
    expect(refusals({ all: false })[0]).toMatch(/^resources\.all: /);
  });

  test('a selection is bounded by maxResources, 25 unless given, as filters are; ids are not', () => {
    expect(resourcesOf({ all: true })).toEqual({ all: true, maxResources: DEFAULT_MAX_RESOURCES });
    expect(resourcesOf({ include: ['a'], maxResources: 300 })).toEqual({ include: ['a'], maxResources: 300 });
    expect(resourcesOf({ ids: ['a'] })).toEqual({ ids: ['a'] });
    expect(resourcesOf({ filters: { accountId: { in: ['1'] } } })).toMatchObject({ maxResources: 25 });
  });

  test('the earlier forms keep their refusals', () => {
    expect(refusals({})).toContain('resources: give resource ids, inventory filters or a selection');
    expect(refusals({ ids: ['a'], filters: {} })).toContain(
      'resources.filters: give resource ids or inventory filters, not both',
    );
    expect(refusals({ ids: ['a', 'a'] })).toContain('resources.ids: names a resource twice');
    expect(refusals({ ids: ['a'], maxResources: 3 })).toContain(
      'resources.maxResources: bounds a selection by filters only, or by conditions (ids name every resource already)',
    );
  });
});

/** A resource of the inventory; `tags` and the rest as given. */
function resource(id: string, over: Partial<SelectableResource> & { environment?: string } = {}): SelectableResource {
  const { environment, ...rest } = over;
  return {
    id,
    resourceType: 'PA_VM',
    providerAccountId: '111111111111',
    region: 'pa-east-1',
    backupStatus: 'PROTECTED',
    tags: {},
    ...(environment === undefined ? {} : { classifications: { environmentDetails: { environment } } }),
    ...rest,
  };
}

describe('a tag condition', () => {
  const tags = { env: 'prod', tier: '1', backup: '', owner: 'Ops' };
  test.each<[TagCondition, boolean]>([
    [{ key: 'env', equals: 'prod' }, true],
    [{ key: 'env', equals: 'Prod' }, false], // case-sensitive
    [{ key: 'env', equals: 'stage' }, false],
    [{ key: 'missing', equals: 'prod' }, false],
    [{ key: 'backup', equals: '' }, true],
    [{ key: 'tier', anyOf: ['1', '2'] }, true],
    [{ key: 'tier', anyOf: ['2', '3'] }, false],
    [{ key: 'missing', anyOf: ['1'] }, false],
    [{ key: 'backup', exists: true }, true],
    [{ key: 'missing', exists: true }, false],
    [{ key: 'missing', exists: false }, true],
    [{ key: 'backup', exists: false }, false],
    [{ key: 'env', not: { equals: 'prod' } }, false],
    [{ key: 'env', not: { equals: 'dev' } }, true],
    [{ key: 'missing', not: { equals: 'yes' } }, true], // no tag: not equal
    [{ key: 'tier', not: { anyOf: ['1', '2'] } }, false],
    [{ key: 'tier', not: { anyOf: ['3'] } }, true],
    [{ key: 'missing', not: { anyOf: ['3'] } }, true],
    [{ key: 'backup', not: { exists: true } }, false],
    [{ key: 'missing', not: { exists: true } }, true],
    [{ key: 'missing', not: { exists: false } }, false],
    [{ key: 'toString', exists: true }, false], // not an inherited property
  ])('%j holds: %s', (condition, holds) => {
    expect(tagConditionHolds(tags, condition)).toBe(holds);
  });
});

describe('matching resources against a selection', () => {
  const estate: SelectableResource[] = [
    resource('r-05', { tags: { env: 'prod', tier: '1', backup: 'daily' }, environment: 'PROD' }),
    resource('r-01', { tags: { env: 'prod', tier: '2' }, environment: 'PROD', resourceType: 'PA_RELATIONAL_DB' }),
    resource('r-03', { tags: { env: 'stage', tier: '1' }, environment: 'STAGE', region: 'pa-west-2' }),
    resource('r-02', { tags: { env: 'prod', tier: '3', legacy: 'yes' }, environment: 'PROD', providerAccountId: '2' }),
    resource('r-04', { tags: { env: 'prod', legacy: 'no' }, backupStatus: 'NOT_BACKED_UP' }),
    resource('r-10', { tags: undefined, resourceType: 'PB_VM', region: 'pb-north' }),
    resource('r-09', { tags: { tier: '1' }, backupStatus: 'VIOLATIONS_DETECTED', environment: 'PROD_INTERNAL' }),
  ];

  test.each<[string, Selection, string[]]>([
    ['env equals prod', { tags: [{ key: 'env', equals: 'prod' }] }, ['r-01', 'r-02', 'r-04', 'r-05']],
    ['tier 1 or 2', { tags: [{ key: 'tier', anyOf: ['1', '2'] }] }, ['r-01', 'r-03', 'r-05', 'r-09']],
    ['has a backup tag', { tags: [{ key: 'backup', exists: true }] }, ['r-05']],
    ['has no env tag', { tags: [{ key: 'env', exists: false }] }, ['r-09', 'r-10']],
    [
      'not legacy',
      { tags: [{ key: 'legacy', not: { equals: 'yes' } }] },
      ['r-01', 'r-03', 'r-04', 'r-05', 'r-09', 'r-10'],
    ],
    [
      'every tag condition holds',
      {
        tags: [
          { key: 'env', equals: 'prod' },
          { key: 'tier', anyOf: ['1', '2'] },
          { key: 'legacy', not: { equals: 'yes' } },
        ],
      },
      ['r-01', 'r-05'],
    ],
    ['a type', { resourceTypes: ['PA_RELATIONAL_DB'] }, ['r-01']],
    ['types of either dialect', { resourceTypes: ['PA_RELATIONAL_DB', 'PB_VM'] }, ['r-01', 'r-10']],
    ['an account', { accounts: ['2'] }, ['r-02']],
    ['regions', { regions: ['pa-west-2', 'pb-north'] }, ['r-03', 'r-10']],
    ['an environment', { environments: ['PROD'] }, ['r-01', 'r-02', 'r-05']],
    ['environments', { environments: ['STAGE', 'PROD_INTERNAL'] }, ['r-03', 'r-09']],
    ['all protected', { all: true }, ['r-01', 'r-02', 'r-03', 'r-05', 'r-10']],
    ['all protected, but one', { all: true, exclude: ['r-02'] }, ['r-01', 'r-03', 'r-05', 'r-10']],
    [
      'all protected, and an unprotected one',
      { all: true, include: ['r-04'] },
      ['r-01', 'r-02', 'r-03', 'r-04', 'r-05', 'r-10'],
    ],
    ['an include that matches nothing else', { regions: ['pb-north'], include: ['r-09'] }, ['r-09', 'r-10']],
    ['an include already matched, once', { environments: ['PROD'], include: ['r-01'] }, ['r-01', 'r-02', 'r-05']],
    ['an include the inventory lacks', { include: ['r-99', 'r-03'] }, ['r-03']],
    ['an exclude out of every condition', { environments: ['PROD'], exclude: ['r-05', 'r-99'] }, ['r-01', 'r-02']],
    [
      'conditions across fields',
      { environments: ['PROD'], regions: ['pa-east-1'], accounts: ['111111111111'] },
      ['r-01', 'r-05'],
    ],
    ['conditions nothing meets', { environments: ['STAGE'], resourceTypes: ['PB_VM'] }, []],
    ['includes alone', { include: ['r-10', 'r-01'] }, ['r-01', 'r-10']],
  ])('%s', (_name, selection, ids) => {
    expect(selectIds(estate, selection)).toEqual(ids);
  });

  test('the result is sorted by ID and the same whatever order the inventory lists it in', () => {
    const selection: Selection = { tags: [{ key: 'env', exists: true }], include: ['r-10'] };
    const expected = selectIds(estate, selection);
    expect(expected).toEqual([...expected].sort());
    for (let shift = 1; shift < estate.length; shift++) {
      const rotated = [...estate.slice(shift), ...estate.slice(0, shift)];
      expect(selectIds([...rotated].reverse(), selection)).toEqual(expected);
      expect(selectIds([...rotated, ...rotated], selection)).toEqual(expected); // a resource listed twice, once
    }
  });

  test('a resource type of the public dialect meets a condition in the neutral one, and back', () => {
    const rds = resource('aws', { resourceType: 'AWS_RDS' });
    expect(meetsConditions(rds, { resourceTypes: ['PA_RELATIONAL_DB'] })).toBe(true);
    expect(
      meetsConditions(resource('pa', { resourceType: 'PA_RELATIONAL_DB' }), {
        resourceTypes: ['AWS_RDS' as ResourceType],
      }),
    ).toBe(true);
    expect(meetsConditions(rds, { resourceTypes: ['PA_VM'] })).toBe(false);
  });

  test('a resource without an environment classification meets no environment condition', () => {
    expect(meetsConditions(resource('x'), { environments: ['PROD'] })).toBe(false);
    expect(meetsConditions({ ...resource('x'), classifications: null }, { environments: ['PROD'] })).toBe(false);
    expect(
      meetsConditions({ ...resource('x'), classifications: { environmentDetails: null } }, { environments: ['PROD'] }),
    ).toBe(false);
  });
});

describe("the inventory filters a selection lists with (the service's part)", () => {
  test('say the types, accounts, environments and protected status, and no region', () => {
    expect(
      serverFiltersOf({
        resourceTypes: ['PA_VM'],
        accounts: ['1', '2'],
        environments: ['PROD'],
        regions: ['pa-east-1'],
      }),
    ).toEqual({ resourceType: { in: ['PA_VM'] }, accountId: { in: ['1', '2'] }, environment: { in: ['PROD'] } });
    expect(serverFiltersOf({ all: true, exclude: ['x'] })).toEqual({ backupStatus: { in: ['PROTECTED'] } });
    expect(serverFiltersOf({ regions: ['pa-east-1'] })).toEqual({});
  });

  test('say the tag tests the key and key-value filters can', () => {
    expect(
      serverFiltersOf({
        tags: [
          { key: 'env', equals: 'prod' },
          { key: 'tier', anyOf: ['1', '2'] },
          { key: 'backup', exists: true },
          { key: 'tmp', exists: false },
          { key: 'legacy', not: { equals: 'yes' } },
          { key: 'zone', not: { anyOf: ['a', 'b'] } },
          { key: 'owner', not: { exists: false } },
          { key: 'scratch', not: { exists: true } },
        ],
      }),
    ).toEqual({
      tagKeys: { containsAllOf: ['env', 'tier', 'backup', 'owner'], containsNoneOf: ['tmp', 'scratch'] },
      tagKeyValues: {
        containsAllOf: ['env=prod'],
        containsNoneOf: ['legacy=yes', 'zone=a', 'zone=b'],
        containsAnyOf: ['tier=1', 'tier=2'],
      },
    });
  });

  test('leave to the activity what they cannot say: a second anyOf, a key holding =', () => {
    expect(
      serverFiltersOf({
        tags: [
          { key: 'tier', anyOf: ['1', '2'] },
          { key: 'zone', anyOf: ['a'] },
        ],
      }),
    ).toEqual({ tagKeys: { containsAllOf: ['tier', 'zone'] } });
    expect(serverFiltersOf({ tags: [{ key: 'a=b', equals: 'c' }] })).toEqual({ tagKeys: { containsAllOf: ['a=b'] } });
    expect(serverFiltersOf({ tags: [{ key: 'a=b', anyOf: ['c'] }] })).toEqual({ tagKeys: { containsAllOf: ['a=b'] } });
  });

  test('are none for a selection by includes alone (listed by ID)', () => {
    expect(serverFiltersOf({ include: ['a'] })).toBeUndefined();
  });

  test('never list fewer resources than the conditions take (a superset, which the matching then decides)', () => {
    // Over every single condition of the estate above, what the filters keep holds what the conditions take.
    const tags: Record<string, string>[] = [
      {},
      { env: 'prod' },
      { env: 'prod', tier: '1' },
      { tier: '2', legacy: 'yes' },
      { backup: '', 'a=b': 'c' },
      { zone: 'b', tier: '3' },
    ];
    const conditions: TagCondition[] = [
      { key: 'env', equals: 'prod' },
      { key: 'tier', anyOf: ['1', '2'] },
      { key: 'backup', exists: true },
      { key: 'backup', exists: false },
      { key: 'legacy', not: { equals: 'yes' } },
      { key: 'zone', not: { anyOf: ['a', 'b'] } },
      { key: 'a=b', equals: 'c' },
      { key: 'env', not: { exists: true } },
    ];
    for (const a of conditions) {
      for (const b of conditions) {
        const selection: Selection = { tags: [a, b] };
        const filters = serverFiltersOf(selection) ?? {};
        for (const t of tags) {
          if (!selectIds([resource('x', { tags: t })], selection).length) continue;
          expect([a, b, t, listedBy(t, filters)]).toEqual([a, b, t, true]);
        }
      }
    }
  });
});

/** Whether the tag filters keep a resource with these tags (as the service's list filters are documented). */
function listedBy(tags: Record<string, string>, filters: NonNullable<ReturnType<typeof serverFiltersOf>>): boolean {
  const keys = Object.keys(tags);
  const pairs = Object.entries(tags).map(([k, v]) => `${k}=${v}`);
  const list = (
    values: string[],
    f: { containsAllOf?: string[]; containsNoneOf?: string[]; containsAnyOf?: string[] } | undefined,
  ) =>
    !f ||
    ((f.containsAllOf ?? []).every((v) => values.includes(v)) &&
      !(f.containsNoneOf ?? []).some((v) => values.includes(v)) &&
      (!f.containsAnyOf || f.containsAnyOf.some((v) => values.includes(v))));
  return list(keys, filters.tagKeys) && list(pairs, filters.tagKeyValues);
}
