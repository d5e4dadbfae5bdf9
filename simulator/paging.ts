import { createHash } from 'node:crypto';
import { SimError } from './errors';

/**
 * Exact offset paging. The opaque token binds the offset to the filters and sorts it was made for, so a token
 * reused with other filters is a 400 rather than a silently wrong page.
 */
export function paginate<T>(
  items: readonly T[],
  params: { pageToken?: string; pageSize?: number },
  defaultSize: number,
  query: unknown,
): { items: T[]; totalCount: number; nextToken: string | null } {
  const { offset, size, nextToken } = pageWindow(items.length, params, defaultSize, query);
  return { items: items.slice(offset, offset + size), totalCount: items.length, nextToken };
}

/**
 * The window of one page over `total` items, without the items: for results generated on demand. Asks for more than
 * `maxSize` get `maxSize` items and a token for the rest.
 */
export function pageWindow(
  total: number,
  params: { pageToken?: string; pageSize?: number },
  defaultSize: number,
  query: unknown,
  maxSize = Infinity,
): { offset: number; size: number; nextToken: string | null } {
  const size = Math.min(params.pageSize ?? defaultSize, maxSize);
  const fingerprint = createHash('sha256')
    .update(JSON.stringify(query ?? {}))
    .digest('hex')
    .slice(0, 16);
  let offset = 0;
  if (params.pageToken) {
    const decoded = decodeToken(params.pageToken);
    if (!decoded || decoded.f !== fingerprint) {
      throw new SimError(400, 'invalid pageToken: it does not belong to these filters and sorts');
    }
    offset = decoded.o;
  }
  const next = offset + size;
  const nextToken =
    next < total ? Buffer.from(JSON.stringify({ o: next, f: fingerprint })).toString('base64url') : null;
  return { offset, size, nextToken };
}

function decodeToken(token: string): { o: number; f: string } | undefined {
  try {
    const value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { o?: unknown; f?: unknown };
    if (typeof value.o === 'number' && Number.isInteger(value.o) && value.o >= 0 && typeof value.f === 'string') {
      return { o: value.o, f: value.f };
    }
  } catch {
    // fall through: an unreadable token is a bad request
  }
  return undefined;
}
