// The query and cost exports of an output folder: each finished file with its rows, bytes and sha256. The runs'
// results hold the same figures, in Temporal; on disk there is only the file (no sidecar), so they are counted from
// it, once per file version.
import { join } from 'node:path';
import { scanCsv } from './csv-scan';
import { listFiles, StampCache } from './file-stamps';

export const EXPORT_FOLDERS = { query: 'query-exports', cost: 'cost-exports' } as const;
export type ExportKind = keyof typeof EXPORT_FOLDERS;

export interface ExportEntry {
  kind: ExportKind;
  /** The file's name in its folder. */
  file: string;
  /** Records less the header row. */
  rows: number;
  bytes: number;
  sha256: string;
  /** When the file was last written (its mtime). */
  writtenAt: string;
  writtenMs: number;
}

/** Reads the exports of one output folder, again only where a file changed. */
export class ExportReader {
  private readonly scans = new Map<ExportKind, StampCache<ExportEntry | undefined>>();

  constructor(private readonly outputDir: string) {}

  /** The finished exports (partial files of runs in flight are left out), newest first, at most `limit`. */
  async read(limit = 50): Promise<ExportEntry[]> {
    const entries: ExportEntry[] = [];
    for (const kind of Object.keys(EXPORT_FOLDERS) as ExportKind[]) {
      const dir = join(this.outputDir, EXPORT_FOLDERS[kind]);
      const cache = this.scans.get(kind) ?? new StampCache<ExportEntry | undefined>();
      this.scans.set(kind, cache);
      const files = await listFiles(dir);
      for (const [file, stamp] of files) {
        if (!file.endsWith('.csv')) continue;
        const entry = await cache.get(file, stamp, async () => {
          try {
            const scan = await scanCsv(join(dir, file));
            const writtenAt = new Date(stamp.mtimeMs).toISOString();
            const rows = Math.max(0, scan.records - 1);
            return { kind, file, rows, bytes: scan.bytes, sha256: scan.sha256, writtenAt, writtenMs: stamp.mtimeMs };
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
            throw err;
          }
        });
        if (entry) entries.push(entry);
      }
      cache.keepOnly(files);
    }
    return entries.sort((a, b) => b.writtenMs - a.writtenMs || a.file.localeCompare(b.file)).slice(0, limit);
  }
}
