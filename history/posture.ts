// The posture reports of an output folder: per report, its unprotected and stale counts by provider, type and
// environment, counted from its two CSV files (the report writes no JSON), and its time from its HTML page.
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { scanCsv } from './csv-scan';
import { listFiles, StampCache, type FileStamp } from './file-stamps';
import type { KnownResource } from './trends';

export const POSTURE_FOLDER = 'posture-reports';
const UNPROTECTED = '-unprotected.csv';
const STALE = '-stale.csv';
/** The page's summary table comes first: its head is enough for the time and the inventory size. */
const HEAD_BYTES = 64 * 1024;

export interface PostureCount {
  total: number;
  byProvider: Record<string, number>;
  byType: Record<string, number>;
  byEnvironment: Record<string, number>;
}

export interface PostureEntry {
  /** The files' common name: the report's workflow ID. */
  base: string;
  /** The service's clock when the scan began, from the page; the page's mtime when it does not say. */
  asOf: string;
  asOfMs: number;
  /** Resources scanned, when the page says. */
  resources?: number;
  unprotected: PostureCount;
  stale: PostureCount;
  /** The resources the two lists name: part of the inventory, used for "never drilled" without an inventory. */
  listed: KnownResource[];
}

interface CsvCount {
  count: PostureCount;
  listed: KnownResource[];
}

/** Reads the posture reports of one output folder, again only where a file changed. */
export class PostureReader {
  readonly dir: string;
  private readonly csvs = new StampCache<CsvCount>();
  private readonly pages = new StampCache<{ asOf?: string; resources?: number }>();

  constructor(outputDir: string) {
    this.dir = join(outputDir, POSTURE_FOLDER);
  }

  /** Every complete report (its page and both lists written), oldest first. */
  async read(): Promise<PostureEntry[]> {
    const files = await listFiles(this.dir);
    const entries: PostureEntry[] = [];
    for (const [name, stamp] of files) {
      if (!name.endsWith('.html')) continue;
      const base = name.slice(0, -'.html'.length);
      const unprotectedStamp = files.get(`${base}${UNPROTECTED}`);
      const staleStamp = files.get(`${base}${STALE}`);
      // The page is renamed first: until both lists are too, the report is still being written.
      if (!unprotectedStamp || !staleStamp) continue;
      const page = await this.pages.get(name, stamp, () => readHead(join(this.dir, name)));
      const unprotected = await this.count(`${base}${UNPROTECTED}`, unprotectedStamp);
      const stale = await this.count(`${base}${STALE}`, staleStamp);
      const asOfMs = page.asOf ? Date.parse(page.asOf) : NaN;
      const ms = Number.isNaN(asOfMs) ? stamp.mtimeMs : asOfMs;
      entries.push({
        base,
        asOf: new Date(ms).toISOString(),
        asOfMs: ms,
        resources: page.resources,
        unprotected: unprotected.count,
        stale: stale.count,
        listed: [...unprotected.listed, ...stale.listed],
      });
    }
    this.csvs.keepOnly(files);
    this.pages.keepOnly(files);
    return entries.sort((a, b) => a.asOfMs - b.asOfMs || a.base.localeCompare(b.base));
  }

  private count(name: string, stamp: FileStamp): Promise<CsvCount> {
    return this.csvs.get(name, stamp, () => countCsv(join(this.dir, name)));
  }
}

/**
 * Counts keyed by a value the service gives: without a prototype, so that a value named `constructor` or `__proto__`
 * counts as itself and a lookup of an absent value reads undefined, never a member of Object.prototype.
 */
const emptyTally = (): Record<string, number> => Object.create(null) as Record<string, number>;

async function countCsv(path: string): Promise<CsvCount> {
  const count: PostureCount = { total: 0, byProvider: emptyTally(), byType: emptyTally(), byEnvironment: emptyTally() };
  const listed: KnownResource[] = [];
  let columns: string[] | undefined;
  const bump = (into: Record<string, number>, value: string | undefined) => {
    const key = value === undefined || value === '' ? '(none)' : value;
    into[key] = (into[key] ?? 0) + 1;
  };
  try {
    await scanCsv(path, (fields) => {
      if (!columns) {
        columns = fields;
        return;
      }
      const cell = (column: string) => {
        const i = (columns ?? []).indexOf(column);
        return i < 0 ? undefined : fields[i];
      };
      count.total += 1;
      bump(count.byProvider, cell('cloudProvider'));
      bump(count.byType, cell('resourceType'));
      bump(count.byEnvironment, cell('environment'));
      const id = cell('id');
      if (id) listed.push({ resourceId: id, resourceName: cell('resourceName'), resourceType: cell('resourceType') });
    });
  } catch (err) {
    // Renamed or removed by another worker between the listing and the read: counted as read next time.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return { count, listed };
}

async function readHead(path: string): Promise<{ asOf?: string; resources?: number }> {
  let text: string;
  try {
    const file = await open(path, 'r');
    try {
      const buffer = Buffer.alloc(HEAD_BYTES);
      const { bytesRead } = await file.read(buffer, 0, HEAD_BYTES, 0);
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await file.close();
    }
  } catch {
    return {};
  }
  const asOf = /<tr><td>as of \(service clock\)<\/td><td>([^<]*)<\/td><\/tr>/.exec(text)?.[1];
  const resources = /<tr><td>resources<\/td><td>(\d+)<\/td><\/tr>/.exec(text)?.[1];
  return { asOf, resources: resources === undefined ? undefined : Number(resources) };
}
