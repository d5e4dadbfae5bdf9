import { z } from 'zod';
import { NULL_AS_ABSENT } from '../decode';
import { SortOrderInput } from '../enums';

/**
 * A field the public dialect may send as null (docs/service-interface.md §11), decoded as absent: null there means "not
 * known", which is what an absent field already says, so readers have one case to handle and never take null for 0.
 */
export function nullAsAbsent<T extends z.ZodType>(schema: T) {
  const pipe = schema.nullable().transform((value): z.output<T> | undefined => value ?? undefined);
  // The compiled check (api/decode.ts) may pass a non-null value as it is: only null is changed.
  NULL_AS_ABSENT.add(pipe);
  return pipe.optional();
}

/**
 * A field no runbook reads (the tolerant reader), whether the document marks it required or not: kept when it has the
 * known shape, dropped when it is null, absent or of another shape, so that it never fails the call. Fields the
 * runbooks read stay checked (docs/service-interface.md §9).
 */
export function tolerant<T extends z.ZodType>(schema: T) {
  return schema.optional().catch(undefined).optional();
}

type Tolerant<T> = T extends z.ZodType ? ReturnType<typeof tolerant<T>> : never;

/**
 * The decoder of a documented response record: the record with the fields `unread`, which nothing outside the client
 * and the simulator reads, made tolerant (whether the document marks them required or not). The documented record
 * stays what the service sends (the simulator builds its answers with it); the decoder refuses a body only for a field
 * something reads, and names that field.
 */
export function readerOf<S extends z.core.$ZodLooseShape, K extends keyof S & string>(
  documented: z.ZodObject<S, z.core.$loose>,
  unread: readonly K[],
) {
  const shape = documented.shape;
  const tolerantShape = Object.fromEntries(unread.map((key) => [key, tolerant(shape[key] as z.ZodType)]));
  return documented.extend(tolerantShape as { [P in K]: Tolerant<S[P]> });
}

type OptionalAsNullable<S extends z.core.$ZodLooseShape> = {
  [K in keyof S]: S[K] extends z.ZodOptional<infer T extends z.ZodType> ? ReturnType<typeof nullAsAbsent<T>> : S[K];
};

/**
 * A response record. It keeps fields this client does not know, and reads null in any optional field as absent (the
 * document lets most optional fields be null). Request schemas are `z.strictObject`: an unknown key is refused by the
 * client before sending and by the simulator, so that a misspelt field is an error, never silently dropped.
 */
export function record<S extends z.core.$ZodLooseShape>(shape: S) {
  const lenient = Object.fromEntries(
    Object.entries(shape).map(([key, field]) => [key, field instanceof z.ZodOptional ? optionalAsNullable(field) : field]),
  );
  return z.looseObject(lenient as OptionalAsNullable<S>);
}

function optionalAsNullable(field: z.ZodOptional): z.ZodType {
  const inner = field.unwrap() as z.ZodType;
  // Already null-tolerant (nullish, null-as-absent, tolerant).
  if (['nullable', 'pipe', 'catch', 'optional'].includes(inner._zod.def.type)) return field;
  return nullAsAbsent(inner);
}

export const Timestamp = z.string();
export const TimestampInput = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' });

/** `pageToken` and `pageSize` query parameters of every paged call. */
export const PageParams = z.object({
  pageToken: z.string().min(1).optional(),
  pageSize: z.number().int().min(1, 'must be at least 1').optional(),
});
export type PageParams = z.infer<typeof PageParams>;

/** `{in, notIn}` over any value schema. */
export function inNotIn<T extends z.ZodType>(value: T) {
  return z.strictObject({ in: z.array(value).optional(), notIn: z.array(value).optional() });
}

export function sortsOf<T extends z.ZodType>(field: T) {
  return z.array(z.strictObject({ field, order: SortOrderInput }));
}

/**
 * A paged list response: its items under `key`, plus `totalCount` and `nextToken`. Only the inventory's count is read
 * (the posture report's progress, `ResourcePage`): elsewhere it is tolerant.
 */
export function pageOf<K extends string, T extends z.ZodType>(key: K, item: T) {
  return record({
    totalCount: tolerant(z.number().int()),
    nextToken: z.string().nullish(),
  }).extend({ [key]: z.array(item) } as { [P in K]: z.ZodArray<T> });
}

export const ErrorBody = record({ error: z.string().optional() });

export const JobStarted = record({ jobId: z.string() });
export type JobStarted = z.infer<typeof JobStarted>;
