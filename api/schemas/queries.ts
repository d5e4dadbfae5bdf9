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

/**
 * Rows of strings, checked in one loop: it accepts what `z.array(z.array(z.string()))` does, but a results page holds
 * up to 10,000 rows and a schema step per value cost as much as writing the page. A bad page is still an
 * InvalidResponseError naming `records`.
 */
const StringRows = z.custom<string[][]>(isStringRows, { message: 'expected a list of rows, each a list of strings' });

function isStringRows(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (const row of value as unknown[]) {
    if (!Array.isArray(row)) return false;
    for (const field of row as unknown[]) if (typeof field !== 'string') return false;
  }
  return true;
}

export const QueryResults = record({
  columns: z.array(z.string()),
  records: StringRows,
  nextToken: z.string().nullable(),
});
export type QueryResults = z.infer<typeof QueryResults>;
