// An evidence pack: the drill reports of a period with their seals, the public keys, the chains' verification, a
// summary page with the trend charts, and a manifest with the sha256 of every file, in one tar.gz.
import type { KeyObject } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { keyIdOf, parsePublicKeys } from '../runtime/evidence-key';
import { readRegularFile, specialFileKind, SpecialFileError } from '../runtime/evidence-names';
import { sha256 } from '../runtime/evidence-seal';
import { reportFileNames } from '../runtime/evidence-stamps';
import { KNOWN_FOLDERS, type ChainResult } from '../runtime/evidence-verify';
import { DrillReader, type DrillEntry, type KeySource } from './drill-index';
import type { SkippedReport } from './drill-files';
import { CONTROLS } from './controls';
import { controlPackEntries, type ByControlManifest } from './pack-controls';
import { renderPackPage } from './pack-html';
import type { PackPeriod } from './pack-period';
import { PostureReader } from './posture';
import { writeTarGz, type TarEntry } from './tar';

export const PACK_FORMAT = 'runbooks-evidence-pack/1';
export const MANIFEST = 'manifest.json';
/** The manifest's own sha256, as `sha256sum` writes it. */
export const MANIFEST_SUM = 'manifest.sha256';
export const VERIFICATION = 'verification.json';
export const PACK_REPORTS = 'drill-reports';
export const PACK_KEYS = 'keys';

export interface PackFile {
  path: string;
  bytes: number;
  sha256: string;
}

export interface PackedDrill {
  file: string;
  name: string;
  finishedAt: string;
  verdict: string;
  /** The seal's check when the pack was made, against the keys named in the manifest. */
  seal: string;
}

export interface PackManifest {
  format: typeof PACK_FORMAT;
  createdAt: string;
  period: { from: string; to: string; start: string; end: string };
  keySource: KeySource;
  keyIds: string[];
  drills: PackedDrill[];
  /** Reports in the folder the pack does not hold, and why (other schema versions, unreadable files). */
  skipped: SkippedReport[];
  /** With --by-control: the controls whose files are under controls/ (history/pack-controls.ts). */
  byControl?: ByControlManifest;
  /** Every file of the pack but the manifest and its sum. */
  files: PackFile[];
}

export interface Verification {
  checkedAt: string;
  keySource: KeySource;
  keyIds: string[];
  /** The chains of the packed drills, as verified in the output folder (all their reports, not only the period's). */
  chains: ChainResult[];
  drills: { file: string; status: string; problems: DrillEntry['seal']['problems'] }[];
}

export interface BuiltPack {
  tarGz: Buffer;
  manifest: PackManifest;
  verification: Verification;
}

export interface PackOptions {
  outputDir: string;
  period: PackPeriod;
  /** Keys obtained out of band; without them, the keys beside the reports (the manifest says which). */
  publicKeys?: KeyObject[];
  now?: Date;
  /** Lay the pack out per control of the catalogue as well (controls/); without it the pack is as it was. */
  byControl?: boolean;
}

/** Builds the pack in memory (reports are small; a year of daily drills is a few megabytes). */
export async function buildPack(options: PackOptions): Promise<BuiltPack> {
  const now = options.now ?? new Date();
  const reader = new DrillReader({ outputDir: options.outputDir, publicKeys: options.publicKeys });
  await refuseSpecialFiles(reader.dir);
  const index = await reader.read();
  const { startMs, endMs } = options.period;
  const drills = index.drills.filter((d) => d.finishedMs >= startMs && d.finishedMs < endMs);
  const chainNames = new Set(drills.map((d) => d.name));
  const verification: Verification = {
    checkedAt: now.toISOString(),
    keySource: index.keySource,
    keyIds: index.keyIds,
    chains: index.chains.filter((c) => chainNames.has(c.chain)),
    drills: drills.map((d) => ({ file: d.file, status: d.seal.status, problems: d.seal.problems })),
  };

  const entries: TarEntry[] = [];
  for (const d of [...drills].sort((a, b) => a.file.localeCompare(b.file))) {
    // With the timestamp tokens of the seal and the attestations, when they have them.
    for (const name of reportFileNames(d.file)) {
      const data = await readRegularFile(join(reader.dir, name));
      if (data) entries.push({ path: `${PACK_REPORTS}/${name}`, data });
    }
  }
  for (const key of await keysOf(reader.dir, options.publicKeys)) {
    entries.push({ path: `${PACK_KEYS}/${keyIdOf(key)}.pem`, data: Buffer.from(pem(key)) });
  }
  entries.push({ path: VERIFICATION, data: json(verification) });
  const posture = (await new PostureReader(options.outputDir).read()).filter(
    (p) => p.asOfMs >= startMs && p.asOfMs < endMs,
  );
  const page = renderPackPage({
    period: options.period,
    createdAt: now,
    drills,
    verification,
    posture,
    ...(options.byControl ? { byControl: true } : {}),
  });
  entries.push({ path: 'index.html', data: Buffer.from(page, 'utf8') });
  const byControl = options.byControl
    ? controlPackEntries({ controls: CONTROLS, drills, entries, period: options.period, reportsFolder: PACK_REPORTS })
    : undefined;
  if (byControl) entries.push(...byControl.entries);

  const manifest: PackManifest = {
    format: PACK_FORMAT,
    createdAt: now.toISOString(),
    period: {
      from: options.period.from,
      to: options.period.to,
      start: new Date(startMs).toISOString(),
      end: new Date(endMs).toISOString(),
    },
    keySource: index.keySource,
    keyIds: index.keyIds,
    drills: drills.map((d) => ({
      file: d.file,
      name: d.name,
      finishedAt: d.finishedAt,
      verdict: d.verdict,
      seal: d.seal.status,
    })),
    skipped: index.skipped,
    ...(byControl ? { byControl: byControl.manifest } : {}),
    files: entries.map((e) => ({ path: e.path, bytes: e.data.length, sha256: sha256(e.data) })),
  };
  const manifestBytes = json(manifest);
  const all = [
    { path: MANIFEST, data: manifestBytes },
    { path: MANIFEST_SUM, data: Buffer.from(`${sha256(manifestBytes)}  ${MANIFEST}\n`) },
    ...entries,
  ];
  return { tarGz: writeTarGz(all, now), manifest, verification };
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value, null, 2) + '\n', 'utf8');
const pem = (key: KeyObject) => key.export({ type: 'spki', format: 'pem' }).toString();

/** The keys the pack carries: those given, else every public key file beside the reports. */
async function keysOf(dir: string, given: KeyObject[] | undefined): Promise<KeyObject[]> {
  if (given) return dedupe(given);
  const names = (await readdir(dir).catch(() => [] as string[])).filter(
    (n) => n.startsWith('evidence-public-key') && n.endsWith('.pem'),
  );
  const keys: KeyObject[] = [];
  for (const name of names.sort()) {
    const path = join(dir, name);
    keys.push(...parsePublicKeys((await readRegularFile(path))?.toString('utf8') ?? '', path));
  }
  return dedupe(keys);
}

/** A pack never holds what a symlink or device points to: one in the reports folder refuses the whole pack. */
async function refuseSpecialFiles(dir: string): Promise<void> {
  for (const name of (await readdir(dir).catch(() => [] as string[])).sort()) {
    const kind = await specialFileKind(dir, name).catch(() => undefined);
    if (kind === 'a directory' && KNOWN_FOLDERS.has(name)) continue;
    if (kind !== undefined) throw new SpecialFileError(join(dir, name), kind);
  }
}

function dedupe(keys: KeyObject[]): KeyObject[] {
  const byId = new Map(keys.map((k) => [keyIdOf(k), k]));
  return [...byId.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, k]) => k);
}
