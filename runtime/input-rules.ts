/**
 * Rules every runbook input follows, shared by the workflows (which check their input first) and the CLI (which
 * checks it before starting anything). Pure: workflow code imports it.
 */
import { z } from 'zod';
import { TimestampInput } from '../api/schemas/common';
import { QueryDestination } from '../api/schemas/queries';
import { FilePath, ObjectStorageDestination } from '../api/schemas/restore';
import {
  DESTINATION_KINDS,
  DESTINATIONS,
  QUERY_DESTINATION_KINDS,
  destinationIn,
  destinationKindOf,
  destinationNames,
  type DestinationKind,
} from '../api/dialect';
import { filtersIn, requestBodyIn } from '../api/dialect/requests';
import { acceptingEitherDialect } from '../api/either-dialect';
import { ResourceFilters } from '../api/schemas/filters';
import { SERVICE_ENUMS } from '../api/enums';

const DAY_MS = 24 * 3600 * 1000;

/**
 * The same schema with every object in it strict: an unknown key (a misspelled `resourceTypes`, `retentionDay`) is an
 * error naming the key and the closest known one, never silently dropped; so is a value no enum of the runbook's own
 * knows. Refinements and defaults are kept.
 */
export function strictDeep<T extends z.ZodType>(schema: T): T {
  return strictCore(schema, namedEnum) as T;
}

/**
 * The same schema walked to its leaves, each object strict and each leaf replaced by `leaf` (the leaf itself when
 * `leaf` returns it).
 */
function strictCore(schema: z.core.$ZodType, leaf: (schema: z.core.$ZodType) => z.core.$ZodType): z.core.$ZodType {
  const { clone } = z.core;
  const inner = (part: z.core.$ZodType) => strictCore(part, leaf);
  if (schema instanceof z.core.$ZodObject) {
    const def = schema._zod.def;
    const shape = Object.fromEntries(Object.entries(def.shape).map(([key, value]) => [key, inner(value)]));
    const known = Object.keys(shape);
    const previous = def.error;
    const error: z.core.$ZodErrorMap = (issue) =>
      issue.code === 'unrecognized_keys' ? unknownKeys(issue.keys, known) : previous?.(issue as never);
    return clone(schema, { ...def, shape, catchall: z.never(), error });
  }
  if (schema instanceof z.core.$ZodOptional || schema instanceof z.core.$ZodNullable) {
    return clone(schema, { ...schema._zod.def, innerType: inner(schema._zod.def.innerType) });
  }
  if (schema instanceof z.core.$ZodDefault || schema instanceof z.core.$ZodPrefault) {
    return clone(schema, { ...schema._zod.def, innerType: inner(schema._zod.def.innerType) });
  }
  if (schema instanceof z.core.$ZodArray) {
    return clone(schema, { ...schema._zod.def, element: inner(schema._zod.def.element) });
  }
  if (schema instanceof z.core.$ZodUnion) {
    return clone(schema, { ...schema._zod.def, options: schema._zod.def.options.map(inner) });
  }
  if (schema instanceof z.core.$ZodPipe) {
    const def = schema._zod.def;
    return clone(schema, { ...def, in: inner(def.in), out: inner(def.out) });
  }
  return leaf(schema);
}

/**
 * A runbook's own enum refuses a value with the closest known one. The service's enums are left as they are, for
 * `runbookInput` to find.
 */
function namedEnum(schema: z.core.$ZodType): z.core.$ZodType {
  if (!(schema instanceof z.core.$ZodEnum) || SERVICE_ENUMS.has(schema)) return schema;
  const known = Object.values(schema._zod.def.entries).map(String);
  const error: z.core.$ZodErrorMap = (issue) =>
    issue.code === 'invalid_value' ? unknownValue(String(issue.input), known) : undefined;
  return z.core.clone(schema, { ...schema._zod.def, error });
}

/** What marks an unknown value of the service's enums, for `runbookInput` to keep or drop. */
const UNKNOWN_VALUE = 'unknownValue';

/** The top-level key that lets an input carry values of the service's enums this release does not know. */
export const ALLOW_UNKNOWN_VALUES = 'allowUnknownValues';

const closedServiceEnum = (schema: z.core.$ZodType): z.core.$ZodType => {
  const known = SERVICE_ENUMS.get(schema);
  if (!known) return schema;
  return z.string().superRefine((value, ctx) => {
    if (known.includes(value)) return;
    const added = `a value the service added after this release needs ${ALLOW_UNKNOWN_VALUES}: true`;
    ctx.addIssue({
      code: 'custom',
      message: `${unknownValue(value, known)}; ${added}`,
      params: { [UNKNOWN_VALUE]: true },
    });
  });
};

/** Known values listed (for editors), any other string taken: whether it may be is `runbookInput`'s to say. */
const openServiceEnum = (schema: z.core.$ZodType): z.core.$ZodType => {
  const known = SERVICE_ENUMS.get(schema);
  if (!known) return schema;
  const other = z.string().describe(`a value this release does not know, with ${ALLOW_UNKNOWN_VALUES}: true`);
  return z.union([z.enum(known as [string, ...string[]]), other]);
};

/** What a runbook input takes besides its own fields. */
export interface UnknownValuesFlag {
  /** Take values of the service's enums this release does not know (the service added them since). */
  allowUnknownValues?: boolean;
}

/**
 * A runbook's input: strict as `strictDeep` makes it, and a value of one of the service's enums that this release
 * does not know (`PA_VMM`) refused with the closest known one, unless the input says `allowUnknownValues: true`.
 * The service's enums stay open in responses (api/enums.ts): only what a user types is held to the known values.
 */
export function runbookInput<T extends z.ZodType>(schema: T) {
  const strict = strictCore(schema, namedEnum);
  const closed = strictCore(strict, closedServiceEnum);
  const open = strictCore(strict, openServiceEnum) as T;
  const input = z.preprocess((raw: z.input<T> & UnknownValuesFlag, ctx) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || !(ALLOW_UNKNOWN_VALUES in raw)) {
      addUnknownValues(closed, raw, ctx);
      return raw;
    }
    const { [ALLOW_UNKNOWN_VALUES]: allow, ...rest } = raw;
    if (typeof allow !== 'boolean') {
      ctx.addIssue({ code: 'custom', path: [ALLOW_UNKNOWN_VALUES], input: allow, message: 'must be true or false' });
    } else if (!allow) addUnknownValues(closed, rest, ctx);
    return rest as z.input<T>;
  }, open);
  CLOSED.set(input, closed);
  return input;
}

const CLOSED = new WeakMap<z.core.$ZodType, z.core.$ZodType>();

/**
 * The values of the service's enums an input holds that this release does not know (`filters.resourceType.in.0:
 * unknown value 'PA_VMM' …`): what `allowUnknownValues: true` let through, for the CLI to warn about.
 */
export function unknownValuesIn(schema: z.core.$ZodType, raw: unknown): string[] {
  const closed = CLOSED.get(schema);
  if (!closed || typeof raw !== 'object' || raw === null) return [];
  const { [ALLOW_UNKNOWN_VALUES]: _allow, ...rest } = raw as Record<string, unknown>;
  return unknownValueIssues(closed, rest).map((issue) => `${issue.path.join('.')}: ${issue.message.split(';')[0]}`);
}

/** The issues of the closed variant that are unknown values of the service's enums (others are the open one's). */
function unknownValueIssues(closed: z.core.$ZodType, raw: unknown): z.core.$ZodIssue[] {
  const issues = z.safeParse(closed, raw).error?.issues ?? [];
  return issues.filter((issue) => issue.code === 'custom' && issue.params?.[UNKNOWN_VALUE] === true);
}

function addUnknownValues(closed: z.core.$ZodType, raw: unknown, ctx: z.RefinementCtx): void {
  for (const { message, path } of unknownValueIssues(closed, raw)) ctx.addIssue({ code: 'custom', message, path });
}

function unknownKeys(keys: string[], known: string[]): string {
  const [first = '', ...others] = keys;
  const guess = closest(first, known);
  const hint = guess ? `did you mean '${guess}'?` : `known fields: ${known.join(', ')}`;
  const also = others.length > 0 ? `; also unknown: ${others.map((k) => `'${k}'`).join(', ')}` : '';
  return `unknown field (${hint})${also}`;
}

function unknownValue(value: string, known: readonly string[]): string {
  const guess = closest(value, known);
  const hint = guess ? `did you mean '${guess}'?` : `known values: ${known.join(', ')}`;
  return `unknown value '${value}' (${hint})`;
}

/**
 * The known key a typo most likely meant: the same ignoring case, a short form of it (`isDir`), or at most a third of
 * its letters changed.
 */
export function closest(key: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  const lower = key.toLowerCase();
  for (const name of known) {
    const other = name.toLowerCase();
    const shortened = lower.length >= 3 && (other.startsWith(lower) || lower.startsWith(other));
    const distance = other === lower ? 0 : shortened ? 1 : editDistance(key, name);
    if (distance <= Math.max(2, Math.floor(name.length / 3)) && (!best || distance < best.distance)) {
      best = { name, distance };
    }
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      next[j] = Math.min((row[j] ?? 0) + 1, (next[j - 1] ?? 0) + 1, (row[j - 1] ?? 0) + cost);
    }
    row = next;
  }
  return row[b.length] ?? 0;
}

/** A string with something other than white space in it. */
export const NonBlank = z.string().regex(/\S/, 'must not be blank');

/** A SQL statement: white space alone is no query. */
export const QueryText = z.string().regex(/\S/, 'must not be blank: give a SELECT statement');

/**
 * Inputs are kept in the interface's own (neutral) vocabulary, in history too; the client renames them to the wire's
 * dialect when it sends them.
 */
const WIRE = 'neutral';

/** A destination as inputs may give it: members named by concept or by either dialect. */
export type DestinationByAnyName = Readonly<Record<string, unknown>>;

const member = (kind: DestinationKind) => DESTINATIONS[kind][WIRE] ?? kind;
const named = (kinds: readonly DestinationKind[]) => destinationNames(kinds).join(', ');
const memberSchemas = (schema: z.ZodObject): Readonly<Record<string, z.ZodType | undefined>> => schema.shape;

/**
 * A destination whose members may be named by concept or by either dialect. It is checked under the names it was
 * given, so that a refusal names what the user wrote, then renamed to the interface's own members. A member of a
 * kind this target cannot take (a query's Google bucket) is refused.
 */
function destinationByAnyName<T extends z.ZodObject>(schema: T, kinds: readonly DestinationKind[], problem: string) {
  const shape: Record<string, z.ZodType> = {};
  for (const kind of DESTINATION_KINDS) {
    const own = memberSchemas(schema)[member(kind)] ?? memberSchemas(ObjectStorageDestination)[member(kind)];
    if (own) for (const name of destinationNames([kind])) shape[name] = own;
  }
  return strictDeep(z.strictObject(shape))
    .superRefine((destination, ctx) => {
      const seen = new Map<DestinationKind, string>();
      for (const given of Object.keys(destination)) {
        const kind = destinationKindOf(given);
        if (!kind) continue;
        if (!kinds.includes(kind)) ctx.addIssue({ code: 'custom', path: [given], message: problem });
        const twice = seen.get(kind);
        if (twice) ctx.addIssue({ code: 'custom', path: [given], message: `names the same target as ${twice}` });
        seen.set(kind, given);
      }
    })
    .transform((destination) => destinationIn(WIRE, destination) as z.output<T>);
}

/**
 * Where a restore writes. The service restores to the original location when no target fits the resource; a runbook
 * never does that by accident, so at least one target is named.
 */
export const RestoreTarget = destinationByAnyName(ObjectStorageDestination, DESTINATION_KINDS, '').refine(
  (d) => Object.values(d).some((target) => target !== undefined),
  `name a target (${named(DESTINATION_KINDS)}); a runbook never restores over the original location`,
);

/** Where a query writes its results: a bucket must be named. */
export const QueryTarget = destinationByAnyName(
  QueryDestination,
  QUERY_DESTINATION_KINDS,
  `a query writes its results only to ${named(QUERY_DESTINATION_KINDS)}`,
).refine((d) => Object.values(d).some((target) => target !== undefined), {
  message: `name the bucket the results go to (${named(QUERY_DESTINATION_KINDS)})`,
});

/**
 * Inventory filters: provider and resource-type values of either dialect (or provider concepts) are kept in the
 * neutral vocabulary; a public one the tables lack is kept as given, for the client to judge against the wire. Typed
 * as the neutral filters are.
 */
export const InventoryFilters = z.preprocess(
  (value: z.input<typeof ResourceFilters>) => filtersIn(WIRE, value),
  strictDeep(acceptingEitherDialect(ResourceFilters)),
);

/** A cost-data request (or its options), its filters taken as `InventoryFilters` takes them. */
export function costRequest<T extends z.ZodType>(schema: T) {
  // Typed as the neutral request is: values of the other dialect are accepted as well.
  return z.preprocess(
    (value: z.input<T>) => requestBodyIn(WIRE, 'costData', value),
    strictDeep(acceptingEitherDialect(schema)),
  );
}

/** An explicit time frame, as the service takes it: in order and at least 24 hours long. */
export const TimeWindow = z
  .strictObject({ startTime: TimestampInput, endTime: TimestampInput })
  .refine(inOrder, {
    message: 'must be after startTime',
    path: ['endTime'],
  })
  .refine((w) => !(Date.parse(w.endTime) - Date.parse(w.startTime) < DAY_MS) || !inOrder(w), {
    message: 'the window must span at least 24 hours (the service refuses shorter ones)',
    path: ['endTime'],
  });

function inOrder(w: { startTime: string; endTime: string }): boolean {
  return !(Date.parse(w.endTime) <= Date.parse(w.startTime));
}

/** What a restore brings back: `files` (never needs approval; the default) or the `bucket` whole, which may. */
export const RestoreKind = z.enum(['bucket', 'files']).default('files');

/** The files a `files` restore brings back: by default the whole resource. */
export const RestoredFiles = z
  .array(FilePath)
  .min(1)
  .default([{ path: '/', isDirectory: true }]);
