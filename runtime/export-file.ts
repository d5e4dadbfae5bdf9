import { activityInfo, Context } from '@temporalio/activity';
import { createHash } from 'node:crypto';
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

export interface PageOfRecords {
  /** CSV text of the header, written once before the first rows. */
  header?: string;
  records: string[];
  nextToken: string | null;
}

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
 * Streams every page into a partial file of this run's own, heartbeating a checkpoint after each page, then renames
 * it to `path`.
 * A retry after a crash truncates the partial file to the checkpoint's size and continues from its token, so no row
 * is lost or written twice. Only the summary is returned: rows never enter workflow history.
 */
export async function exportPages(
  path: string,
  fetchPage: (pageToken: string | undefined) => Promise<PageOfRecords>,
): Promise<ExportSummary> {
  // Per run: two runs of one window (a schedule's and a manual one) must not write one file. Retries share it.
  const info = activityInfo();
  const partial = `${path}.${info.workflowExecution?.runId ?? info.activityId}.partial`;
  await mkdir(dirname(path), { recursive: true });
  const resumed = await resumableCheckpoint(partial);
  let { nextToken, rows, bytes, pages } = resumed ?? { nextToken: null, rows: 0, bytes: 0, pages: 0 };
  const file = await open(partial, resumed ? 'r+' : 'w');
  try {
    await file.truncate(bytes);
    let first = !resumed;
    while (first || nextToken !== null) {
      // An attempt Temporal gave up on must stop writing: its retry owns the file now.
      Context.current().cancellationSignal.throwIfAborted();
      const page = await fetchPage(first ? undefined : (nextToken ?? undefined));
      const text = (first && page.header ? page.header : '') + page.records.join('');
      bytes += await append(file, bytes, text);
      rows += page.records.length;
      pages += 1;
      nextToken = page.nextToken || null;
      first = false;
      // The data is on disk before the checkpoint that covers it is sent.
      await file.datasync();
      checkpoint({ nextToken, rows, bytes, pages } satisfies ExportCheckpoint);
    }
  } finally {
    await file.close();
  }
  // Every page was synced before its checkpoint: only the new name is left to make durable.
  await renameDurably(partial, path);
  countExport(rows, bytes);
  return { path, rows, bytes, sha256: await sha256Of(path), pages, resumed: resumed !== undefined };
}

/**
 * `exportPages` over a paged service call, to `<outputDir>/<folder>/<fileName>`: each page is fetched through
 * `calling`, so that a failed call becomes this attempt's typed failure.
 */
export function exportServicePages<P>(
  file: { outputDir: string; folder: string; fileName: string },
  fetch: (pageToken: string | undefined) => Promise<P>,
  toRecords: (page: P) => PageOfRecords,
): Promise<ExportSummary> {
  const attempt = activityInfo().attempt;
  return exportPages(exportPath(file.outputDir, file.folder, file.fileName), async (pageToken) =>
    toRecords(await calling(attempt, () => fetch(pageToken))),
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

async function append(file: FileHandle, position: number, text: string): Promise<number> {
  const buffer = Buffer.from(text, 'utf8');
  let written = 0;
  while (written < buffer.length) {
    const { bytesWritten } = await file.write(buffer, written, buffer.length - written, position + written);
    written += bytesWritten;
  }
  return buffer.length;
}

export async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
