import type { z } from 'zod';
import { InvalidArgumentError } from './errors';

/**
 * The field and the problem of a validation error's first issue, the field prefixed with `name`. An unknown key is
 * named itself (`body.groupby: unrecognized key`), so that a misspelling points at the misspelled word.
 */
export function describeIssue(error: z.ZodError, name: string): { field: string; problem: string } {
  const issue = error.issues[0];
  const path = [name, ...(issue?.path ?? []).map(String)];
  if (issue?.code === 'unrecognized_keys') {
    return { field: [...path, issue.keys[0] ?? ''].join('.'), problem: 'unrecognized key' };
  }
  return { field: path.join('.'), problem: issue?.message ?? 'invalid value' };
}

/** Checks an argument before anything is sent, naming the first bad field. */
export function validate<T extends z.ZodType>(schema: T, value: unknown, name: string): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const { field, problem } = describeIssue(result.error, name);
  throw new InvalidArgumentError(field, problem);
}

/** A path parameter must be a non-empty string. */
export function requireId(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new InvalidArgumentError(name, 'must be a non-empty string');
  return value;
}
