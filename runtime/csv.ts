export type CsvCell = string | number | null | undefined;

export interface CsvOptions {
  /**
   * Keep every cell as it is. Off by default: a text cell that a spreadsheet would run as a formula (it starts with
   * `=`, `+`, `-`, `@`, tab or CR, as OWASP lists) gets a leading `'`, because resource names and tags come from anyone
   * who can tag a cloud resource. Query exports keep their data exact unless asked.
   */
  exact?: boolean;
}

const FORMULA_START = /^[=+\-@\t\r]/;
// A plain number runs as nothing, and a negative one must stay a number.
const PLAIN_NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** One CSV record per RFC 4180: fields with a comma, quote, CR or LF are quoted, quotes doubled, lines end in CRLF. */
export function csvRecord(fields: readonly CsvCell[], options: CsvOptions = {}): string {
  return fields.map((field) => csvField(field, options.exact === true)).join(',') + '\r\n';
}

/** A text cell that would start a formula, with a leading `'` so that a spreadsheet shows it as text. */
export function defangCell(text: string): string {
  return FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}

function csvField(value: CsvCell, exact: boolean): string {
  const raw = value === null || value === undefined ? '' : String(value);
  const text = exact || typeof value === 'number' ? raw : defangCell(raw);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Many records as UTF-8 bytes, written row by row into one buffer: no page-sized string is built, so a page leaves only
 * short-lived garbage (a page-sized string is a large object, which only a full collection frees).
 */
export function csvRecordsBuffer(rows: readonly (readonly CsvCell[])[], options: CsvOptions = {}): Buffer {
  let buffer = Buffer.allocUnsafe(Math.max(4096, rows.length * 128));
  let at = 0;
  for (const row of rows) {
    const line = csvRecord(row, options);
    // A UTF-16 unit takes at most 3 UTF-8 bytes.
    if (at + line.length * 3 > buffer.length) {
      const bigger = Buffer.allocUnsafe(Math.max(buffer.length * 2, at + line.length * 3));
      buffer.copy(bigger, 0, 0, at);
      buffer = bigger;
    }
    at += buffer.write(line, at);
  }
  return buffer.subarray(0, at);
}
