import type {
  InventoryResourceDocument as InventoryResource,
  PageParams,
  ResourceFilters,
  ResourceListInput,
} from '../api';
import { PageParams as PageParamsSchema } from '../api';
import { parse } from './errors';

/**
 * Filter and sort matching shared by the list calls. Filters combine with AND, and so do the members of one filter.
 * An empty list in a member is taken literally: `in: []` or `containsAnyOf: []` matches nothing.
 */

interface InNotIn<T> {
  in?: readonly T[];
  notIn?: readonly T[];
}

/** `in` matches when a listed value equals the field, `notIn` when none does; a missing field is in no list. */
export function matchesInNotIn<T>(value: T | undefined, filter: InNotIn<T> | undefined): boolean {
  if (!filter) return true;
  if (filter.in && (value === undefined || !filter.in.includes(value))) return false;
  if (filter.notIn && value !== undefined && filter.notIn.includes(value)) return false;
  return true;
}

interface ListFilter {
  containsAnyOf?: readonly string[];
  containsAllOf?: readonly string[];
  containsNoneOf?: readonly string[];
}

/** As the names say: at least one of, every one of, none of the listed values is in the field's list. */
export function matchesList(values: readonly string[], filter: ListFilter | undefined): boolean {
  if (!filter) return true;
  const set = new Set(values);
  if (filter.containsAnyOf && !filter.containsAnyOf.some((v) => set.has(v))) return false;
  if (filter.containsAllOf && !filter.containsAllOf.every((v) => set.has(v))) return false;
  if (filter.containsNoneOf?.some((v) => set.has(v))) return false;
  return true;
}

type NameFilter = InNotIn<string> & { contains?: readonly string[]; notContains?: readonly string[] };

/** Exact `in`/`notIn`, plus case-sensitive substring `contains` (any listed) and `notContains` (none listed). */
export function matchesName(name: string, filter: NameFilter | undefined): boolean {
  if (!filter) return true;
  if (!matchesInNotIn(name, filter)) return false;
  if (filter.contains && !filter.contains.some((part) => name.includes(part))) return false;
  if (filter.notContains?.some((part) => name.includes(part))) return false;
  return true;
}

/** The list fields the list filters look at. Tag key-values are `key=value` strings. */
export function resourceLists(r: InventoryResource) {
  const tags = Object.entries(r.tags);
  return {
    apps: (r.classifications?.appsDetails?.apps ?? []).map((app) => app.name),
    subnets: r.subnets ?? [],
    dataClasses: r.classifications?.dataClassesDetails?.dataClasses ?? [],
    tagKeys: tags.map(([key]) => key),
    tagKeyValues: tags.map(([key, value]) => `${key}=${value}`),
  };
}

/** Every filter of the resource list. `accountId` matches the provider-assigned account ID of the resource. */
export function matchesResourceFilters(r: InventoryResource, f: ResourceFilters | undefined): boolean {
  if (!f) return true;
  const lists = resourceLists(r);
  return (
    matchesInNotIn(r.id, f.id) &&
    matchesInNotIn<string>(r.cloudProvider, f.cloudProvider) &&
    matchesInNotIn(r.providerResourceId, f.providerResourceId) &&
    matchesName(r.resourceName, f.resourceName) &&
    matchesInNotIn<string>(r.resourceType, f.resourceType) &&
    matchesInNotIn<string>(r.classifications?.environmentDetails?.environment, f.environment) &&
    matchesInNotIn(r.providerAccountId, f.accountId) &&
    matchesList(lists.apps, f.apps) &&
    matchesList(lists.subnets, f.subnets) &&
    matchesList(lists.dataClasses, f.dataClasses) &&
    matchesInNotIn<string>(r.backupStatus, f.backupStatus) &&
    matchesList(lists.tagKeys, f.tagKeys) &&
    matchesList(lists.tagKeyValues, f.tagKeyValues)
  );
}

export interface SortSpec<F extends string> {
  field: F;
  order: 'ASC' | 'DESC';
}

type SortKey = string | number | undefined;

/**
 * Sorts by each spec in list order; a missing value sorts last in either order, and the ID, when given, breaks every
 * tie so that paging is stable (without it, ties keep their order). Strings compare by code point, which orders ISO
 * timestamps by time.
 */
export function sortItems<T, F extends string>(
  items: readonly T[],
  sorts: readonly SortSpec<F>[],
  keyOf: (item: T, field: F) => SortKey,
  idOf?: (item: T) => string,
): T[] {
  return [...items].sort((a, b) => {
    for (const { field, order } of sorts) {
      const x = keyOf(a, field);
      const y = keyOf(b, field);
      if (x === y) continue;
      if (x === undefined) return 1;
      if (y === undefined) return -1;
      const cmp = x < y ? -1 : 1;
      return order === 'DESC' ? -cmp : cmp;
    }
    if (!idOf) return 0;
    const ia = idOf(a);
    const ib = idOf(b);
    return ia < ib ? -1 : ia > ib ? 1 : 0;
  });
}

type ResourceSortField = NonNullable<ResourceListInput['sorts']>[number]['field'];

/**
 * The sort key of a resource. `resourceGroupName`, `clusterName` and `globalClusterIdentifier` are not fields of
 * InventoryResource: they sort on the tag of the same name, which the seed sets where the concept applies.
 */
export function resourceSortKey(r: InventoryResource, field: ResourceSortField): SortKey {
  switch (field) {
    case 'resourceName':
      return r.resourceName;
    case 'latestSnapshotTime':
      return r.latestSnapshotTime;
    case 'oldestSnapshotTime':
      return r.oldestSnapshotTime;
    case 'dateDiscovered':
      return r.discoveredTime;
    case 'createdTime':
      return r.createdTime;
    case 'resourceGroupName':
    case 'clusterName':
    case 'globalClusterIdentifier':
      return r.tags[field];
  }
}

/** `pageToken` and `pageSize` from the query string; pageSize arrives as text. */
export function readPageParams(query: unknown): PageParams {
  const q = (query ?? {}) as Record<string, unknown>;
  const size = q.pageSize;
  return parse(
    PageParamsSchema,
    { pageToken: q.pageToken, pageSize: size === undefined ? undefined : Number(size) },
    'query',
  );
}
