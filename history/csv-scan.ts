// One pass over a CSV file: its sha256, its bytes and its records (RFC 4180, quoted fields may hold line breaks),
// streamed, so that a file of hundreds of megabytes is never held in memory.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

export interface CsvScan {
  bytes: number;
  sha256: string;
  /** Records, the header included. */
  records: number;
}

/** Scans `path`; `onRecord`, when given, gets each record's fields (the header first). */
export async function scanCsv(path: string, onRecord?: (fields: string[]) => void): Promise<CsvScan> {
  const hash = createHash('sha256');
  const decoder = new StringDecoder('utf8');
  let bytes = 0;
  let records = 0;
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  /** A quote inside a quoted field: the end of the field, or the first of a doubled quote. */
  let quoteSeen = false;
  let recordOpen = false;
  const endField = () => {
    fields.push(field);
    field = '';
  };
  const endRecord = () => {
    endField();
    records += 1;
    onRecord?.(fields);
    fields = [];
    recordOpen = false;
  };
  const feed = (text: string) => {
    for (const c of text) {
      if (quoted) {
        if (quoteSeen) {
          quoteSeen = false;
          if (c === '"') {
            field += '"';
            continue;
          }
          quoted = false;
        } else if (c === '"') {
          quoteSeen = true;
          continue;
        } else {
          field += c;
          continue;
        }
      }
      if (c === '"' && field === '') {
        quoted = true;
        recordOpen = true;
      } else if (c === ',') {
        endField();
        recordOpen = true;
      } else if (c === '\n') {
        if (recordOpen || field !== '' || fields.length > 0) endRecord();
      } else if (c !== '\r') {
        field += c;
        recordOpen = true;
      }
    }
  };
  for await (const chunk of createReadStream(path)) {
    const buffer = chunk as Buffer;
    hash.update(buffer);
    bytes += buffer.length;
    feed(decoder.write(buffer));
  }
  feed(decoder.end());
  // A last record without its line break.
  if (recordOpen || field !== '' || fields.length > 0 || quoteSeen) endRecord();
  return { bytes, sha256: hash.digest('hex'), records };
}
