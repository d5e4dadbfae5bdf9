import { z } from 'zod';
import { ACCOUNT_SORT_FIELDS_BY_DIALECT, PROVIDER_CONCEPTS, PROVIDERS, RESOURCE_TYPE_ROWS } from './dialect';
import { CloudProviderInput, ResourceTypeInput, serviceEnum } from './enums';
import { AccountSortField } from './schemas/accounts';

/**
 * Request schemas that take the tokens of either dialect where the two differ, for checks made before the wire is
 * known (an input, a runbook's arguments). Pure: workflow code imports it.
 */

/**
 * Provider and resource-type values, checked before the wire is known: the neutral ones, or any token shaped like
 * the public dialect's (its document lists more types than the tables name). A responses-only `…_UNSPECIFIED` never.
 * On a neutral wire the closed enums are checked again.
 */
const PUBLIC_TOKEN = /^[A-Z][A-Z0-9_]*$/;
function openEnum(closed: z.ZodEnum, what: string, publicTokens: readonly (string | undefined)[]) {
  const known = new Set<string>(closed.options as readonly string[]);
  const open = z.string().refine((v) => known.has(v) || (PUBLIC_TOKEN.test(v) && !v.endsWith('_UNSPECIFIED')), {
    message: `must be a ${what} of either dialect (e.g. ${[...known].slice(0, 3).join(', ')}, …)`,
  });
  const named = publicTokens.filter((t): t is string => t !== undefined);
  return serviceEnum(open, [...new Set([...known, ...named])]);
}

const ALL_ACCOUNT_SORT_FIELDS = [
  ...new Set(Object.values(ACCOUNT_SORT_FIELDS_BY_DIALECT).flatMap((byList) => Object.values(byList).flat())),
] as [string, ...string[]];

const OPEN_SWAPS = new Map<z.core.$ZodType, z.core.$ZodType>([
  [
    CloudProviderInput,
    openEnum(
      CloudProviderInput,
      'cloudProvider',
      PROVIDER_CONCEPTS.map((p) => PROVIDERS[p].value.public),
    ),
  ],
  [
    ResourceTypeInput,
    openEnum(
      ResourceTypeInput,
      'resource type',
      RESOURCE_TYPE_ROWS.map((r) => r.public),
    ),
  ],
  [AccountSortField, z.enum(ALL_ACCOUNT_SORT_FIELDS)],
]);
const openSchemas = new WeakMap<z.core.$ZodType, z.ZodType>();

/**
 * The schema with the enums above open to the public dialect; the schema itself when it holds none. Its type says
 * the neutral enum still: a value may be a public token, which the client renames or judges against the wire.
 */
export function acceptingEitherDialect<S extends z.ZodType>(schema: S): S {
  let open = openSchemas.get(schema);
  if (!open) {
    open = swapDeep(schema, OPEN_SWAPS) as z.ZodType;
    openSchemas.set(schema, open);
  }
  return open as S;
}

/** A copy of the schema with some parts swapped; refinements and strictness are kept, unchanged parts shared. */
function swapDeep(schema: z.core.$ZodType, swaps: ReadonlyMap<z.core.$ZodType, z.core.$ZodType>): z.core.$ZodType {
  const swapped = swaps.get(schema);
  if (swapped) return swapped;
  const { clone } = z.core;
  const inner = (part: z.core.$ZodType) => swapDeep(part, swaps);
  if (schema instanceof z.core.$ZodObject) {
    const def = schema._zod.def;
    const entries = Object.entries(def.shape);
    const shape = Object.fromEntries(entries.map(([key, value]) => [key, inner(value)]));
    return entries.every(([key, value]) => shape[key] === value) ? schema : clone(schema, { ...def, shape });
  }
  if (schema instanceof z.core.$ZodOptional || schema instanceof z.core.$ZodNullable) {
    const innerType = inner(schema._zod.def.innerType);
    return innerType === schema._zod.def.innerType ? schema : clone(schema, { ...schema._zod.def, innerType });
  }
  if (schema instanceof z.core.$ZodArray) {
    const element = inner(schema._zod.def.element);
    return element === schema._zod.def.element ? schema : clone(schema, { ...schema._zod.def, element });
  }
  return schema;
}
