// The drill reports of an output folder with each report's seal verified, read incrementally: a report is parsed
// again only when its file changed, and a chain is verified again only when one of its files changed.
import type { KeyObject, X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { reportFileNames } from '../runtime/evidence-stamps';
import { verifyEvidence, type ChainResult, type Problem } from '../runtime/evidence-verify';
import type { ReportStamps, StampStatus } from '../runtime/evidence-verify-stamps';
import { readDrillReport, type DrillReportEntry, type ReadReport, type SkippedReport } from './drill-files';
import { stampKey, type FileStamp } from './file-stamps';
import { ReportFolder, sealCheck } from './report-folder';

export const DRILL_REPORTS_FOLDER = 'drill-reports';

/**
 * What the check of a report's seal found: `verified` when its seal holds and its chain has no problem; `chainFailed`
 * when its own seal holds but another report of its chain has a problem (one removed, say); `failed` when its files
 * or its seal are at fault; `unsealed` when it has no seal.
 */
export type SealStatus = 'verified' | 'chainFailed' | 'failed' | 'unsealed';

export interface SealCheck {
  status: SealStatus;
  /** The problems naming this report, and, when it is fine itself, those of its chain. */
  problems: Problem[];
}

export interface DrillEntry extends DrillReportEntry {
  seal: SealCheck;
  /**
   * The sha256 (hex) of each file its seal covers, by extension (`json`: the report's file), as its seal holds them;
   * absent without a readable seal. The files' own hashes when `seal.status` is `verified`: the check compared them.
   */
  sealedFiles?: Readonly<Record<string, string>>;
  /** Its timestamps (runtime/evidence-verify-stamps.ts); absent without a readable seal in a checked chain. */
  timestamps?: StampStatus;
}

/** Where the public keys the seals were checked against came from. */
export type KeySource = 'given' | 'folder';

export interface DrillIndex {
  /** Newest first. */
  drills: DrillEntry[];
  skipped: SkippedReport[];
  chains: ChainResult[];
  keySource: KeySource;
  /** The IDs of the keys checked against. */
  keyIds: string[];
}

export interface DrillIndexOptions {
  /** The output folder (RUNBOOKS_OUTPUT_DIR); reports are read from its drill-reports/. */
  outputDir: string;
  /**
   * Keys obtained out of band (the key history). Without them the keys published beside the reports are used, which
   * shows the reports match those keys, not who signed them (`keySource: 'folder'`).
   */
  publicKeys?: KeyObject[];
  /** The time-stamping authority's certificates (`--tsa-cert`): tokens are checked against them. */
  timestampCertificates?: readonly X509Certificate[];
}

/** Reads the drill reports of one output folder; keep one per folder and call `read` for each answer. */
export class DrillReader {
  readonly dir: string;
  private readonly folder: ReportFolder<ReadReport>;
  /** Each chain's last result, with the fingerprint of the files it was computed from. */
  private readonly chainResults = new Map<
    string,
    { fingerprint: string; result: ChainResult; timestamps: ReportStamps[] }
  >();
  /** How many chains the last `read` verified (the rest came from the cache): for tests and the bench. */
  lastVerified: string[] = [];

  constructor(private readonly options: DrillIndexOptions) {
    this.dir = join(options.outputDir, DRILL_REPORTS_FOLDER);
    this.folder = new ReportFolder(this.dir, readDrillReport, options.publicKeys);
  }

  async read(): Promise<DrillIndex> {
    const { files, parsed, sealsByFile, keys, keySource: source, keyIds } = await this.folder.read();

    // The chains each report's files count in: its seal's, and its JSON's drill name (where an unsealed report or
    // an unreadable seal is listed).
    const chainsOf = new Map<string, Set<string>>();
    const add = (file: string, chain: string | undefined) => {
      if (chain === undefined) return;
      const set = chainsOf.get(file) ?? new Set<string>();
      set.add(chain);
      chainsOf.set(file, set);
    };
    for (const [file, seal] of sealsByFile) add(file, seal?.chain);
    for (const [file, r] of parsed) add(file, r.ok ? r.report.name : r.skipped.name);

    const fingerprints = new Map<string, string[]>();
    for (const [file, chains] of chainsOf) {
      const parts = reportFileNames(file).map((name) => {
        const stamp: FileStamp | undefined = files.get(name);
        return `${name}=${stamp ? stampKey(stamp) : '-'}`;
      });
      for (const chain of chains) {
        const list = fingerprints.get(chain) ?? [];
        list.push(...parts);
        fingerprints.set(chain, list);
      }
    }
    const tsa = (this.options.timestampCertificates ?? []).map((c) => c.fingerprint256).join(',');
    const fingerprintOf = (chain: string) =>
      `${keyIds.join(',')}|${tsa}|${(fingerprints.get(chain) ?? []).sort().join('|')}`;

    const changed = new Set(
      [...fingerprints.keys()].filter((c) => this.chainResults.get(c)?.fingerprint !== fingerprintOf(c)),
    );
    this.lastVerified = [...changed].sort();
    if (changed.size > 0) {
      const { chains, timestamps } = await verifyEvidence(this.dir, keys, {
        chains: changed,
        seals: sealsByFile,
        ...(this.options.timestampCertificates ? { timestamps: this.options.timestampCertificates } : {}),
      });
      for (const result of chains) {
        const own = timestamps.filter((t) => result.reports.includes(t.report));
        this.chainResults.set(result.chain, { fingerprint: fingerprintOf(result.chain), result, timestamps: own });
      }
      // A chain that had files and has none to check now (they vanished meanwhile) is checked again next time.
      for (const c of changed) if (!chains.some((r) => r.chain === c)) this.chainResults.delete(c);
    }
    for (const chain of this.chainResults.keys()) if (!fingerprints.has(chain)) this.chainResults.delete(chain);
    const chains = [...this.chainResults.values()].map((c) => c.result).sort((a, b) => a.chain.localeCompare(b.chain));
    const stampsOf = new Map(
      [...this.chainResults.values()].flatMap((c) => c.timestamps.map((t) => [t.report, t.status] as const)),
    );

    const drills: DrillEntry[] = [];
    const skipped: SkippedReport[] = [];
    for (const r of parsed.values()) {
      if (!r.ok) {
        skipped.push(r.skipped);
        continue;
      }
      const seal = sealsByFile.get(r.report.file);
      const stamps = stampsOf.get(r.report.file);
      drills.push({
        ...r.report,
        seal: sealCheck(r.report.file, seal, chains),
        ...(seal ? { sealedFiles: seal.files } : {}),
        ...(stamps ? { timestamps: stamps } : {}),
      });
    }
    drills.sort((a, b) => b.finishedMs - a.finishedMs || a.file.localeCompare(b.file));
    return { drills, skipped, chains, keySource: source, keyIds };
  }
}
