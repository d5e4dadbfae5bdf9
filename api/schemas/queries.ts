import { z } from 'zod';
import { QUERY_STATUSES, openEnum } from '../enums';
import { record } from './common';

export const QueryDestination = z.strictObject({
  bucketA: z.strictObject({ bucketName: z.string().min(1), prefix: z.string().optional() }).optional(),
});
export type QueryDestination = z.infer<typeof QueryDestination>;

export const RunQueryInput = z.strictObject({
  databaseName: z.string().min(1),
  query: z.string().regex(/\S/, 'must not be blank'),
  restoreAccountId: z.string().min(1),
  destination: QueryDestination,
});
export type RunQueryInput = z.infer<typeof RunQueryInput>;

export const QueryStarted = record({ queryId: z.string() });

export const QueryStatusBody = record({
  status: openEnum(QUERY_STATUSES),
  runningTimeMs: z.number().optional(),
  errorMessage: z.string().nullish(),
  outputLocations: z.array(z.string()).optional(),
});
export type QueryStatusBody = z.infer<typeof QueryStatusBody>;

export const QueryResults = record({
  columns: z.array(z.string()),
  // Checked by the compiled check (api/decode.ts) on the hot path: one loop, no copy; zod only for a bad page.
  records: z.array(z.array(z.string())),
  nextToken: z.string().nullable(),
});
export type QueryResults = z.infer<typeof QueryResults>;
