import initSqlJs, { type Database, type SqlJsStatic, type SqlValue, type Statement } from 'sql.js';

/** The SQL engine behind database queries: sql.js (SQLite in WebAssembly), loaded once from node_modules. */

let engine: Promise<SqlJsStatic> | undefined;

export function loadSqlEngine(): Promise<SqlJsStatic> {
  engine ??= initSqlJs({ locateFile: (file: string) => require.resolve(`sql.js/dist/${file}`) });
  return engine;
}

/** A result set with every value as a string; NULL becomes the empty string, as in the CSV. */
export interface QueryOutput {
  columns: string[];
  rows: string[][];
}

/** Refused statements and engine errors, with the message the query's FAILED status carries. */
export class QueryFailure extends Error {}

/** Guards the server against a runaway join: the whole result is held in memory. */
export const MAX_RESULT_ROWS = 1_000_000;

/** Leading whitespace and SQL comments, which may precede the statement's first keyword. */
const LEADING_NOISE = /^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*/;
const LEADING_NOISE_AND_SEMICOLONS = /^(?:\s+|;|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*/;

/**
 * Why a statement is not accepted, or undefined when it is: one statement, starting with SELECT or WITH. A WITH that
 * ends in a write passes this check and is stopped by the database being read-only (see `runSelect`).
 */
export function selectOnlyError(sql: string): string | undefined {
  const body = sql.replace(LEADING_NOISE, '');
  const keyword = /^[A-Za-z]+/.exec(body)?.[0]?.toUpperCase();
  if (keyword !== 'SELECT' && keyword !== 'WITH') {
    const start = keyword ?? JSON.stringify(body.slice(0, 10));
    return `only SELECT statements are accepted (the statement starts with ${start})`;
  }
  return undefined;
}

function asText(value: SqlValue): string {
  if (value === null) return '';
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
  return String(value);
}

/** Runs one SELECT; throws `QueryFailure` with the engine's message when SQLite refuses it. */
export function runSelect(db: Database, sql: string): QueryOutput {
  const refused = selectOnlyError(sql);
  if (refused) throw new QueryFailure(refused);
  // The iterator frees each statement when it moves on: take the first and look at what text remains.
  const iterator: Iterator<Statement> & { getRemainingSQL(): string } = db.iterateStatements(sql);
  try {
    const statement = iterator.next().value as Statement | undefined;
    if (!statement) throw new QueryFailure('the query holds no statement');
    if (iterator.getRemainingSQL().replace(LEADING_NOISE_AND_SEMICOLONS, '') !== '') {
      throw new QueryFailure('only a single SELECT statement is accepted per query');
    }
    const columns = statement.getColumnNames();
    const rows: string[][] = [];
    while (statement.step()) {
      if (rows.length >= MAX_RESULT_ROWS) throw new QueryFailure(`the result exceeds ${MAX_RESULT_ROWS} rows`);
      rows.push(statement.get().map(asText));
    }
    return { columns, rows };
  } catch (err) {
    if (err instanceof QueryFailure) throw err;
    throw new QueryFailure(engineMessage(err));
  } finally {
    // Frees the statement and the iterator's copy of the SQL text.
    iterator.return?.();
  }
}

function engineMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  // The databases are query_only: a write hidden behind WITH surfaces as this SQLite error.
  if (/readonly database/i.test(message)) return 'only SELECT statements are accepted (the statement writes)';
  return message;
}

/** One CSV field per RFC 4180: quoted when it holds a comma, quote, CR or LF; quotes doubled. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** Header plus rows, CRLF line ends as RFC 4180 says. */
export function toCsv(output: QueryOutput): string {
  const lines = [output.columns, ...output.rows].map((row) => row.map(csvField).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** A small least-recently-used map; `onEvict` frees what the evicted value holds. */
export class Lru<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(
    private readonly capacity: number,
    private readonly onEvict: (value: V) => void = () => undefined,
  ) {}

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    const previous = this.entries.get(key);
    if (previous !== undefined && previous !== value) this.onEvict(previous);
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) {
      const [oldestKey, oldest] = this.entries.entries().next().value as [K, V];
      this.entries.delete(oldestKey);
      this.onEvict(oldest);
    }
  }

  clear(): void {
    for (const value of this.entries.values()) this.onEvict(value);
    this.entries.clear();
  }
}
