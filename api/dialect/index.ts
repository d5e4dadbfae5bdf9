import {
  DESTINATION_KINDS,
  DESTINATIONS,
  NEUTRAL_RESTORE_TYPES,
  PROVIDER_CONCEPTS,
  PROVIDERS,
  PUBLIC_RESTORE_TYPES,
  RESOURCE_TYPE_ROWS,
  RESTORE_KINDS,
  type DestinationKind,
  type Dialect,
  type ProviderConcept,
  type ResourceCategory,
  type ResourceTypeRow,
  type RestoreKind,
} from './tables';

export * from './tables';

/**
 * Reading and writing wire tokens through the tables, both ways. Every function is pure and total: a token neither
 * table knows gives `undefined` (or the category `unknown`) and is kept by the caller as the string it was.
 */

const rowOf = (resourceType: string): ResourceTypeRow | undefined =>
  RESOURCE_TYPE_ROWS.find((r) => r.neutral === resourceType || r.public === resourceType);

/** The category of a resource type of either dialect; `unknown` for a type neither table names. */
export function resourceCategoryOf(resourceType: string): ResourceCategory {
  return rowOf(resourceType)?.category ?? 'unknown';
}

/** The provider of a resource type of either dialect. */
export function providerOfResourceType(resourceType: string): ProviderConcept | undefined {
  return rowOf(resourceType)?.provider;
}

/** The same resource type in the other dialect (or the same one); `undefined` when that dialect has no such type. */
export function resourceTypeIn(dialect: Dialect, resourceType: string): string | undefined {
  return rowOf(resourceType)?.[dialect];
}

/** Every resource type of one category, in one dialect. */
export function resourceTypesOf(category: ResourceCategory, dialect: Dialect): string[] {
  return RESOURCE_TYPE_ROWS.flatMap((r) => (r.category === category && r[dialect] ? [r[dialect]] : []));
}

/** The provider concept of a `cloudProvider` value or an attribute member, of either dialect. */
export function providerConceptOf(token: string): ProviderConcept | undefined {
  return PROVIDER_CONCEPTS.find((p) => {
    const { value, member } = PROVIDERS[p];
    return value.neutral === token || value.public === token || member.neutral === token || member.public === token;
  });
}

export function providerValue(provider: ProviderConcept, dialect: Dialect): string | undefined {
  return PROVIDERS[provider].value[dialect];
}

export function providerMember(provider: ProviderConcept, dialect: Dialect): string | undefined {
  return PROVIDERS[provider].member[dialect];
}

/** The destination kind a member name stands for: a concept name, or either dialect's member. */
export function destinationKindOf(member: string): DestinationKind | undefined {
  return DESTINATION_KINDS.find(
    (k) => k === member || DESTINATIONS[k].neutral === member || DESTINATIONS[k].public === member,
  );
}

export function destinationMember(kind: DestinationKind, dialect: Dialect): string {
  return DESTINATIONS[kind][dialect] ?? kind;
}

/**
 * A destination object with its members renamed to one dialect's. Members may be named by either dialect or by
 * concept; a member no table knows is kept as it is, for the request's own validation to refuse.
 */
export function destinationIn<T extends object>(dialect: Dialect, destination: T): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [member, value] of Object.entries(destination)) {
    const kind = destinationKindOf(member);
    out[kind ? destinationMember(kind, dialect) : member] = value;
  }
  return out;
}

/** A destination object with its members named by concept, so that destinations of both dialects compare equal. */
export function destinationConcepts<T extends object>(destination: T): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [member, value] of Object.entries(destination)) out[destinationKindOf(member) ?? member] = value;
  return out;
}

/** The member names a destination may use in inputs: concepts first, then each dialect's. */
export function destinationNames(kinds: readonly DestinationKind[] = DESTINATION_KINDS): string[] {
  const names = kinds.flatMap((k) => [k, DESTINATIONS[k].neutral, DESTINATIONS[k].public]);
  return [...new Set(names.filter((n): n is string => n !== undefined))];
}

/**
 * The `restoreType` a restore job carries for a restore of this kind on a resource of this type: the type's dialect
 * decides. `undefined` when the table does not know it (a type the public table lists no restore for).
 */
export function restoreTypeFor(resourceType: string, kind: RestoreKind): string | undefined {
  const row = rowOf(resourceType);
  if (row?.neutral === resourceType) return NEUTRAL_RESTORE_TYPES[kind];
  const publicType = row?.public === resourceType ? resourceType : undefined;
  return publicType ? PUBLIC_RESTORE_TYPES[publicType]?.[kind] : undefined;
}

/** The restore kind a known `restoreType` of either dialect stands for; `undefined` for one no table knows. */
export function restoreKindOf(restoreType: string): RestoreKind | undefined {
  const neutral = RESTORE_KINDS.find((k) => NEUTRAL_RESTORE_TYPES[k] === restoreType);
  if (neutral) return neutral;
  for (const byKind of Object.values(PUBLIC_RESTORE_TYPES)) {
    const kind = RESTORE_KINDS.find((k) => byKind[k] === restoreType);
    if (kind) return kind;
  }
  return undefined;
}

/**
 * Whether a job's `restoreType` can be that of a restore of `kind` (on a resource of `resourceType`, when known).
 * A known type of another kind, or of another resource type, cannot. A type no table knows can: the caller then
 * decides on every other parameter, since an unfamiliar name is no reason to start the restore a second time.
 */
export function restoreTypeFits(restoreType: string, kind: RestoreKind, resourceType?: string): boolean {
  const knownKind = restoreKindOf(restoreType);
  if (knownKind === undefined) return true;
  if (knownKind !== kind) return false;
  const expected = resourceType === undefined ? undefined : restoreTypeFor(resourceType, kind);
  return expected === undefined || expected === restoreType;
}

/** The dialect a resource type, a provider value or a member, or a restore type belongs to, if either table has it. */
export function dialectOfToken(token: string): Dialect | undefined {
  const row = rowOf(token);
  if (row) return row.neutral === token ? 'neutral' : 'public';
  const provider = providerConceptOf(token);
  if (provider) {
    const { value, member } = PROVIDERS[provider];
    return value.neutral === token || member.neutral === token ? 'neutral' : 'public';
  }
  const kind = destinationKindOf(token);
  if (kind && DESTINATIONS[kind].neutral !== DESTINATIONS[kind].public && kind !== token) {
    return DESTINATIONS[kind].neutral === token ? 'neutral' : 'public';
  }
  if (restoreKindOf(token)) return Object.values(NEUTRAL_RESTORE_TYPES).includes(token) ? 'neutral' : 'public';
  return undefined;
}

/** The dialect of a token answer: `{access_token, …}` is the neutral one, `{accessToken, …}` the public one. */
export function dialectOfTokenBody(body: unknown): Dialect | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  if ('accessToken' in body) return 'public';
  if ('access_token' in body) return 'neutral';
  return undefined;
}
