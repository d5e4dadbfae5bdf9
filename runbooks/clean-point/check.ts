// A clean-point check: SQL queries run on a snapshot through the service's query call, each with an expectation of
// its result. Pure, for workflow code: input schema, expectations, and the check's canonical text for hashing.
//
// Expectations: `rows <op> N` as the drill's SQL check takes it (../dr-drill/expectations.ts), or `value <op> <literal>`
// on the first column of the first row. A literal is a number (`value >= 10`) or a single-quoted string, '' for a
// quote (`value = '9f2c'`); strings compare with =, == and != only, as text. A number compares numerically with a
// numeric value ("0.0" equals 0): a value that is no number, a NULL or no row at all fails, whatever the operator.
// Numbers are doubles: compare a checksum or a big integer as a string.
import { z } from 'zod';
import { NonBlank, QueryTarget, QueryText } from '../../runtime/input-rules';
import { compare, EXPECTATION, type Operator } from '../dr-drill/expectations';

/** The longest SQL statement a check takes. */
export const MAX_SQL_LENGTH = 10_000;
/** The most queries in one check: each runs on every snapshot the search probes. */
export const MAX_QUERIES = 20;

const EXPECTATION_HINT = `like 'rows >= 1' or "value = 'abc'"`;

const VALUE_EXPECTATION = /^\s*value\s*(>=|<=|==|=|>|<|!=)\s*(-?\d+(?:\.\d+)?|'(?:[^']|'')*')\s*$/;
/** A numeric value as the service returns it in text: decimal, optionally signed, with an exponent. */
const NUMERIC = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

export type { Operator };

export type Expectation =
  /** On the number of rows. */
  | { kind: 'rows'; op: Operator; count: number }
  /** On the first column of the first row. */
  | { kind: 'value'; op: Operator; literal: number | string };

export type ParsedExpectation = { ok: true; expectation: Expectation } | { ok: false; error: string };

export function parseExpectation(text: string): ParsedExpectation {
  const rows = EXPECTATION.exec(text);
  if (rows) return { ok: true, expectation: { kind: 'rows', op: rows[1] as Operator, count: Number(rows[2]) } };
  const value = VALUE_EXPECTATION.exec(text);
  if (!value) return { ok: false, error: `${JSON.stringify(text)} is no expectation: ${EXPECTATION_HINT}` };
  const op = value[1] as Operator;
  const literal = value[2]!;
  if (!literal.startsWith("'")) return { ok: true, expectation: { kind: 'value', op, literal: Number(literal) } };
  if (op !== '=' && op !== '==' && op !== '!=') {
    return { ok: false, error: `${JSON.stringify(text)} orders a string: compare strings with =, == or != only` };
  }
  return { ok: true, expectation: { kind: 'value', op, literal: literal.slice(1, -1).replaceAll("''", "'") } };
}

/** The result of one query, as far as expectations read it. */
export interface QueryOutcome {
  rows: number;
  /** The first column of the first row: undefined with no row, null for SQL NULL. */
  firstValue?: string | number | null;
}

/** Whether a result meets the expectation. A text that is no expectation fails; nothing here throws. */
export function meetsExpectation(expectation: Expectation | string, result: QueryOutcome): boolean {
  let parsed: Expectation;
  if (typeof expectation === 'string') {
    const parsing = parseExpectation(expectation);
    if (!parsing.ok) return false;
    parsed = parsing.expectation;
  } else {
    parsed = expectation;
  }
  if (parsed.kind === 'rows') return compare(result.rows, parsed.op, parsed.count);
  const value = result.firstValue;
  if (value === undefined || value === null) return false;
  if (typeof parsed.literal === 'string') {
    const equal = String(value) === parsed.literal;
    return parsed.op === '!=' ? !equal : equal;
  }
  const n = typeof value === 'number' ? value : NUMERIC.test(value) ? Number(value) : Number.NaN;
  return Number.isFinite(n) && compare(n, parsed.op, parsed.literal);
}

const Expect = z.string().superRefine((text, ctx) => {
  const parsed = parseExpectation(text);
  if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.error });
});

const CheckQuery = z.strictObject({
  name: NonBlank,
  sql: QueryText.max(MAX_SQL_LENGTH, `at most ${MAX_SQL_LENGTH.toLocaleString('en')} characters`),
  expect: Expect,
});

export const CleanCheck = z.strictObject({
  /** Shown in reports as "clean as of <name>". */
  name: NonBlank,
  databaseName: NonBlank,
  queries: z
    .array(CheckQuery)
    .min(1, 'a check runs at least one query')
    .max(MAX_QUERIES, `at most ${MAX_QUERIES} queries: each runs on every snapshot probed`)
    .refine((queries) => new Set(queries.map((q) => q.name)).size === queries.length, {
      message: 'names a query twice: reports tell queries by name',
    }),
  /** Where the query call writes its output. */
  destination: QueryTarget,
});
export type CleanCheckInput = z.input<typeof CleanCheck>;
export type CleanCheck = z.output<typeof CleanCheck>;

/**
 * The check (or a validation) as text for hashing: JSON with every object's keys sorted, so the same check gives the same text however
 * its keys were ordered. Queries keep their order. Hash the validated check: the destination is then in the
 * interface's own names, whichever dialect it was given in.
 */
export function canonicalCheck(check: object): string {
  return JSON.stringify(sortedKeys(check));
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    sorted[key] = sortedKeys((value as Record<string, unknown>)[key]);
  }
  return sorted;
}
