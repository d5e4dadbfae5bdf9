// The list calls' shared matching and sorting (simulator/filters.ts), against literal expectations: the conformance
// suites compare the routes with these functions, so their rules are pinned here.
import { matchesInNotIn, matchesName, resourceSortKey, sortItems } from '../../simulator/filters';
import { resource } from '../api/helpers';

interface Item {
  id: string;
  name?: string;
  size?: number;
}

const items: Item[] = [
  { id: 'c', name: 'beta', size: 2 },
  { id: 'a' },
  { id: 'd', name: 'alpha', size: 2 },
  { id: 'b', name: 'alpha' },
];
const keyOf = (item: Item, field: 'name' | 'size') => item[field];
const ids = (sorted: Item[]) => sorted.map((item) => item.id);

describe('sortItems', () => {
  test.each([
    ['name ASC: missing last, the ID breaks the tie', [{ field: 'name', order: 'ASC' }], ['b', 'd', 'c', 'a']],
    ['name DESC: missing still last', [{ field: 'name', order: 'DESC' }], ['c', 'b', 'd', 'a']],
    [
      'size DESC, then name ASC',
      [
        { field: 'size', order: 'DESC' },
        { field: 'name', order: 'ASC' },
      ],
      ['d', 'c', 'b', 'a'],
    ],
    ['no sorts: by ID', [], ['a', 'b', 'c', 'd']],
  ] as const)('%s', (_name, sorts, expected) => {
    expect(ids(sortItems(items, sorts, keyOf, (item) => item.id))).toEqual(expected);
  });

  test('without an ID, ties keep their order', () => {
    expect(ids(sortItems(items, [{ field: 'size', order: 'ASC' }], keyOf))).toEqual(['c', 'd', 'a', 'b']);
  });

  test('leaves its input as it was', () => {
    const before = ids(items);
    sortItems(items, [{ field: 'name', order: 'ASC' }], keyOf, (item) => item.id);
    expect(ids(items)).toEqual(before);
  });
});

describe('matchesInNotIn', () => {
  test.each([
    ['no filter', 'x', undefined, true],
    ['in, listed', 'x', { in: ['x', 'y'] }, true],
    ['in, not listed', 'z', { in: ['x', 'y'] }, false],
    ['in, empty list', 'x', { in: [] }, false],
    ['in, missing field', undefined, { in: ['x'] }, false],
    ['notIn, listed', 'x', { notIn: ['x'] }, false],
    ['notIn, not listed', 'z', { notIn: ['x'] }, true],
    ['notIn, missing field', undefined, { notIn: ['x'] }, true],
  ] as const)('%s', (_name, value, filter, expected) => {
    expect(matchesInNotIn<string>(value, filter)).toBe(expected);
  });
});

describe('matchesName', () => {
  test.each([
    ['contains any listed part', { contains: ['zz', 'ph'] }, true],
    ['contains none of the parts', { contains: ['zz'] }, false],
    ['notContains a listed part', { notContains: ['lp'] }, false],
    ['contains is case-sensitive', { contains: ['ALPHA'] }, false],
    ['in and contains combine with AND', { in: ['alpha'], contains: ['zz'] }, false],
  ] as const)('%s', (_name, filter, expected) => {
    expect(matchesName('alpha', filter)).toBe(expected);
  });
});

describe('resourceSortKey', () => {
  const r = {
    ...resource('r-1'),
    resourceName: 'name',
    latestSnapshotTime: 'latest',
    oldestSnapshotTime: 'oldest',
    discoveredTime: 'discovered',
    createdTime: 'created',
    tags: { resourceGroupName: 'group', clusterName: 'cluster' },
  };

  test.each([
    ['resourceName', 'name'],
    ['latestSnapshotTime', 'latest'],
    ['oldestSnapshotTime', 'oldest'],
    ['dateDiscovered', 'discovered'],
    ['createdTime', 'created'],
    ['resourceGroupName', 'group'],
    ['clusterName', 'cluster'],
    ['globalClusterIdentifier', undefined],
  ] as const)('%s sorts on %p', (field, expected) => {
    expect(resourceSortKey(r, field)).toBe(expected);
  });
});
