// Checks an evidence pack: every file against the manifest (none changed, missing or added), the manifest against its
// sum, and every drill report and recovery plan report against its seal and its chain's links within the pack.
import type { KeyObject, X509Certificate } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EvidenceKeyError, keyIdOf, parsePublicKeys } from '../runtime/evidence-key';
import { packPathProblem } from '../runtime/evidence-names';
import { sha256 } from '../runtime/evidence-seal';
import { verifyEvidence, type ChainResult, type Problem } from '../runtime/evidence-verify';
import type { ReportStamps } from '../runtime/evidence-verify-stamps';
import {
  MANIFEST,
  MANIFEST_SUM,
  PACK_FORMAT,
  PACK_KEYS,
  PACK_PLAN_REPORTS,
  PACK_REPORTS,
  planChainOf,
  type PackManifest,
} from './pack';
import { byControlPaths, PACK_CONTROLS, type ControlFile, type PackedFileRef } from './pack-controls';
import { readTarGz, TarFormatError, type TarEntry } from './tar';

export type PackProblemKind =
  /** Not a gzipped tar, or no readable manifest. */
  | 'unreadable'
  /** A file whose bytes differ from the manifest's sha256 (or the manifest from its sum). */
  | 'changed'
  /** A file the manifest lists and the pack lacks. */
  | 'missing'
  /** A file in the pack the manifest does not list. */
  | 'extra'
  /**
   * A drill or plan report whose seal or chain does not hold, a file in drill-reports/ or plan-reports/ no seal covers,
   * or a report in the other kind's folder (a plan's chain in drill-reports/, a drill's in plan-reports/).
   */
  | 'seal'
  /** A path that climbs out (`..`), is absolute, hides (leading dot) or holds control or bidirectional characters. */
  | 'badName'
  /** A file under controls/ that names a report the pack lacks, or with another sha256 than the report's. */
  | 'link';

export interface PackProblem {
  kind: PackProblemKind;
  /** The path inside the pack at fault. */
  file: string;
  detail: string;
}

export interface PackVerification {
  manifest?: PackManifest;
  /** The IDs of the keys the seals were checked against. */
  keyIds: string[];
  chains: ChainResult[];
  /** Each report's timestamps, checked against the authority's certificates when given. */
  timestamps: ReportStamps[];
  /** Empty when the pack holds. */
  problems: PackProblem[];
}

/** The public keys a pack carries (keys/*.pem): usable only when the caller chooses to trust them. */
export function packKeys(entries: readonly TarEntry[]): KeyObject[] {
  return entries
    .filter((e) => e.path.startsWith(`${PACK_KEYS}/`) && e.path.endsWith('.pem'))
    .flatMap((e) => {
      try {
        return parsePublicKeys(e.data.toString('utf8'), e.path);
      } catch (err) {
        if (err instanceof EvidenceKeyError) return [];
        throw err;
      }
    });
}

export function readPack(gz: Buffer): TarEntry[] | PackProblem {
  try {
    return readTarGz(gz);
  } catch (err) {
    if (err instanceof TarFormatError) return { kind: 'unreadable', file: '(the pack)', detail: err.message };
    throw err;
  }
}

/** Checks a pack read with `readPack` against `publicKeys` (`packKeys` of it when the caller trusts them). */
export async function verifyPack(
  entries: readonly TarEntry[],
  publicKeys: KeyObject[],
  timestampCertificates?: readonly X509Certificate[],
): Promise<PackVerification> {
  const keyIds = publicKeys.map(keyIdOf).sort();
  const byPath = new Map(entries.map((e) => [e.path, e.data]));
  const fail = (problem: PackProblem): PackVerification => ({
    keyIds,
    chains: [],
    timestamps: [],
    problems: [problem],
  });

  const manifestBytes = byPath.get(MANIFEST);
  if (!manifestBytes) return fail({ kind: 'missing', file: MANIFEST, detail: 'the pack has no manifest' });
  const sum = byPath.get(MANIFEST_SUM)?.toString('utf8');
  if (sum === undefined) return fail({ kind: 'missing', file: MANIFEST_SUM, detail: "the manifest's sum is missing" });
  if (sum !== `${sha256(manifestBytes)}  ${MANIFEST}\n`) {
    return fail({
      kind: 'changed',
      file: MANIFEST,
      detail: `${MANIFEST} (sha256 ${sha256(manifestBytes)}) does not match ${MANIFEST_SUM}`,
    });
  }
  const manifest = parseManifest(manifestBytes);
  if (!manifest) return fail({ kind: 'unreadable', file: MANIFEST, detail: `not a ${PACK_FORMAT} manifest` });

  const problems: PackProblem[] = [];
  // Names first: a member named to climb out or hide is refused whether or not the manifest lists it.
  for (const path of new Set([...byPath.keys(), ...manifest.files.map((f) => f.path)])) {
    const bad = packPathProblem(path);
    if (bad !== undefined) problems.push({ kind: 'badName', file: path, detail: bad });
  }
  const listed = new Set(manifest.files.map((f) => f.path));
  for (const f of manifest.files) {
    const data = byPath.get(f.path);
    if (!data)
      problems.push({ kind: 'missing', file: f.path, detail: `${f.path} is listed in ${MANIFEST} but missing` });
    else if (sha256(data) !== f.sha256 || data.length !== f.bytes) {
      problems.push({
        kind: 'changed',
        file: f.path,
        detail: `${f.path} does not match ${MANIFEST} (sha256 ${sha256(data)}, expected ${f.sha256})`,
      });
    }
  }
  for (const path of byPath.keys()) {
    if (path === MANIFEST || path === MANIFEST_SUM || listed.has(path)) continue;
    problems.push({ kind: 'extra', file: path, detail: `${path} is in the pack but not in ${MANIFEST}` });
  }
  problems.push(...byControlProblems(manifest, byPath));

  const chains: ChainResult[] = [];
  const timestamps: ReportStamps[] = [];
  for (const reportsFolder of [PACK_REPORTS, PACK_PLAN_REPORTS]) {
    const checked = await verifyReports(entries, reportsFolder, publicKeys, timestampCertificates);
    const named = (p: Problem): PackProblem => ({
      kind: 'seal',
      file: `${reportsFolder}/${p.report}`,
      detail: `${p.kind}: ${p.detail}`,
    });
    problems.push(...checked.folder.map(named));
    for (const chain of checked.chains) {
      // The period starts mid-chain: the first report's predecessor is outside the pack, on purpose.
      const head = chain.reports[0];
      for (const p of chain.problems) {
        if (p.kind === 'removed' && p.report === head) continue;
        problems.push(named(p));
      }
      // A report moved to the other kind's folder: its seal holds, but it is not what the folder says it is.
      const isPlan = chain.chain.startsWith(planChainOf(''));
      if (isPlan !== (reportsFolder === PACK_PLAN_REPORTS)) {
        const kind = isPlan ? 'a recovery plan' : 'a drill';
        for (const report of chain.reports) {
          problems.push({
            kind: 'seal',
            file: `${reportsFolder}/${report}`,
            detail: `${report} is sealed in the chain ${chain.chain}, of ${kind}: not a report of ${reportsFolder}/`,
          });
        }
      }
    }
    chains.push(...checked.chains);
    timestamps.push(...checked.timestamps);
  }
  return { manifest, keyIds, chains, timestamps, problems };
}

/**
 * The pack's reports under `reportsFolder/` written to a scratch folder and checked there, as `evidence verify <dir>`
 * checks a folder: each folder on its own, as in the output folder.
 */
async function verifyReports(
  entries: readonly TarEntry[],
  reportsFolder: string,
  keys: KeyObject[],
  timestampCertificates: readonly X509Certificate[] | undefined,
): Promise<{ chains: ChainResult[]; folder: Problem[]; timestamps: ReportStamps[] }> {
  const reports = entries.filter((e) => e.path.startsWith(`${reportsFolder}/`));
  if (reports.length === 0) return { chains: [], folder: [], timestamps: [] };
  const scratch = await mkdtemp(join(tmpdir(), 'runbooks-pack-'));
  try {
    const dir = join(scratch, reportsFolder);
    await mkdir(dir);
    const unwritten: Problem[] = [];
    for (const e of reports) {
      const name = e.path.slice(reportsFolder.length + 1);
      // A path that climbs out, hides or nests is not written (its name is a problem above), but still counts.
      if (!/^[A-Za-z0-9._-]+$/.test(name) || name.startsWith('.')) {
        unwritten.push({ kind: 'unaccounted', report: name, detail: `${e.path} is not a report file name` });
        continue;
      }
      await writeFile(join(dir, name), e.data);
    }
    const options = timestampCertificates ? { timestamps: timestampCertificates } : {};
    const { chains, folder, timestamps } = await verifyEvidence(dir, keys, options);
    return { chains, folder: [...unwritten, ...folder], timestamps };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * The files under controls/ (`evidence pack --by-control`): each listed one must be a file of a control the manifest's
 * `byControl` names (its JSON or page, or the overview), each of those must be listed, and each report a control's
 * JSON links to must be in the pack with the sha256 it says. An unlisted file is `extra` above already.
 */
function byControlProblems(manifest: PackManifest, byPath: ReadonlyMap<string, Buffer>): PackProblem[] {
  const problems: PackProblem[] = [];
  const listed = new Set(manifest.files.map((f) => f.path));
  const { byControl } = manifest;
  const names = byControl?.controls;
  if (byControl !== undefined && (!Array.isArray(names) || !names.every((n) => SAFE_NAME.test(String(n))))) {
    return [{ kind: 'unreadable', file: MANIFEST, detail: `byControl.controls is not a list of control IDs` }];
  }
  const allowed = byControlPaths(byControl);
  for (const path of listed) {
    if (!path.startsWith(`${PACK_CONTROLS}/`) || allowed.has(path)) continue;
    problems.push({
      kind: 'extra',
      file: path,
      detail: `${path} is not a file of the controls the manifest names (byControl)`,
    });
  }
  for (const path of allowed) {
    if (!listed.has(path)) {
      problems.push({ kind: 'missing', file: path, detail: `${path} is a control's file not listed in ${MANIFEST}` });
      continue;
    }
    const data = byPath.get(path);
    if (!path.endsWith('.json') || data === undefined) continue;
    const refs = controlRefs(data);
    if (!refs) {
      problems.push({ kind: 'unreadable', file: path, detail: `${path} is not a control file of the pack` });
      continue;
    }
    for (const ref of refs) {
      const report = byPath.get(ref.path);
      const ok =
        ref.path.startsWith(`${PACK_REPORTS}/`) && listed.has(ref.path) && report && sha256(report) === ref.sha256;
      if (!ok) {
        problems.push({
          kind: 'link',
          file: path,
          detail: `${path} names ${ref.path} (sha256 ${ref.sha256}), which the pack does not hold with that sha256`,
        });
      }
    }
  }
  return problems;
}

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** The reports a control file links to, or undefined when it is not one. */
function controlRefs(bytes: Buffer): PackedFileRef[] | undefined {
  try {
    const file = JSON.parse(bytes.toString('utf8')) as Partial<ControlFile>;
    if (!Array.isArray(file.satisfyingDrills) || !Array.isArray(file.gaps)) return undefined;
    const refs = [
      ...file.satisfyingDrills.map((d) => d?.report),
      ...file.gaps.flatMap((g) => [g?.decidedBy, g?.lastVerifiedPass].filter((r) => r !== undefined)),
    ];
    const valid = refs.every((r) => typeof r?.path === 'string' && typeof r.sha256 === 'string');
    return valid ? refs : undefined;
  } catch {
    return undefined;
  }
}

function parseManifest(bytes: Buffer): PackManifest | undefined {
  try {
    const value = JSON.parse(bytes.toString('utf8')) as Partial<PackManifest>;
    if (value.format !== PACK_FORMAT || !Array.isArray(value.files)) return undefined;
    const ok = value.files.every(
      (f) => typeof f?.path === 'string' && typeof f.sha256 === 'string' && typeof f.bytes === 'number',
    );
    return ok ? (value as PackManifest) : undefined;
  } catch {
    return undefined;
  }
}
