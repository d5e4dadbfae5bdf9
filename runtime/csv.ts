/** One CSV record per RFC 4180: fields with a comma, quote, CR or LF are quoted, quotes doubled, lines end in CRLF. */
export function csvRecord(fields: readonly (string | number | null | undefined)[]): string {
  return fields.map(csvField).join(',') + '\r\n';
}

function csvField(value: string | number | null | undefined): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Many records as UTF-8 bytes, written row by row into one buffer: no page-sized string is built, so a page leaves only
 * short-lived garbage (a page-sized string is a large object, which only a full collection frees).
 */
export function csvRecordsBuffer(rows: readonly (readonly (string | number | null | undefined)[])[]): Buffer {
  let buffer = Buffer.allocUnsafe(Math.max(4096, rows.length * 128));
  let at = 0;
  for (const row of rows) {
    const line = csvRecord(row);
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
