import type { PageParams } from './schemas';

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
