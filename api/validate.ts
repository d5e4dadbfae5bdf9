import type { z } from 'zod';
import { InvalidArgumentError } from './errors';

/** An issue's path; an unknown key's ends with the key itself, so that a misspelling points at the misspelled word. */
export function issuePath(issue: z.core.$ZodIssue): string[] {
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined) path.push(issue.keys[0]);
  return path;
}

/** Unknown keys first: a misspelled key explains the "required" issue of the key it was meant to be. */
export function issuesInOrder(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  return [...issues].sort((a, b) => Number(b.code === 'unrecognized_keys') - Number(a.code === 'unrecognized_keys'));
}

/** An issue's field as a dotted path; an unknown key's path ends with the key itself (`filters.resourceTypes`). */
export function issueField(issue: z.core.$ZodIssue, whole = 'input'): string {
  return issuePath(issue).join('.') || whole;
}

/** An issue's message; a union's bare "Invalid input" says nothing, so what each alternative wanted is listed. */
export function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return issue.message;
  const wanted = issue.errors.map((alternative) => {
    const first = alternative[0];
    if (!first) return 'something else';
    const field = issueField(first);
    return `${field === 'input' ? '' : `${field}: `}${first.message}`;
  });
  return `${issue.message}; it matches none of: ${wanted.join(' | ')}`;
}

/** The field and the problem of a validation error's first issue, the field prefixed with `name`. */
export function describeIssue(error: z.ZodError, name: string): { field: string; problem: string } {
  const issue = error.issues[0];
  if (!issue) return { field: name, problem: 'invalid value' };
  const problem = issue.code === 'unrecognized_keys' ? 'unrecognized key' : issue.message;
  return { field: [name, ...issuePath(issue)].join('.'), problem };
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

/**
 * An issue as the CLI explains a refused input: the field's JSON path, what was expected (the allowed values of an
 * enum, the pattern a string must match) and what was given. `input` is the value that was checked.
 */
export function explainIssue(issue: z.core.$ZodIssue, input: unknown): string {
  const field = issueField(issue);
  if (issue.code === 'unrecognized_keys') return `${field}: ${issue.message}`;
  const given = valueAt(input, issue.path);
  if (issue.code === 'invalid_type' && given.absent) return `${field}: required (expected ${issue.expected})`;
  const got = given.absent ? '' : shown(given.value);
  const gotText = got ? `; got ${got}` : '';
  if (issue.code === 'invalid_type' && issue.message.startsWith('Invalid input: expected')) {
    return `${field}: expected ${issue.expected}, got ${kindOf(given.value)}${got ? ` ${got}` : ''}`;
  }
  if (issue.code === 'invalid_format' && issue.format === 'regex' && issue.pattern) {
    return `${field}: ${issue.message} (expected a string matching ${issue.pattern}${gotText})`;
  }
  return `${field}: ${issueMessage(issue)}${gotText}`;
}

/** The value at a path, and whether anything is there at all. */
function valueAt(input: unknown, path: readonly PropertyKey[]): { absent: boolean; value?: unknown } {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return { absent: true };
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return { absent: value === undefined, value };
}

function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/** A given value worth quoting back: a scalar, cut short. Objects and arrays are named by their field already. */
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return '';
}
