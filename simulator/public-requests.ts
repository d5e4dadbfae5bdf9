import type { SimState } from './model';
import { SimError, parse } from './errors';
import { ExpressionInput } from './public-expression';
import {
  DESTINATION_MEMBERS,
  PROVIDER_MEMBERS,
  VALUE_KEYS,
  isNeutralOnly,
  isObject,
  membersAt,
  neutralTokenMessage,
  type Json,
  type TokenPairs,
} from './public-tokens';

/**
 * Public-dialect requests read into the neutral vocabulary the routes validate (docs/service-interface.md §10, §11).
 * The translation is strict where a client bug would otherwise pass: a neutral token (`bucketA`, `PROVIDER_A`,
 * `providerA`, `PA_VM`, …) is refused with a 400 naming it and the public word for it. A lenient mock of the public
 * document accepts a destination it does not know with 202 (docs/service-interface.md §11); the real service's
 * behaviour is then undocumented, so the simulator refuses, and the suite catches the client that sends one.
 */

/** A refusal of the boundary itself: its message names neutral tokens on purpose and is sent as it is. */
export class DialectRefusal extends SimError {
  constructor(message: string) {
    super(400, message);
  }
}

/** One public value in the neutral vocabulary; a neutral one is refused; one neither dialect knows is kept. */
function neutralValue(pairs: TokenPairs, value: unknown, where: string): unknown {
  if (typeof value !== 'string') return value;
  if (isNeutralOnly(pairs, value)) throw new DialectRefusal(neutralTokenMessage(where, pairs, value));
  return pairs.toNeutral.get(value) ?? value;
}

/**
 * The values of a provider or resource-type filter (`{in, notIn}`) or access condition (`{operator, <values>}`). In a
 * filter, a public value the neutral vocabulary lacks (`GCP_DISK`) matches no record of the simulator: it is dropped,
 * which leaves `in` matching nothing and `notIn` excluding nothing, as the service would.
 */
function neutralValues(pairs: TokenPairs, holder: Json, where: string): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(holder)) {
    if (!Array.isArray(value)) {
      out[key] = key === 'operator' ? value : neutralValue(pairs, value, `${where}.${key}`);
      continue;
    }
    const isFilter = key === 'in' || key === 'notIn';
    out[key] = value.flatMap((v, i) =>
      isFilter && typeof v === 'string' && pairs.publicOnly.has(v)
        ? []
        : [neutralValue(pairs, v, `${where}.${key}.${i}`)],
    );
  }
  return out;
}

/** The whole body in the neutral vocabulary: member names by their position, provider and type values by their key. */
export function neutralTokens(value: unknown, where: string, parentKey?: string): unknown {
  if (Array.isArray(value)) return value.map((v, i) => neutralTokens(v, `${where}.${i}`, parentKey));
  if (!isObject(value)) return value;
  const members = membersAt(parentKey);
  const out: Json = {};
  for (const [key, member] of Object.entries(value)) {
    const path = `${where}.${key}`;
    // A neutral member name is refused wherever it stands: no public body has one.
    for (const pairs of [PROVIDER_MEMBERS, DESTINATION_MEMBERS]) {
      if (isNeutralOnly(pairs, key)) throw new DialectRefusal(neutralTokenMessage(path, pairs, key));
    }
    const name = members?.toNeutral.get(key) ?? key;
    const values = VALUE_KEYS[key];
    out[name] = values
      ? isObject(member)
        ? neutralValues(values, member, path)
        : neutralValue(values, member, path)
      : neutralTokens(member, path, key);
  }
  return out;
}

/**
 * Sort fields of the account lists in the public dialect (docs/service-interface.md §11), and the neutral field each
 * stands for, if any.
 */
const SOURCE_ACCOUNT_SORTS: Readonly<Record<string, string | null>> = {
  accountName: 'name',
  installedVersion: null,
  parentIdentifier: null,
  createdAt: 'connectedTime',
};
const RESTORE_ACCOUNT_SORTS: Readonly<Record<string, string | null>> = {
  accountName: 'name',
  installedVersion: null,
  createdAt: 'connectedTime',
};

/**
 * An account list's sorts in neutral fields. Accounts here have no installed version or parent identifier: a sort on
 * one ties everywhere, which is what dropping it does.
 */
export function neutralAccountSorts(body: unknown, kind: 'source' | 'restore'): unknown {
  if (!isObject(body) || !Array.isArray(body.sorts)) return body;
  const fields = kind === 'source' ? SOURCE_ACCOUNT_SORTS : RESTORE_ACCOUNT_SORTS;
  const sorts = body.sorts.flatMap((sort: unknown, i) => {
    if (!isObject(sort) || typeof sort.field !== 'string') return [sort];
    const neutral = fields[sort.field];
    if (neutral === undefined) {
      throw new DialectRefusal(
        `invalid body.sorts.${i}.field: ${kind} accounts sort by ${Object.keys(fields).join(', ')}, not ${sort.field}`,
      );
    }
    return neutral === null ? [] : [{ ...sort, field: neutral }];
  });
  return { ...body, sorts };
}

/**
 * A source-account update `{name?, sourceAccountAttributes?: {aws?: {roleArn}, gcp?: {serviceAccount}}}`
 * (docs/service-interface.md §11), its members already neutral, as the neutral update, which names the account's
 * provider. A body of the neutral shape (with a `cloudProvider`) is refused rather than read, since a lenient server
 * loses its change silently.
 */
export function neutralAccountUpdate(body: unknown, state: SimState, accountId: string): unknown {
  if (!isObject(body) || !isObject(body.sourceAccountAttributes)) return body;
  const attrs = body.sourceAccountAttributes;
  const where = 'body.sourceAccountAttributes';
  for (const key of Object.keys(attrs)) {
    if (key === 'cloudProvider') {
      throw new DialectRefusal(
        `invalid ${where}.cloudProvider: an update names no provider in the public dialect; send {aws: {roleArn}} ` +
          'or {gcp: {serviceAccount}}',
      );
    }
    const publicKey = PROVIDER_MEMBERS.toPublic.get(key) ?? key;
    if (publicKey !== 'aws' && publicKey !== 'gcp') {
      throw new DialectRefusal(`invalid ${where}.${publicKey}: an update takes only aws or gcp`);
    }
  }
  const provider = state.sourceAccounts[accountId]?.sourceAccountAttributes.cloudProvider;
  // An unknown account is the route's 404; the provider is needed only for a known one.
  return { ...body, sourceAccountAttributes: provider === undefined ? attrs : { cloudProvider: provider, ...attrs } };
}

/**
 * A role's access conditions, their values already neutral: each expression must be the public tree; it is checked
 * and stored as its JSON text.
 */
export function neutralRole(body: unknown): unknown {
  if (!isObject(body) || !Array.isArray(body.accessConditions)) return body;
  const accessConditions = body.accessConditions.map((condition: unknown, i) => {
    if (!isObject(condition) || !('expression' in condition)) return condition;
    const where = `body.accessConditions.${i}.expression`;
    if (typeof condition.expression === 'string') {
      throw new DialectRefusal(
        `invalid ${where}: the public dialect's expression is an object, a condition {<field>: {operator, <values>}} ` +
          'or a group {operator: AND|OR, operands}, not a string',
      );
    }
    return { ...condition, expression: JSON.stringify(parse(ExpressionInput, condition.expression, where)) };
  });
  return { ...body, accessConditions };
}
