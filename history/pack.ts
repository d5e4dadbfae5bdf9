// An evidence pack: the drill reports and the recovery plan reports of a period with their seals, the public keys, the
// chains' verification, a summary page with the trend charts, and a manifest with the sha256 of every file, in one
// tar.gz.
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
import { PLAN_REPORTS_FOLDER, PlanReader, type PlanEntry } from './plan-index';
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
/** The recovery plan reports' folder in a pack, as in the output folder. */
export const PACK_PLAN_REPORTS = PLAN_REPORTS_FOLDER;
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

/** A recovery plan run in the pack: its verdict, and its RTO against its target. */
export interface PackedPlan {
  file: string;
  name: string;
  mode: PlanEntry['mode'];
  finishedAt: string;
  verdict: PlanEntry['verdict'];
  rto: { seconds: number; targetSeconds: number; met: boolean };
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
  /**
   * The recovery plan runs that finished in the period, newest first, their files under plan-reports/; empty when
   * none did. Absent from packs made before plan reports were packed.
   */
  plans?: PackedPlan[];
  /** Reports in the folders the pack does not hold, and why (other schema versions, unreadable files). */
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
  /**
   * The chains of the packed drills, then of the packed plans (`plan:<name>`), as verified in the output folder (all
   * their reports, not only the period's).
   */
  chains: ChainResult[];
  drills: ReportCheck[];
  plans: ReportCheck[];
}

/** One packed report's seal, as checked when the pack was made. */
export interface ReportCheck {
  file: string;
  status: string;
  problems: DrillEntry['seal']['problems'];
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
  const planReader = new PlanReader({ outputDir: options.outputDir, publicKeys: options.publicKeys });
  await refuseSpecialFiles(reader.dir);
  await refuseSpecialFiles(planReader.dir);
  const index = await reader.read();
  const planIndex = await planReader.read();
  const { startMs, endMs } = options.period;
  const inPeriod = (r: { finishedMs: number }) => r.finishedMs >= startMs && r.finishedMs < endMs;
  const drills = index.drills.filter(inPeriod);
  const plans = planIndex.plans.filter(inPeriod);
  const chainNames = new Set(drills.map((d) => d.name));
  const planChains = new Set(plans.map((p) => planChainOf(p.name)));
  const keyIds = [...new Set([...index.keyIds, ...planIndex.keyIds])].sort();
  const check = (r: { file: string; seal: DrillEntry['seal'] }): ReportCheck => ({
    file: r.file,
    status: r.seal.status,
    problems: r.seal.problems,
  });
  const verification: Verification = {
    checkedAt: now.toISOString(),
    keySource: index.keySource,
    keyIds,
    chains: [
      ...index.chains.filter((c) => chainNames.has(c.chain)),
      ...planIndex.chains.filter((c) => planChains.has(c.chain)),
    ],
    drills: drills.map(check),
    plans: plans.map(check),
  };

  const entries: TarEntry[] = [
    ...(await reportEntries(reader.dir, PACK_REPORTS, drills)),
    ...(await reportEntries(planReader.dir, PACK_PLAN_REPORTS, plans)),
  ];
  for (const key of await keysOf([reader.dir, planReader.dir], options.publicKeys)) {
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
    plans,
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
    keyIds,
    drills: drills.map((d) => ({
      file: d.file,
      name: d.name,
      finishedAt: d.finishedAt,
      verdict: d.verdict,
      seal: d.seal.status,
    })),
    plans: plans.map((p) => ({
      file: p.file,
      name: p.name,
      mode: p.mode,
      finishedAt: p.finishedAt,
      verdict: p.verdict,
      rto: { seconds: p.rto.seconds, targetSeconds: p.rto.targetSeconds, met: p.rto.met },
      seal: p.seal.status,
    })),
    skipped: [...index.skipped, ...planIndex.skipped],
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

/** The chain a recovery plan's reports are sealed in (runbooks/recovery-plan/activities.ts). */
export const planChainOf = (name: string) => `plan:${name}`;

/**
 * The files of each report under `folder/` in the pack, by name, from `dir`: its renderings, attestations and seal,
 * with the timestamp tokens of the seal and the attestations when it has them.
 */
async function reportEntries(dir: string, folder: string, reports: readonly { file: string }[]): Promise<TarEntry[]> {
  const entries: TarEntry[] = [];
  for (const r of [...reports].sort((a, b) => a.file.localeCompare(b.file))) {
    for (const name of reportFileNames(r.file)) {
      const data = await readRegularFile(join(dir, name));
      if (data) entries.push({ path: `${folder}/${name}`, data });
    }
  }
  return entries;
}

/** The keys the pack carries: those given, else every public key file beside the reports, in each folder. */
async function keysOf(dirs: readonly string[], given: KeyObject[] | undefined): Promise<KeyObject[]> {
  if (given) return dedupe(given);
  const keys: KeyObject[] = [];
  for (const dir of dirs) {
    const names = (await readdir(dir).catch(() => [] as string[])).filter(
      (n) => n.startsWith('evidence-public-key') && n.endsWith('.pem'),
    );
    for (const name of names.sort()) {
      const path = join(dir, name);
      keys.push(...parsePublicKeys((await readRegularFile(path))?.toString('utf8') ?? '', path));
    }
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
