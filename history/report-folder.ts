// One folder of sealed reports (drill-reports/, plan-reports/) as its readers see it: the files listed with their
// stamps, each report's JSON parsed and each seal read through caches (a file is read again only when it changed), and
// the public keys, given or published beside the reports.
import type { KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { keyIdOf, parsePublicKeys } from '../runtime/evidence-key';
import { readSeal, renderingOf, SEAL_SUFFIX, type Seal } from '../runtime/evidence-seal';
import type { ChainResult } from '../runtime/evidence-verify';
import type { KeySource, SealCheck } from './drill-index';
import { listFiles, StampCache, type FileStamp } from './file-stamps';

const isKeyFile = (n: string) => n.startsWith('evidence-public-key') && n.endsWith('.pem');

/** What one look at the folder found. */
export interface FolderRead<R> {
  files: Map<string, FileStamp>;
  /** Each report's read, by base name. */
  parsed: Map<string, R>;
  /** Each seal, by the base name of the report it seals; undefined when unreadable. */
  sealsByFile: Map<string, Seal | undefined>;
  keys: KeyObject[];
  keySource: KeySource;
  keyIds: string[];
}

/** Reads one report folder; keep one per folder and call `read` for each look. */
export class ReportFolder<R> {
  private readonly reports = new StampCache<R>();
  private readonly seals = new StampCache<Seal | undefined>();
  private readonly keyFiles = new StampCache<KeyObject[]>();

  /** `readReport(path, baseName)` never throws for a file's content; `publicKeys`: keys given out of band. */
  constructor(
    readonly dir: string,
    private readonly readReport: (path: string, file: string) => Promise<R>,
    private readonly publicKeys?: KeyObject[],
  ) {}

  async read(): Promise<FolderRead<R>> {
    const files = await listFiles(this.dir);
    const { keys, source } = await this.keys(files);
    const parsed = new Map<string, R>();
    const sealsByFile = new Map<string, Seal | undefined>();
    for (const [name, stamp] of files) {
      const rendering = renderingOf(name);
      if (name.endsWith(SEAL_SUFFIX)) {
        const file = name.slice(0, -SEAL_SUFFIX.length);
        sealsByFile.set(file, await this.seals.get(name, stamp, () => readSeal(join(this.dir, name))));
      } else if (rendering?.extension === 'json') {
        const file = rendering.base;
        parsed.set(file, await this.reports.get(name, stamp, () => this.readReport(join(this.dir, name), file)));
      }
    }
    this.reports.keepOnly(files);
    this.seals.keepOnly(files);
    return { files, parsed, sealsByFile, keys, keySource: source, keyIds: keys.map(keyIdOf).sort() };
  }

  private async keys(files: Map<string, FileStamp>): Promise<{ keys: KeyObject[]; source: KeySource }> {
    if (this.publicKeys) return { keys: this.publicKeys, source: 'given' };
    const keys: KeyObject[] = [];
    for (const [name, stamp] of files) {
      if (!isKeyFile(name)) continue;
      const path = join(this.dir, name);
      // An unreadable key file publishes no key: the seals it signed are then reported unverified.
      const read = async () => parsePublicKeys(await readFile(path, 'utf8'), path);
      keys.push(...(await this.keyFiles.get(name, stamp, () => read().catch(() => []))));
    }
    this.keyFiles.keepOnly(files);
    return { keys, source: 'folder' };
  }
}

/**
 * How a report's seal stands in its folder's verification: its own problems first (`unsealed`, `failed`), then its
 * chain's (`chainFailed`); `verified` when neither has any.
 */
export function sealCheck(file: string, seal: Seal | undefined, chains: ChainResult[]): SealCheck {
  const own = chains.flatMap((c) => c.problems.filter((p) => p.report === file));
  if (own.some((p) => p.kind === 'unsealed')) return { status: 'unsealed', problems: own };
  if (own.length > 0) return { status: 'failed', problems: own };
  const chain = seal ? chains.find((c) => c.chain === seal.chain && c.reports.includes(file)) : undefined;
  if (!chain) {
    return { status: 'unsealed', problems: [{ kind: 'unsealed', report: file, detail: 'no readable seal' }] };
  }
  return chain.problems.length === 0
    ? { status: 'verified', problems: [] }
    : { status: 'chainFailed', problems: chain.problems };
}
