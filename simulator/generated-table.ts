import { closeSync, existsSync, linkSync, mkdirSync, openSync, renameSync, copyFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Random } from './random';
import { mix32, stableHash } from './seed-databases';
import { csvField } from './sql-engine';

/**
 * `events_large`: a table too big to hold, generated instead. Row i is a pure function of (seed, i), so a page is
 * built on demand from its offset and the simulator never holds a whole result. Its row count is set by
 * `PUT /_simulator/tables/events_large`; a query keeps the count it saw when submitted.
 */

export const GENERATED_TABLE = 'events_large';
export const GENERATED_COLUMNS = ['id', 'occurred_at', 'kind', 'customer_id', 'payload'];
export const DEFAULT_GENERATED_ROWS = 1_000_000;
export const MAX_GENERATED_ROWS = 100_000_000;

// The one statement served from the generated table: everything, in id order.
const GENERATED_SELECT = new RegExp(
  `^\\s*SELECT\\s+\\*\\s+FROM\\s+${GENERATED_TABLE}(?:\\s+ORDER\\s+BY\\s+id(?:\\s+ASC)?)?\\s*;?\\s*$`,
  'i',
);
const MENTIONS_TABLE = new RegExp(`\\b${GENERATED_TABLE}\\b`, 'i');

/** 'generated' for the statement served from the table, 'unsupported' for any other use of it, else undefined. */
export function generatedQueryKind(sql: string): 'generated' | 'unsupported' | undefined {
  if (GENERATED_SELECT.test(sql)) return 'generated';
  return MENTIONS_TABLE.test(sql) ? 'unsupported' : undefined;
}

export const UNSUPPORTED_MESSAGE = `${GENERATED_TABLE} answers only SELECT * FROM ${GENERATED_TABLE} [ORDER BY id]`;

const KINDS = ['page_view', 'login', 'logout', 'add_to_cart', 'checkout', 'search', 'error'];
const PAGES = ['/', '/cart', '/checkout', '/search?q=a,b', '/products/42', '/account'];
const EPOCH = Date.UTC(2023, 0, 1);

/** Row `index` (0-based; its id is index + 1), every value as text like a SQL result. */
export function generatedRow(seed: number, index: number): string[] {
  const id = index + 1;
  // One integer hash per row, without building strings as `stableHash` does.
  const r = new Random(mix32(Math.imul(id, 0x9e3779b1) ^ tableSeed(seed)));
  const kind = r.pick(KINDS);
  const customer = r.chance(0.8) ? String(r.int(1, 400)) : '';
  const payload =
    kind === 'error'
      ? `{"message":"timeout, retrying \\"upstream\\"","code":${r.int(500, 504)}}`
      : `{"page":"${r.pick(PAGES)}"}`;
  const at = new Date(EPOCH + id * 60_000 + r.int(0, 59_999)).toISOString();
  return [String(id), at, kind, customer, payload];
}

let seeded: { seed: number; hash: number } | undefined;
function tableSeed(seed: number): number {
  if (seeded?.seed !== seed) seeded = { seed, hash: stableHash(seed, GENERATED_TABLE) };
  return seeded.hash;
}

/** Rows [offset, offset + count), bounded by the table's size. */
export function generatedRows(seed: number, total: number, offset: number, count: number): string[][] {
  const end = Math.min(total, offset + count);
  const rows: string[][] = [];
  for (let i = offset; i < end; i++) rows.push(generatedRow(seed, i));
  return rows;
}

/**
 * The result's CSV, written once per (seed, row count) in batches and linked to each query's key: every query of
 * one size has the same bytes, and a 1M-row file need not be rebuilt for each.
 */
export function writeGeneratedCsv(cacheDir: string, seed: number, total: number, path: string): void {
  const cached = join(cacheDir, `${GENERATED_TABLE}-${seed}-${total}.csv`);
  if (!existsSync(cached)) {
    mkdirSync(cacheDir, { recursive: true });
    const fd = openSync(`${cached}.tmp`, 'w');
    try {
      writeSync(fd, `${GENERATED_COLUMNS.join(',')}\r\n`);
      for (let offset = 0; offset < total; offset += 10_000) {
        const rows = generatedRows(seed, total, offset, 10_000);
        writeSync(fd, rows.map((row) => `${row.map(csvField).join(',')}\r\n`).join(''));
      }
    } finally {
      closeSync(fd);
    }
    renameSync(`${cached}.tmp`, cached);
  }
  const tmp = `${path}.tmp`;
  try {
    linkSync(cached, tmp);
  } catch {
    copyFileSync(cached, tmp);
  }
  renameSync(tmp, path);
}
