import type { z } from 'zod';
import { InvalidArgumentError } from './errors';

/** Checks an argument before anything is sent, naming the first bad field. */
export function validate<T extends z.ZodType>(schema: T, value: unknown, name: string): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = [name, ...(issue?.path ?? []).map(String)].join('.');
  throw new InvalidArgumentError(field, issue?.message ?? 'invalid');
}

/** A path parameter must be a non-empty string. */
export function requireId(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new InvalidArgumentError(name, 'must be a non-empty string');
  return value;
}
