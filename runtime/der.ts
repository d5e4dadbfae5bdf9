/**
 * Just enough DER (ITU-T X.690) to build a time-stamp request and read a time-stamp token (RFC 3161): one-byte tags,
 * definite lengths. Anything else is refused, never guessed at.
 */

export class DerError extends Error {
  override name = 'DerError';
}

export const TAG = {
  boolean: 0x01,
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  null: 0x05,
  oid: 0x06,
  utf8String: 0x0c,
  printableString: 0x13,
  utcTime: 0x17,
  generalizedTime: 0x18,
  sequence: 0x30,
  set: 0x31,
} as const;

/** `[n]` constructed, context-specific: `0xa0 + n`. */
export const contextTag = (n: number) => 0xa0 + n;

/** One element: its tag, its whole encoding and its content. */
export interface Der {
  tag: number;
  /** Tag, length and content, as they appear in the input: what a signature covers. */
  encoded: Buffer;
  content: Buffer;
}

/** The element at the start of `data`; `data` may hold more after it. */
export function readDer(data: Buffer): Der {
  if (data.length < 2) throw new DerError('truncated element');
  const tag = data.readUInt8(0);
  if ((tag & 0x1f) === 0x1f) throw new DerError('multi-byte tags are not supported');
  let length = data.readUInt8(1);
  let header = 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4) throw new DerError('indefinite or oversized length');
    if (data.length < 2 + count) throw new DerError('truncated length');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + data.readUInt8(2 + i);
    header += count;
  }
  if (data.length < header + length) throw new DerError('element longer than its input');
  return { tag, encoded: data.subarray(0, header + length), content: data.subarray(header, header + length) };
}

/** `element`, which a structure requires: a short one is refused, not read past. */
export function present(element: Der | undefined, what = 'element'): Der {
  if (!element) throw new DerError(`${what} is missing`);
  return element;
}

/** The elements of a constructed element's content, in order. */
export function childrenOf(element: Der | undefined): Der[] {
  const children: Der[] = [];
  let rest = present(element).content;
  while (rest.length > 0) {
    const child = readDer(rest);
    children.push(child);
    rest = rest.subarray(child.encoded.length);
  }
  return children;
}

/** `element`, checked to carry `tag`. */
export function expectTag(element: Der | undefined, tag: number, what: string): Der {
  if (element?.tag !== tag) {
    throw new DerError(
      `${what}: expected tag 0x${tag.toString(16)}, found ${element ? `0x${element.tag.toString(16)}` : 'nothing'}`,
    );
  }
  return element;
}

/** An OBJECT IDENTIFIER's dotted form. */
export function oidOf(element: Der | undefined): string {
  const bytes = expectTag(element, TAG.oid, 'object identifier').content;
  const arcs: number[] = [];
  let value = 0;
  for (const byte of bytes) {
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      if (arcs.length === 0) arcs.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80);
      else arcs.push(value);
      value = 0;
    }
  }
  return arcs.join('.');
}

/** An INTEGER's content as hex, leading zero bytes dropped (serial numbers and nonces are compared this way). */
export const integerHex = (element: Der | undefined) =>
  expectTag(element, TAG.integer, 'integer')
    .content.toString('hex')
    .replace(/^(00)+(?=.)/, '');

/** A GeneralizedTime (`YYYYMMDDHHMMSS[.f+]Z`) or UTCTime (`YYMMDDHHMMSSZ`) as a Date. */
export function timeOf(given: Der | undefined): Date {
  const element = present(given, 'time');
  const text = element.content.toString('ascii');
  const match =
    element.tag === TAG.generalizedTime
      ? /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\.\d+)?Z$/.exec(text)
      : element.tag === TAG.utcTime
        ? /^(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)()Z$/.exec(text)
        : null;
  if (!match) throw new DerError(`not a UTC time: ${JSON.stringify(text)}`);
  const [y = '', mo, d, h, mi, s, fraction] = match.slice(1);
  const year = y.length === 2 ? (Number(y) < 50 ? 2000 : 1900) + Number(y) : Number(y);
  const ms = fraction ? Math.floor(Number(`0${fraction}`) * 1000) : 0;
  return new Date(Date.UTC(year, Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms));
}

/** Encodes one element from its tag and content. */
export function encodeDer(tag: number, content: Buffer | readonly Buffer[]): Buffer {
  const body = Buffer.isBuffer(content) ? content : Buffer.concat(content);
  const n = body.length;
  let length: Buffer;
  if (n < 0x80) length = Buffer.from([n]);
  else {
    const bytes: number[] = [];
    for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
    length = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), length, body]);
}

/** A non-negative INTEGER from big-endian bytes. */
export function encodeUnsigned(bytes: Buffer): Buffer {
  const trimmed = bytes.subarray(
    Math.max(
      0,
      bytes.findIndex((b) => b !== 0),
    ),
  );
  const content =
    trimmed.length === 0 || trimmed.readUInt8(0) & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed;
  return encodeDer(TAG.integer, content);
}

/** An OBJECT IDENTIFIER from its dotted form. */
export function encodeOid(oid: string): Buffer {
  const [first = 0, second = 0, ...rest] = oid.split('.').map(Number);
  const bytes: number[] = [];
  for (const arc of [first * 40 + second, ...rest]) {
    const group: number[] = [arc % 128];
    for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128))
      group.unshift(0x80 | (value % 128));
    bytes.push(...group);
  }
  return encodeDer(TAG.oid, Buffer.from(bytes));
}
