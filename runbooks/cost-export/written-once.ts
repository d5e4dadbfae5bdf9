import { activityInfo } from '@temporalio/activity';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { sha256Of, type ExportCheckpoint, type ExportSummary } from '../../runtime/export-file';

/** An export that found its file there already: it left it as it was. */
export type PresentExport = ExportSummary & { alreadyPresent: true };

/**
 * The file a scheduled cost export would write, when it is there already. An export is renamed into place whole, so
 * a file under its final name is complete; it is hashed as it is. A file the run's own earlier attempt finished (its
 * last checkpoint covers it whole) is not "already present": that attempt wrote it, and the summary says so.
 */
export async function presentExport(path: string): Promise<ExportSummary | PresentExport | undefined> {
  const size = await stat(path).then(
    (s) => s.size,
    () => undefined,
  );
  if (size === undefined) return undefined;
  const sha256 = await sha256Of(path);
  const own = activityInfo().heartbeatDetails as ExportCheckpoint | undefined;
  if (own && own.nextToken === null && own.bytes === size) {
    return { path, rows: own.rows, bytes: size, sha256, pages: own.pages, resumed: true };
  }
  return { path, rows: await csvRecords(path), bytes: size, sha256, pages: 0, resumed: false, alreadyPresent: true };
}

/** The file's records less its header: one a line, as no cost field holds a line break. */
async function csvRecords(path: string): Promise<number> {
  let lines = 0;
  for await (const chunk of createReadStream(path)) {
    for (const byte of chunk as Buffer) if (byte === 0x0a) lines += 1;
  }
  return Math.max(0, lines - 1);
}
