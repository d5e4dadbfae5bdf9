import type { z } from 'zod';
import { describeIssue } from '../api';

/** An error reply: the status and the `{error}` text. */
export class SimError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** Validates a request part with the shared schema; a failure is a 400 naming the field. */
export function parse<T extends z.ZodType>(schema: T, value: unknown, where: string): z.output<T> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const { field, problem } = describeIssue(result.error, where);
  throw new SimError(400, `invalid ${field}: ${problem}`);
}

export const notFound = (what: string) => new SimError(404, `${what} not found`);
export const conflict = (why: string) => new SimError(409, why);
export const forbidden = (why: string) => new SimError(403, why);
