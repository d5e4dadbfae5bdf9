import { z } from 'zod';
import {
  ACCOUNT_SORT_FIELDS_BY_DIALECT,
  DESTINATION_KINDS,
  PUBLIC_UPDATE_PROVIDERS,
  QUERY_DESTINATION_KINDS,
  destinationIn,
  destinationKindOf,
  destinationNames,
  type AccountList,
  type DestinationKind,
  type Dialect,
} from './dialect';
import {
  accountSortFieldKnown,
  isRecord,
  providerMemberIn,
  providerOfMember,
  requestBodyIn,
  type Json,
} from './dialect/requests';
import type { RequestBodyKind } from './dialect/requests';
import { acceptingEitherDialect } from './either-dialect';
import { InvalidArgumentError } from './errors';
import * as s from './schemas';
import { describeIssue } from './validate';

/**
 * Request bodies on their way to the wire. An input may name tokens in either dialect or by concept; it is renamed to
 * the neutral vocabulary and checked against the one definition in api/schemas, then renamed to the wire's dialect
 * right before it is sent. Whatever can be checked without knowing the wire is checked first, so that a bad input
 * sends nothing; errors name the members as the caller gave them.
 */

/** `[neutral path, path as given]` pairs, relative to the body, for the messages of errors found after renaming. */
type GivenNames = readonly (readonly [string, string])[];

export interface BodyRule {
  /** The body's one definition, in the neutral vocabulary (api/schemas). */
  schema: z.ZodType;
  /** How its tokens are renamed (api/dialect/requests); none for a body with nothing to rename (a role). */
  kind?: RequestBodyKind;
  /** Whether the body's wire form, or what the wire accepts of it, depends on the dialect. */
  dependsOnDialect(input: Json): boolean;
  givenNames?(input: Json): GivenNames;
  /** Checks of the input as given that need no wire. */
  precheck?(input: Json, name: string): void;
  /** Checks of the body in the wire's dialect: what that dialect cannot say is refused before it is sent. */
  wireCheck?(dialect: Dialect, wire: Json, input: Json, name: string): void;
}

/** A body checked as far as it can be without the wire: neutral, with the names the caller gave. */
export interface PreparedBody {
  rule: BodyRule;
  /** The argument's name in messages (`restore`, `list`). */
  name: string;
  input: Json;
  neutral: unknown;
  given: GivenNames;
}

export function prepareBody(rule: BodyRule, input: unknown, name: string): PreparedBody {
  const given = isRecord(input) ? (rule.givenNames?.(input) ?? []) : [];
  if (isRecord(input)) rule.precheck?.(input, name);
  const renamed = rule.kind ? requestBodyIn('neutral', rule.kind, input) : input;
  const neutral = validateGiven(acceptingEitherDialect(rule.schema), renamed, name, given);
  return { rule, name, input: isRecord(input) ? input : {}, neutral, given };
}

/** Whether sending the body must wait for the wire's dialect. */
export function needsDialect(prepared: PreparedBody): boolean {
  return prepared.rule.dependsOnDialect(prepared.input);
}

/** The prepared body in the wire's dialect, refused if that dialect cannot say it. */
export function bodyIn(dialect: Dialect, prepared: PreparedBody): unknown {
  const { rule, name, input, neutral, given } = prepared;
  const wire = rule.kind ? requestBodyIn(dialect, rule.kind, neutral) : neutral;
  if (isRecord(wire)) rule.wireCheck?.(dialect, wire, input, name);
  // The neutral vocabulary enumerates its tokens: a token it lacks is refused before the neutral service sees it.
  if (dialect === 'neutral' && acceptingEitherDialect(rule.schema) !== rule.schema)
    validateGiven(rule.schema, neutral, name, given);
  return wire;
}

function validateGiven<S extends z.ZodType>(schema: S, value: unknown, name: string, given: GivenNames): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const { field, problem } = describeIssue(result.error, name);
  throw new InvalidArgumentError(givenField(field, name, given), problem);
}

function givenField(field: string, name: string, given: GivenNames): string {
  for (const [neutral, asGiven] of given) {
    const prefix = `${name}.${neutral}`;
    if (field === prefix || field.startsWith(`${prefix}.`)) return `${name}.${asGiven}${field.slice(prefix.length)}`;
  }
  return field;
}

// --- The rules, by call ------------------------------------------------------------------------------------------------

const has = (value: unknown) => value !== undefined;
const inNotInGiven = (filter: unknown) => isRecord(filter) && (has(filter.in) || has(filter.notIn));

const destinationGiven = (input: Json): GivenNames =>
  isRecord(input.destination)
    ? Object.keys(input.destination).flatMap((member) => {
        const neutral = Object.keys(destinationIn('neutral', { [member]: true }))[0] ?? member;
        return neutral === member ? [] : [[`destination.${neutral}`, `destination.${member}`] as const];
      })
    : [];

/** Only members the wire's dialect names for these kinds are sent: a member it lacks would be misread. */
function destinationOnWire(kinds: readonly DestinationKind[]) {
  return (dialect: Dialect, wire: Json, input: Json, name: string) => {
    if (!isRecord(wire.destination)) return;
    const allowed = new Set(kinds.flatMap((k) => Object.keys(destinationIn(dialect, { [k]: true }))));
    const given = isRecord(input.destination) ? Object.keys(input.destination) : [];
    for (const member of Object.keys(wire.destination)) {
      if (allowed.has(member)) continue;
      const kind = destinationKindOf(member);
      const asGiven = given.find((g) => kind !== undefined && destinationKindOf(g) === kind) ?? member;
      throw new InvalidArgumentError(
        `${name}.destination.${asGiven}`,
        `the ${dialect} dialect names no such destination here; use one of ${destinationNames(kinds).join(', ')}`,
      );
    }
  };
}

const restoreRule = (schema: z.ZodType, kind: RequestBodyKind): BodyRule => ({
  schema,
  kind,
  dependsOnDialect: (input) => has(input.destination),
  givenNames: destinationGiven,
  wireCheck: destinationOnWire(DESTINATION_KINDS),
});

const filtersDependOnDialect = (input: Json) =>
  isRecord(input.filters) && (inNotInGiven(input.filters.cloudProvider) || inNotInGiven(input.filters.resourceType));

const accountListRule = (list: AccountList, kind: RequestBodyKind): BodyRule => ({
  schema: s.AccountListInput,
  kind,
  dependsOnDialect: (input) => filtersDependOnDialect(input) || (Array.isArray(input.sorts) && input.sorts.length > 0),
  wireCheck: (dialect, wire, input, name) => {
    if (!Array.isArray(wire.sorts)) return;
    const given = Array.isArray(input.sorts) ? input.sorts : [];
    wire.sorts.forEach((sort: unknown, i) => {
      const field = isRecord(sort) && typeof sort.field === 'string' ? sort.field : undefined;
      if (field === undefined || accountSortFieldKnown(dialect, list, field)) return;
      const asGiven = isRecord(given[i]) && typeof given[i].field === 'string' ? given[i].field : field;
      const known = ACCOUNT_SORT_FIELDS_BY_DIALECT[dialect][list].join(', ');
      throw new InvalidArgumentError(
        `${name}.sorts.${i}.field`,
        `${asGiven} has no counterpart in the ${dialect} dialect; sort ${listName(list)} by ${known}`,
      );
    });
  },
});

const listName = (list: AccountList) => (list === 'sourceAccounts' ? 'source accounts' : 'restore accounts');

const attributesGiven =
  (member: string) =>
  (input: Json): GivenNames =>
    isRecord(input[member])
      ? Object.keys(input[member]).flatMap((key) => {
          const neutral = key === 'cloudProvider' ? key : providerMemberIn('neutral', key);
          return neutral === key ? [] : [[`${member}.${neutral}`, `${member}.${key}`] as const];
        })
      : [];

const noTokens = () => false;

export const BODY_RULES = {
  snapshotList: { schema: s.SnapshotListInput, dependsOnDialect: noTokens },
  jobList: { schema: s.JobListInput, dependsOnDialect: noTokens },
  restoreBucket: restoreRule(s.RestoreBucketInput, 'restoreBucket'),
  restoreFiles: restoreRule(s.RestoreFilesInput, 'restoreFiles'),
  runQuery: {
    schema: s.RunQueryInput,
    kind: 'runQuery',
    dependsOnDialect: (input) => has(input.destination),
    givenNames: destinationGiven,
    // Both dialects name one query destination: an Amazon bucket. Any other is refused as the caller named it.
    precheck: (input, name) => {
      if (!isRecord(input.destination)) return;
      for (const member of Object.keys(input.destination)) {
        const kind = destinationKindOf(member);
        if (kind && !QUERY_DESTINATION_KINDS.includes(kind)) {
          throw new InvalidArgumentError(
            `${name}.destination.${member}`,
            `a query writes its results only to ${destinationNames(QUERY_DESTINATION_KINDS).join(' / ')}`,
          );
        }
      }
    },
    wireCheck: destinationOnWire(QUERY_DESTINATION_KINDS),
  },
  resourceList: { schema: s.ResourceListInput, kind: 'resourceList', dependsOnDialect: filtersDependOnDialect },
  costData: { schema: s.CostDataInput, kind: 'costData', dependsOnDialect: filtersDependOnDialect },
  sourceAccountList: accountListRule('sourceAccounts', 'sourceAccountList'),
  restoreAccountList: accountListRule('restoreAccounts', 'restoreAccountList'),
  connectSourceAccount: {
    schema: s.ConnectSourceAccountInput,
    kind: 'connectSourceAccount',
    dependsOnDialect: (input) => has(input.sourceAccountAttributes),
    givenNames: attributesGiven('sourceAccountAttributes'),
  },
  updateSourceAccount: {
    schema: s.UpdateSourceAccountInput,
    kind: 'updateSourceAccount',
    dependsOnDialect: (input) => has(input.sourceAccountAttributes),
    givenNames: attributesGiven('sourceAccountAttributes'),
    wireCheck: (dialect, wire, input, name) => {
      if (dialect !== 'public' || !isRecord(wire.sourceAccountAttributes)) return;
      const given = isRecord(input.sourceAccountAttributes) ? Object.keys(input.sourceAccountAttributes) : [];
      for (const member of Object.keys(wire.sourceAccountAttributes)) {
        const provider = providerOfMember(member);
        if (provider && PUBLIC_UPDATE_PROVIDERS.includes(provider)) continue;
        const asGiven = given.find((g) => providerOfMember(g) === provider) ?? member;
        throw new InvalidArgumentError(
          `${name}.sourceAccountAttributes.${asGiven}`,
          'the public dialect updates only the aws or gcp attributes of a source account',
        );
      }
    },
  },
  createVault: {
    schema: s.CreateVaultInput,
    kind: 'createVault',
    dependsOnDialect: (input) => has(input.vaultAttributes),
    givenNames: attributesGiven('vaultAttributes'),
  },
  role: {
    schema: s.RoleInput,
    dependsOnDialect: (input) => Array.isArray(input.accessConditions) && input.accessConditions.length > 0,
    // An expression: a string in the neutral vocabulary, a tree in the public dialect (docs/service-interface.md §11).
    wireCheck: (dialect, wire, _input, name) => {
      if (!Array.isArray(wire.accessConditions)) return;
      wire.accessConditions.forEach((condition: unknown, i) => {
        const expression = isRecord(condition) ? condition.expression : undefined;
        if (expression === null || expression === undefined) return;
        const fits = dialect === 'public' ? typeof expression === 'object' : typeof expression === 'string';
        if (fits) return;
        throw new InvalidArgumentError(
          `${name}.accessConditions.${i}.expression`,
          dialect === 'public'
            ? 'the public dialect takes a structured expression ({group: {operator, operands}} or an attribute condition), not a string'
            : 'the neutral dialect takes an expression as a string, not a structured one',
        );
      });
    },
  },
} satisfies Record<string, BodyRule>;
