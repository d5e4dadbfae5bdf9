// A minimal tar (POSIX ustar, with a pax header for paths over 100 bytes) of regular files, gzipped with node's zlib:
// enough for an evidence pack, read back by this module and by any tar.
import { gunzipSync, gzipSync } from 'node:zlib';

export interface TarEntry {
  path: string;
  data: Buffer;
}

const BLOCK = 512;

/** A tar archive of `entries` (files only, mode 0644, owner 0), gzipped. */
export function writeTarGz(entries: readonly TarEntry[], mtime: Date): Buffer {
  const seconds = Math.floor(mtime.getTime() / 1000);
  const parts: Buffer[] = [];
  for (const { path, data } of entries) {
    if (Buffer.byteLength(path) > 100) {
      const pax = paxRecord('path', path);
      parts.push(header('././@PaxHeader', pax.length, seconds, 'x'), pad(pax));
    }
    parts.push(header(path.slice(0, 100), data.length, seconds, '0'), pad(data));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return gzipSync(Buffer.concat(parts), { level: 9 });
}

/** A pax record: its length counts itself, in decimal. */
function paxRecord(key: string, value: string): Buffer {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length) length += 1;
  return Buffer.from(`${length}${body}`, 'utf8');
}

function pad(data: Buffer): Buffer {
  const rest = data.length % BLOCK;
  return rest === 0 ? data : Buffer.concat([data, Buffer.alloc(BLOCK - rest)]);
}

function header(name: string, size: number, mtime: number, type: '0' | 'x'): Buffer {
  const h = Buffer.alloc(BLOCK);
  const put = (text: string, offset: number, length: number) => h.write(text, offset, length, 'utf8');
  const octal = (n: number, length: number) => n.toString(8).padStart(length - 1, '0') + '\0';
  // A name cut to 100 bytes may end inside a character: the pax header holds the whole.
  h.write(name, 0, 100, 'utf8');
  put(octal(0o644, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(mtime, 12), 136, 12);
  put('        ', 148, 8);
  put(type, 156, 1);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  let sum = 0;
  for (const byte of h) sum += byte;
  put(octal(sum, 7) + ' ', 148, 8);
  return h;
}

/** Why a file is not a pack this module can read. */
export class TarFormatError extends Error {
  override name = 'TarFormatError';
}

/** The regular files of a gzipped tar, in order; a path given twice is refused (the second would hide the first). */
export function readTarGz(gz: Buffer): TarEntry[] {
  let tar: Buffer;
  try {
    tar = gunzipSync(gz);
  } catch (err) {
    throw new TarFormatError(`not a gzip file (${(err as Error).message})`);
  }
  const entries: TarEntry[] = [];
  const seen = new Set<string>();
  let offset = 0;
  let longPath: string | undefined;
  while (offset + BLOCK <= tar.length) {
    const h = tar.subarray(offset, offset + BLOCK);
    if (h.every((b) => b === 0)) break;
    const field = (start: number, length: number) =>
      h
        .subarray(start, start + length)
        .toString('utf8')
        .replace(/\0.*$/s, '');
    const stored = parseInt(field(148, 8).trim(), 8);
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : (h[i] as number);
    if (stored !== sum) throw new TarFormatError(`a tar header at byte ${offset} has a wrong checksum`);
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1) || '0';
    const dataStart = offset + BLOCK;
    if (dataStart + size > tar.length) throw new TarFormatError('the tar ends inside a file');
    const data = tar.subarray(dataStart, dataStart + size);
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'x') {
      longPath = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(data.toString('utf8'))?.[1];
      continue;
    }
    const prefix = field(345, 155);
    const path = longPath ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
    longPath = undefined;
    if (type !== '0') throw new TarFormatError(`${path} is not a regular file (type ${type})`);
    if (seen.has(path)) throw new TarFormatError(`${path} is in the pack twice`);
    seen.add(path);
    entries.push({ path, data: Buffer.from(data) });
  }
  return entries;
}
