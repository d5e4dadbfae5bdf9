// A drill's scope as a selection: tag conditions, resource types, accounts, regions, environments, explicit includes
// and excludes, or every protected resource. Resolved against the inventory by the drill's first activity at each run
// (./activities.ts, `resolveSelection`); this file holds its grammar (zod), the inventory filters that narrow the
// listing on the service's side, and the matching that decides, on ours. Pure: the contract (workflow code) imports it.
import { z } from 'zod';
import { resourceTypeIn } from '../../api/dialect';
import { acceptingEitherDialect } from '../../api/either-dialect';
import { EnvironmentInput, ResourceTypeInput, type ResourceType } from '../../api/enums';
import type { ResourceFilters } from '../../api/schemas/filters';
import { NonBlank } from '../../runtime/input-rules';

/** The backup status of a resource `all: true` takes: the one the posture report counts as protected by default. */
export const PROTECTED_STATUS = 'PROTECTED';

const TEST_KEYS = ['equals', 'anyOf', 'exists', 'not'] as const;

const given = (value: unknown) => value !== undefined;
const distinct = (values: readonly string[] | undefined) => new Set(values).size === (values?.length ?? 0);

const AnyOf = z
  .array(z.string())
  .min(1, 'an empty anyOf matches nothing: give at least one value')
  .refine(distinct, 'names a value twice');

/** What `not` negates: one test on the tag's value. */
const TagTest = z
  .strictObject({
    /** The tag's value is exactly this (case-sensitive). */
    equals: z.string().optional(),
    /** The tag's value is one of these. */
    anyOf: AnyOf.optional(),
    /** true: the resource has the tag, whatever its value; false: it has not. */
    exists: z.boolean().optional(),
  })
  .refine((t) => given(t.equals) || given(t.anyOf) || given(t.exists), {
    message: 'an empty test: give equals, anyOf or exists',
  })
  .refine((t) => !(given(t.equals) && given(t.anyOf)), { message: 'give equals or anyOf, not both', path: ['anyOf'] })
  .refine((t) => [t.equals, t.anyOf, t.exists].filter(given).length <= 1, {
    message: 'one test per condition: equals, anyOf or exists',
    path: ['exists'],
  });
export type TagTest = z.output<typeof TagTest>;

/** A condition on one tag: `{key, equals}`, `{key, anyOf}`, `{key, exists}` or `{key, not: {equals | anyOf | exists}}`. */
export const TagCondition = z
  .strictObject({
    key: NonBlank,
    equals: z.string().optional(),
    anyOf: AnyOf.optional(),
    exists: z.boolean().optional(),
    /** Holds when its test does not: `not: {equals: 'yes'}` takes a resource without the tag too. */
    not: TagTest.optional(),
  })
  .refine((c) => TEST_KEYS.some((k) => given(c[k])), {
    message: 'an empty condition: give equals, anyOf, exists or not',
  })
  .refine((c) => !(given(c.equals) && given(c.anyOf)), { message: 'give equals or anyOf, not both', path: ['anyOf'] })
  .refine((c) => TEST_KEYS.filter((k) => given(c[k])).length <= 1, {
    message: 'one test per condition: equals, anyOf, exists or not (two conditions on one key are both required)',
    path: ['not'],
  });
export type TagCondition = z.output<typeof TagCondition>;

const listOf = <T extends z.ZodType<string>>(item: T, what: string, one: string) =>
  z
    .array(item)
    .min(1, `an empty list selects nothing: leave ${what} out`)
    .refine((values) => distinct(values as string[]), `names ${one} twice`);

/**
 * The members of a selection, beside `maxResources` (the contract bounds every form the same way). Each condition
 * given must hold (AND); each list is "any of" (OR). `include` is always in (if the inventory has it), `exclude` always
 * out.
 */
export const SELECTION_SHAPE = {
  /** Every protected resource (backup status PROTECTED); with no condition, only with include and exclude. */
  all: z.literal(true).optional(),
  /** Every condition holds. */
  tags: z.array(TagCondition).min(1, 'an empty list selects nothing: leave tags out').optional(),
  /** The resource's type is one of these (either dialect). */
  resourceTypes: acceptingEitherDialect(listOf(ResourceTypeInput, 'resourceTypes', 'a resource type')).optional(),
  /** The resource's cloud account (its provider account ID, `providerAccountId`) is one of these. */
  accounts: listOf(NonBlank, 'accounts', 'an account').optional(),
  /** The resource's region is one of these. */
  regions: listOf(NonBlank, 'regions', 'a region').optional(),
  /** The service's environment classification of the resource is one of these (a resource without one: none). */
  environments: listOf(EnvironmentInput, 'environments', 'an environment').optional(),
  /** Resource IDs always drilled when the inventory has them, whether the conditions take them or not. */
  include: listOf(NonBlank, 'include', 'a resource').optional(),
  /** Resource IDs never drilled, whatever else takes them. */
  exclude: listOf(NonBlank, 'exclude', 'a resource').optional(),
};

type Environment = z.output<typeof EnvironmentInput>;

export interface Selection {
  all?: true;
  tags?: TagCondition[];
  resourceTypes?: ResourceType[];
  accounts?: string[];
  regions?: string[];
  environments?: Environment[];
  include?: string[];
  exclude?: string[];
}

export const SELECTION_KEYS = Object.keys(SELECTION_SHAPE) as (keyof Selection)[];
const CONDITION_KEYS = ['tags', 'resourceTypes', 'accounts', 'regions', 'environments'] as const;

/** Whether a resources input is a selection (any of its members given). */
export const isSelection = (s: Selection) => SELECTION_KEYS.some((k) => s[k] !== undefined);
/** Whether a selection has a condition (beyond `all`, `include` and `exclude`). */
export const hasConditions = (s: Selection) => CONDITION_KEYS.some((k) => s[k] !== undefined);

/** The rules across a selection's members, as refinements of the object that holds them (fixed messages and paths). */
type Rule = { check: (s: Selection) => boolean; message: string; path: string[] };
export const SELECTION_RULES: Record<'somethingTaken' | 'allAlone' | 'includeApart', Rule> = {
  somethingTaken: {
    check: (s) => !isSelection(s) || s.all === true || hasConditions(s) || s.include !== undefined,
    message:
      'a selection takes all: true, a condition (tags, resourceTypes, accounts, regions, environments) or include',
    path: [],
  },
  allAlone: {
    check: (s) => !(s.all === true && hasConditions(s)),
    message:
      'all takes every protected resource: give it without conditions (tags, resourceTypes, accounts, regions, ' +
      'environments), or the conditions without it',
    path: ['all'],
  },
  includeApart: {
    check: (s) => !s.include || !s.exclude || !s.include.some((id) => s.exclude?.includes(id)),
    message: 'names a resource that include names too: an ID is either always in or always out',
    path: ['exclude'],
  },
};

/** The few fields of a resource a selection reads: what the inventory lists for it. */
export interface SelectableResource {
  id: string;
  resourceType: string;
  providerAccountId: string;
  region: string;
  backupStatus: string;
  tags?: Readonly<Record<string, string>>;
  classifications?: { environmentDetails?: { environment?: string } | null } | null;
}

/** A resource type as the neutral dialect names it, so that either dialect's token compares equal. */
const typeKey = (resourceType: string) => resourceTypeIn('neutral', resourceType) ?? resourceType;

function passes(tags: Readonly<Record<string, string>>, key: string, test: TagTest): boolean {
  const value = Object.hasOwn(tags, key) ? tags[key] : undefined;
  if (test.exists !== undefined) return (value !== undefined) === test.exists;
  if (value === undefined) return false;
  if (test.equals !== undefined) return value === test.equals;
  return test.anyOf?.includes(value) ?? false;
}

/** Whether one tag condition holds for a resource's tags. */
export function tagConditionHolds(tags: Readonly<Record<string, string>>, condition: TagCondition): boolean {
  const { key, not, ...test } = condition;
  return not ? !passes(tags, key, not) : passes(tags, key, test);
}

/** Whether a resource meets the selection's conditions (and, with `all`, is protected); includes and excludes aside. */
export function meetsConditions(resource: SelectableResource, selection: Selection): boolean {
  const { tags, resourceTypes, accounts, regions, environments } = selection;
  if (selection.all === true && resource.backupStatus !== PROTECTED_STATUS) return false;
  if (resourceTypes && !resourceTypes.some((t) => typeKey(t) === typeKey(resource.resourceType))) return false;
  if (accounts && !accounts.includes(resource.providerAccountId)) return false;
  if (regions && !regions.includes(resource.region)) return false;
  const environment = resource.classifications?.environmentDetails?.environment;
  if (environments && !environments.some((e) => e === environment)) return false;
  const resourceTags = resource.tags ?? {};
  return (tags ?? []).every((c) => tagConditionHolds(resourceTags, c));
}

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The IDs a selection takes among resources, sorted by ID (code points): those meeting its conditions (none when it
 * has neither conditions nor `all`), with each `include` the resources hold, less each `exclude`. Each ID once.
 */
export function selectIds(resources: readonly SelectableResource[], selection: Selection): string[] {
  const include = new Set(selection.include);
  const exclude = new Set(selection.exclude);
  const open = selection.all === true || hasConditions(selection);
  const ids = new Set<string>();
  for (const r of resources) {
    if (exclude.has(r.id)) continue;
    if (include.has(r.id) || (open && meetsConditions(r, selection))) ids.add(r.id);
  }
  return [...ids].sort(byId);
}

/** A `key=value` the service's tag filters can carry: its key holds no `=`. */
const keyValue = (key: string, value: string) => (key.includes('=') ? undefined : `${key}=${value}`);
const defined = <T>(values: (T | undefined)[]): T[] => values.filter((v): v is T => v !== undefined);

/**
 * Inventory filters that list a superset of what the conditions take (`meetsConditions` decides): the types,
 * accounts, environments, protected status and tag tests the service's filters can say. Regions have no inventory
 * filter; a tag key holding `=` has no key-value filter. `undefined` when the selection has no condition to list by.
 */
export function serverFiltersOf(selection: Selection): ResourceFilters | undefined {
  if (selection.all !== true && !hasConditions(selection)) return undefined;
  const filters: ResourceFilters = {};
  if (selection.all === true) filters.backupStatus = { in: [PROTECTED_STATUS] };
  if (selection.resourceTypes) filters.resourceType = { in: selection.resourceTypes };
  if (selection.accounts) filters.accountId = { in: selection.accounts };
  if (selection.environments) filters.environment = { in: selection.environments };
  const keysIn: string[] = [];
  const keysOut: string[] = [];
  const pairsIn: (string | undefined)[] = [];
  const pairsOut: (string | undefined)[] = [];
  const anyOfs: TagCondition[] = [];
  for (const c of selection.tags ?? []) {
    const { key, not } = c;
    if (not) {
      if (not.exists !== undefined) (not.exists ? keysOut : keysIn).push(key);
      else if (not.equals !== undefined) pairsOut.push(keyValue(key, not.equals));
      else pairsOut.push(...(not.anyOf ?? []).map((v) => keyValue(key, v)));
      continue;
    }
    if (c.exists !== undefined) (c.exists ? keysIn : keysOut).push(key);
    else keysIn.push(key);
    if (c.equals !== undefined) pairsIn.push(keyValue(key, c.equals));
    if (c.anyOf) anyOfs.push(c);
  }
  const tagKeys = listFilter({ containsAllOf: keysIn, containsNoneOf: keysOut });
  if (tagKeys) filters.tagKeys = tagKeys;
  // One list of alternatives only: the filter has a single `containsAnyOf`, so a second anyOf stays ours to check.
  const [onlyAnyOf] = anyOfs.length === 1 ? anyOfs : [];
  const anyOf = onlyAnyOf ? (onlyAnyOf.anyOf ?? []).map((v) => keyValue(onlyAnyOf.key, v)) : [];
  const tagKeyValues = listFilter({
    containsAllOf: defined(pairsIn),
    containsNoneOf: defined(pairsOut),
    // All or nothing: alternatives left out would drop the resources that hold them.
    containsAnyOf: anyOf.every((v) => v !== undefined) ? defined(anyOf) : [],
  });
  if (tagKeyValues) filters.tagKeyValues = tagKeyValues;
  return filters;
}

type ListFilter = { containsAllOf?: string[]; containsNoneOf?: string[]; containsAnyOf?: string[] };

/** A list filter of the non-empty lists given; `undefined` when all are empty. */
function listFilter(lists: ListFilter): ListFilter | undefined {
  const kept = Object.entries(lists).filter(([, values]) => values !== undefined && values.length > 0);
  return kept.length === 0 ? undefined : Object.fromEntries(kept);
}
