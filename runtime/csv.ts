/** One CSV record per RFC 4180: fields with a comma, quote, CR or LF are quoted, quotes doubled, lines end in CRLF. */
export function csvRecord(fields: readonly (string | number | null | undefined)[]): string {
  return fields.map(csvField).join(',') + '\r\n';
}

function csvField(value: string | number | null | undefined): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Many records as one string: what `csvRecord` gives for each, joined, without an array per record. */
export function csvRecords(rows: readonly (readonly (string | number | null | undefined)[])[]): string {
  let out = '';
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) out += i === 0 ? csvField(row[i]) : `,${csvField(row[i])}`;
    out += '\r\n';
  }
  return out;
}
