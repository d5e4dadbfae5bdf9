import { z } from 'zod';
import { SortOrderInput } from '../enums';

/**
 * Responses keep fields this client does not know. Request schemas are `z.strictObject`: an unknown key is refused
 * by the client before sending and by the simulator, so that a misspelt field is an error, never silently dropped.
 */
export const record = z.looseObject;

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

/** A paged list response: its items under `key`, plus `totalCount` and `nextToken`. */
export function pageOf<K extends string, T extends z.ZodType>(key: K, item: T) {
  return record({
    totalCount: z.number().int().optional(),
    nextToken: z.string().nullish(),
  }).extend({ [key]: z.array(item) } as { [P in K]: z.ZodArray<T> });
}

/**
 * A field the public dialect may send as null (facts §11), decoded as absent: null there means "not known", which is
 * what an absent field already says, so readers have one case to handle and never take null for 0.
 */
export function nullAsAbsent<T extends z.ZodType>(schema: T) {
  return schema
    .nullable()
    .transform((value): z.output<T> | undefined => value ?? undefined)
    .optional();
}

export const ErrorBody = record({ error: z.string().optional() });

export const JobStarted = record({ jobId: z.string() });
export type JobStarted = z.infer<typeof JobStarted>;
