import {
  ACCOUNT_SORT_FIELDS_BY_DIALECT,
  PAIRED_ACCOUNT_SORT_FIELDS,
  PROVIDER_CONCEPTS,
  PROVIDERS,
  destinationIn,
  resourceTypeIn,
  type AccountList,
  type Dialect,
  type ProviderConcept,
} from './index';

/**
 * Request bodies in one dialect: the tokens of the other dialect, and concept names, renamed through the tables. The
 * same function serves both ways (a client sending to the wire, a service reading what it was sent). Pure and total:
 * a token no table knows, or one the target dialect lacks, is kept as it is (enums stay open), for the request's own
 * validation or the service to judge.
 */

export type Json = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isConcept = (token: string): token is ProviderConcept => (PROVIDER_CONCEPTS as readonly string[]).includes(token);

/** The provider concept of a `cloudProvider` value of either dialect, or of a concept name. */
export function providerOfValue(token: string): ProviderConcept | undefined {
  if (isConcept(token)) return token;
  return PROVIDER_CONCEPTS.find((p) => PROVIDERS[p].value.neutral === token || PROVIDERS[p].value.public === token);
}

/** The provider concept of an attribute member of either dialect, or of a concept name. */
export function providerOfMember(member: string): ProviderConcept | undefined {
  if (isConcept(member)) return member;
  return PROVIDER_CONCEPTS.find((p) => PROVIDERS[p].member.neutral === member || PROVIDERS[p].member.public === member);
}

/** A `cloudProvider` value in `dialect`. */
export function providerValueIn(dialect: Dialect, token: string): string {
  const provider = providerOfValue(token);
  return (provider && PROVIDERS[provider].value[dialect]) ?? token;
}

/** An attribute member (`providerA`, `aws`, `amazonWebServices`) in `dialect`. */
export function providerMemberIn(dialect: Dialect, member: string): string {
  const provider = providerOfMember(member);
  return (provider && PROVIDERS[provider].member[dialect]) ?? member;
}

/** A resource type in `dialect`. */
export function resourceTypeValueIn(dialect: Dialect, token: string): string {
  return resourceTypeIn(dialect, token) ?? token;
}

/** An account-list sort field in `dialect`, where the dialects pair it (the account's name). */
export function accountSortFieldIn(dialect: Dialect, field: string): string {
  return PAIRED_ACCOUNT_SORT_FIELDS.find((p) => p.neutral === field || p.public === field)?.[dialect] ?? field;
}

/** Whether `dialect` can sort this account list by `field`. */
export function accountSortFieldKnown(dialect: Dialect, list: AccountList, field: string): boolean {
  return ACCOUNT_SORT_FIELDS_BY_DIALECT[dialect][list].includes(field);
}

function inNotInIn(filter: unknown, translate: (token: string) => string): unknown {
  if (!isRecord(filter)) return filter;
  const out: Json = { ...filter };
  for (const key of ['in', 'notIn'] as const) {
    const values = filter[key];
    if (Array.isArray(values)) out[key] = values.map((v: unknown) => (typeof v === 'string' ? translate(v) : v));
  }
  return out;
}

/** Inventory, cost and account filters: `cloudProvider` and `resourceType` values. */
export function filtersIn(dialect: Dialect, filters: unknown): unknown {
  if (!isRecord(filters)) return filters;
  const out: Json = { ...filters };
  if (filters.cloudProvider !== undefined) {
    out.cloudProvider = inNotInIn(filters.cloudProvider, (t) => providerValueIn(dialect, t));
  }
  if (filters.resourceType !== undefined) {
    out.resourceType = inNotInIn(filters.resourceType, (t) => resourceTypeValueIn(dialect, t));
  }
  return out;
}

/** A list or cost body: its filters, and for an account list its sort fields. */
export function listBodyIn(dialect: Dialect, body: unknown, accounts = false): unknown {
  if (!isRecord(body)) return body;
  const out: Json = { ...body };
  if (body.filters !== undefined) out.filters = filtersIn(dialect, body.filters);
  if (accounts && Array.isArray(body.sorts)) {
    out.sorts = body.sorts.map((sort: unknown) =>
      isRecord(sort) && typeof sort.field === 'string'
        ? { ...sort, field: accountSortFieldIn(dialect, sort.field) }
        : sort,
    );
  }
  return out;
}

/** Source-account or vault attributes: the `cloudProvider` value and the provider members. */
export function providerAttributesIn(dialect: Dialect, attributes: unknown): unknown {
  if (!isRecord(attributes)) return attributes;
  const out: Json = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (key === 'cloudProvider') out[key] = typeof value === 'string' ? providerValueIn(dialect, value) : value;
    else out[providerMemberIn(dialect, key)] = value;
  }
  return out;
}

/**
 * A source-account update. The public body names no `cloudProvider` in its attributes (§11), so it is left out there;
 * the neutral one requires it, so it is taken from the one provider member a public body names.
 */
export function sourceAccountUpdateIn(dialect: Dialect, body: unknown): unknown {
  if (!isRecord(body) || !isRecord(body.sourceAccountAttributes)) return body;
  const attributes = providerAttributesIn(dialect, body.sourceAccountAttributes) as Json;
  if (dialect === 'public') {
    const { cloudProvider: _dropped, ...members } = attributes;
    return { ...body, sourceAccountAttributes: members };
  }
  const members = Object.keys(attributes).filter((k) => k !== 'cloudProvider');
  const provider = members.length === 1 && members[0] !== undefined ? providerOfMember(members[0]) : undefined;
  const cloudProvider = provider && PROVIDERS[provider].value.neutral;
  if (attributes.cloudProvider !== undefined || !cloudProvider) return { ...body, sourceAccountAttributes: attributes };
  return { ...body, sourceAccountAttributes: { cloudProvider, ...attributes } };
}

function withMember(body: unknown, member: string, translate: (value: unknown) => unknown): unknown {
  if (!isRecord(body) || body[member] === undefined) return body;
  return { ...body, [member]: translate(body[member]) };
}

/** Each request body that holds dialect tokens, by the call that sends it. */
export const REQUEST_BODIES = {
  restoreBucket: (d: Dialect, body: unknown) => withMember(body, 'destination', (v) => destinationOf(d, v)),
  restoreFiles: (d: Dialect, body: unknown) => withMember(body, 'destination', (v) => destinationOf(d, v)),
  runQuery: (d: Dialect, body: unknown) => withMember(body, 'destination', (v) => destinationOf(d, v)),
  resourceList: (d: Dialect, body: unknown) => listBodyIn(d, body),
  costData: (d: Dialect, body: unknown) => listBodyIn(d, body),
  sourceAccountList: (d: Dialect, body: unknown) => listBodyIn(d, body, true),
  restoreAccountList: (d: Dialect, body: unknown) => listBodyIn(d, body, true),
  connectSourceAccount: (d: Dialect, body: unknown) =>
    withMember(body, 'sourceAccountAttributes', (v) => providerAttributesIn(d, v)),
  updateSourceAccount: sourceAccountUpdateIn,
  createVault: (d: Dialect, body: unknown) => withMember(body, 'vaultAttributes', (v) => providerAttributesIn(d, v)),
} as const satisfies Record<string, (dialect: Dialect, body: unknown) => unknown>;
export type RequestBodyKind = keyof typeof REQUEST_BODIES;

/** A request body of `kind` in `dialect`. */
export function requestBodyIn(dialect: Dialect, kind: RequestBodyKind, body: unknown): unknown {
  return REQUEST_BODIES[kind](dialect, body);
}

function destinationOf(dialect: Dialect, destination: unknown): unknown {
  return isRecord(destination) ? destinationIn(dialect, destination) : destination;
}
