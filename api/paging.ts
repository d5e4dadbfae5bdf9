import { PageParams } from './schemas';
import { validate } from './validate';

export interface ListOptions {
  pageSize?: number;
  pageToken?: string;
}

export interface Page {
  nextToken?: string | null;
}

/**
 * Every page of a paged call, in order. The fetcher closes over the filters and sorts, so each page is asked for
 * with the same ones; only the token changes. A missing, null or empty token ends the listing.
 */
export async function* pages<P extends Page>(
  fetchPage: (params: PageParams) => Promise<P>,
  options: { pageSize?: number; pageToken?: string } = {},
): AsyncGenerator<P> {
  let pageToken = options.pageToken;
  do {
    const page = await fetchPage({ pageToken, pageSize: options.pageSize });
    yield page;
    pageToken = page.nextToken ?? undefined;
  } while (pageToken);
}

/** Every item of a paged call, across pages. */
export async function* itemsOf<P extends Page, T>(
  all: AsyncIterable<P>,
  pick: (page: P) => readonly T[],
): AsyncGenerator<T> {
  for await (const page of all) yield* pick(page);
}

/** Reads a whole listing into memory: for small lists only. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/**
 * Every page of a `…Page` method, its other arguments bound in `fetchPage`; the paging options are checked before the
 * first page is asked for.
 */
export function pagesOf<P extends Page>(
  fetchPage: (page: ListOptions) => Promise<P>,
  options: ListOptions,
): AsyncGenerator<P> {
  validate(PageParams, options, 'page');
  return pages(fetchPage, options);
}

// `"nextToken":null}` or `"nextToken":"<token>"}` closing the body; a token with an escape is left to the parser.
const TRAILING_TOKEN = /"nextToken"\s*:\s*(?:null|"([^"\\]*)")\s*\}\s*$/;

/** Tells `found` the token a results body ends with, read from its last bytes; nothing when it ends otherwise. */
export function trailingToken(text: string, found: (nextToken: string | null) => void): void {
  const match = TRAILING_TOKEN.exec(text.slice(-1024));
  if (match) found(match[1] ?? null);
}
