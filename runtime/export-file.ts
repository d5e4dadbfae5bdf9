import { activityInfo, Context } from '@temporalio/activity';
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { renameDurably } from './atomic-file';
import { calling } from './failures';
import { checkpoint } from './heartbeat';
import { RunbookMetric } from '../contracts';

/** What an export heartbeats after each page: enough to resume exactly there after a crash. */
export interface ExportCheckpoint {
  /** The token of the next page; null once the last page is written. */
  nextToken: string | null;
  rows: number;
  bytes: number;
  pages: number;
}

export interface ExportSummary {
  path: string;
  rows: number;
  bytes: number;
  sha256: string;
  pages: number;
  /** Whether this attempt continued from a checkpoint of an earlier one. */
  resumed: boolean;
}

/** One page as CSV: its records one by one, or already joined with their count. */
export type PageOfRecords = {
  /** CSV text of the header, written once before the first rows. */
  header?: string;
  nextToken: string | null;
} & ({ records: string[] } | { text: string; rows: number } | { bytes: Buffer; rows: number });

/**
 * How often the partial file is synced, and so checkpointed: after this many bytes or milliseconds, and after the
 * last page. A datasync per page cost as much as formatting it; a crash now refetches at most one interval.
 */
export interface SyncPolicy {
  bytes: number;
  ms: number;
}

export const DEFAULT_SYNC: SyncPolicy = { bytes: 8 * 1024 * 1024, ms: 1_000 };

/** Counts a finished export once, whole: a resumed attempt's rows were written by its earlier attempts too. */
function countExport(rows: number, bytes: number): void {
  const { metricMeter, info } = Context.current();
  const tags = { runbook: info.workflowType ?? 'none' };
  metricMeter.createCounter(RunbookMetric.exportedRows, '1', 'Rows of finished exports').add(rows, tags);
  metricMeter.createCounter(RunbookMetric.exportedBytes, 'By', 'Bytes of finished exports').add(bytes, tags);
}

/** Keeps exports inside the output directory, whatever name a runbook input asked for. */
export function exportPath(outputDir: string, folder: string, fileName: string): string {
  const safe = basename(fileName).replace(/[^A-Za-z0-9._-]/g, '_');
  return join(resolve(outputDir), folder, safe);
}

/**
 * Streams every page into a partial file of this run's own, then renames it to `path`. The next page is fetched
 * while the current one is written. The file is synced on checkpoint boundaries (`sync`), and a checkpoint is
 * heartbeated only once every byte it covers is synced.
 * A retry after a crash truncates the partial file to the checkpoint's size and continues from its token, so no row
 * is lost or written twice. Only the summary is returned: rows never enter workflow history.
 */
export async function exportPages(
  path: string,
  fetchPage: FetchPage,
  sync: SyncPolicy = DEFAULT_SYNC,
): Promise<ExportSummary> {
  // Per run: two runs of one window (a schedule's and a manual one) must not write one file. Retries share it.
  const info = activityInfo();
  const partial = `${path}.${info.workflowExecution?.runId ?? info.activityId}.partial`;
  await mkdir(dirname(path), { recursive: true });
  const resumed = await resumableCheckpoint(partial);
  let { nextToken, rows, bytes, pages } = resumed ?? { nextToken: null, rows: 0, bytes: 0, pages: 0 };
  const file = await open(partial, resumed ? 'r+' : 'w');
  // Hashed as written; a resumed attempt hashes the part its predecessors wrote first.
  const hash = createHash('sha256');
  try {
    await file.truncate(bytes);
    if (resumed) await hashPrefix(partial, bytes, hash);
    const first = !resumed;
    if (first || nextToken !== null) {
      const ahead = new PagesAhead(fetchPage, first ? undefined : (nextToken ?? undefined));
      let synced = { bytes, at: Date.now() };
      for (let page = await ahead.next(); page; page = await ahead.next()) {
        // An attempt Temporal gave up on must stop writing: its retry owns the file now.
        Context.current().cancellationSignal.throwIfAborted();
        nextToken = page.nextToken || null;
        const header = pages === 0 && page.header ? page.header : '';
        const buffer =
          'bytes' in page
            ? header
              ? Buffer.concat([Buffer.from(header, 'utf8'), page.bytes])
              : page.bytes
            : Buffer.from(header + ('text' in page ? page.text : page.records.join('')), 'utf8');
        await append(file, bytes, buffer);
        hash.update(buffer);
        bytes += buffer.length;
        rows += 'records' in page ? page.records.length : page.rows;
        pages += 1;
        if (nextToken === null || bytes - synced.bytes >= sync.bytes || Date.now() - synced.at >= sync.ms) {
          // The data is on disk before the checkpoint that covers it is sent.
          await file.datasync();
          synced = { bytes, at: Date.now() };
          checkpoint({ nextToken, rows, bytes, pages } satisfies ExportCheckpoint);
        }
      }
    }
  } finally {
    await file.close();
  }
  // The last page was synced before its checkpoint: only the new name is left to make durable.
  await renameDurably(partial, path);
  countExport(rows, bytes);
  return { path, rows, bytes, sha256: hash.digest('hex'), pages, resumed: resumed !== undefined };
}

/**
 * Fetches a page; `tokenAhead` may be told the next page's token before the page is parsed (a hint, checked against
 * the page's own `nextToken`).
 */
export type FetchPage = (
  pageToken: string | undefined,
  tokenAhead?: (nextToken: string | null) => void,
) => Promise<PageOfRecords>;

/** Pages fetched or being fetched but not yet written: the one awaited and one beyond, so memory stays bounded. */
const MAX_AHEAD = 2;

interface InFlight {
  token: string | undefined;
  page: Promise<PageOfRecords>;
  /** The next token this page's body announced early. */
  hint?: string | null;
}

/**
 * Pages in order, each fetched while the previous ones are written: the next page is asked for as soon as a page's
 * token is known, from the early hint when there is one (the next request then overlaps this page's parsing too),
 * else from the parsed page. A hint that the parsed page contradicts is dropped with what it fetched.
 */
class PagesAhead {
  private readonly queue: InFlight[] = [];

  constructor(
    private readonly fetchPage: FetchPage,
    token: string | undefined,
  ) {
    this.start(token);
  }

  private start(token: string | undefined): void {
    const entry: InFlight = { token, page: Promise.resolve({ records: [], nextToken: null }) };
    this.queue.push(entry);
    entry.page = this.fetchPage(token, (hint) => {
      entry.hint = hint;
      this.followHint();
    });
    // A failure surfaces where the page is awaited, not as an unhandled rejection meanwhile.
    entry.page.catch(() => undefined);
  }

  private followHint(): void {
    const last = this.queue.at(-1);
    if (last?.hint && this.queue.length < MAX_AHEAD) this.start(last.hint);
  }

  /** The next page in order, or undefined after the last. */
  async next(): Promise<PageOfRecords | undefined> {
    const head = this.queue[0];
    if (!head) return undefined;
    const page = await head.page;
    this.queue.shift();
    const token = page.nextToken || null;
    // A contradicted hint: what it fetched is not the next page.
    if (this.queue[0] && this.queue[0].token !== token) this.queue.length = 0;
    if (token !== null && this.queue.length === 0) this.start(token);
    else this.followHint();
    return page;
  }
}

async function hashPrefix(path: string, bytes: number, hash: Hash): Promise<void> {
  if (bytes === 0) return;
  for await (const chunk of createReadStream(path, { start: 0, end: bytes - 1 })) hash.update(chunk as Buffer);
}

/**
 * `exportPages` over a paged service call, to `<outputDir>/<folder>/<fileName>`: each page is fetched through
 * `calling`, so that a failed call becomes this attempt's typed failure.
 */
export function exportServicePages<P>(
  file: { outputDir: string; folder: string; fileName: string },
  fetch: (pageToken: string | undefined, tokenAhead?: (nextToken: string | null) => void) => Promise<P>,
  toRecords: (page: P) => PageOfRecords,
): Promise<ExportSummary> {
  const attempt = activityInfo().attempt;
  return exportPages(exportPath(file.outputDir, file.folder, file.fileName), async (pageToken, tokenAhead) =>
    toRecords(await calling(attempt, () => fetch(pageToken, tokenAhead))),
  );
}

/** The last checkpoint, when the partial file it describes is still there and at least that long. */
async function resumableCheckpoint(partial: string): Promise<ExportCheckpoint | undefined> {
  const details = activityInfo().heartbeatDetails as ExportCheckpoint | undefined;
  if (!details || typeof details.bytes !== 'number') return undefined;
  const size = await stat(partial).then(
    (s) => s.size,
    () => -1,
  );
  return size >= details.bytes ? details : undefined;
}

async function append(file: FileHandle, position: number, buffer: Buffer): Promise<void> {
  let written = 0;
  while (written < buffer.length) {
    const { bytesWritten } = await file.write(buffer, written, buffer.length - written, position + written);
    written += bytesWritten;
  }
}

export async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
