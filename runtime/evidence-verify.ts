import { verify, type KeyObject, type X509Certificate } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { keyIdOf } from './evidence-key';
import { keyWindowOf, type KeyWindow } from './evidence-key-history';
import { fileNameProblem, readRegularFile, specialFileKind, SpecialFileError } from './evidence-names';
import {
  LOCK_NAME,
  PUBLIC_KEY_FILE,
  readJson,
  renderingOf,
  Seal,
  SEAL_SUFFIX,
  SEALED_RENDERINGS,
  sealSha256,
  sha256,
  signedBytes,
} from './evidence-seal';
import { stampedFileOf } from './evidence-stamps';
import { checkStamps, type ReportStamps } from './evidence-verify-stamps';
import { TIMESTAMP_SUFFIX } from './evidence-timestamp';

/**
 * Checks a folder of sealed reports (runtime/evidence-seal.ts): every signature, every file against its seal, and
 * every chain's links. Problems are listed in chain order, so that the first one names the first report at fault.
 * Every file of the folder is accounted for: a seal, a rendering its seal covers, a timestamp token of a seal or of an
 * attestation, a public key or the key history (`knownFile`); anything else, a special file (symlink, device, …) or a
 * name that hides or misleads is a problem.
 */

/** The seal's lock file, its claims and their temporary files: written by `sealReport`, never read by verify. */
const LOCK_FILE = new RegExp(
  `^${LOCK_NAME.replace(/\./g, '\\.')}\\.lock(\\.[0-9a-f]{16}\\.claim\\d+)?(\\.[0-9a-f]{8}\\.tmp)?$`,
);

/** Folders in the reports folder that are not evidence and are never read: the fanned-out drill's batch parts. */
export const KNOWN_FOLDERS: ReadonlySet<string> = new Set(['parts']);

/** Files beside the reports that no seal covers and that are known: the public keys and the key history. */
export function knownFile(name: string): boolean {
  const keyPrefix = PUBLIC_KEY_FILE.replace(/\.pem$/, '');
  return (name.startsWith(keyPrefix) && name.endsWith('.pem')) || name.endsWith('.history.json');
}

export type ProblemKind =
  /** A file or a seal differs from what was signed, or a signature does not hold. */
  | 'edited'
  /** A report of the chain is missing: a link to nothing, or a sequence gap. */
  | 'removed'
  /** Files moved between reports, or the sequence disagrees with the links. */
  | 'reordered'
  /** A report without a seal. */
  | 'unsealed'
  /** Sealed with a key that none given is: not proof of an edit, and not verified either. */
  | 'otherKey'
  /** A file that no seal covers and that is not a known file: nothing vouches for it. */
  | 'unaccounted'
  /** A symlink, device, folder or other file that is not a regular file: never read. */
  | 'special'
  /** A name that hides (leading dot) or reads other than it is (control or bidirectional characters). */
  | 'badName'
  /** Sealed at a time outside its key's window in the key history (before `since`, or at or after `retiredAt`). */
  | 'keyWindow'
  /** A timestamp token that does not hold: not for its file, not vouched for by the authority, or far from the seal. */
  | 'timestamp';

export interface Problem {
  kind: ProblemKind;
  /** The base name of the report's files as found in the folder. */
  report: string;
  detail: string;
}

export interface ChainResult {
  chain: string;
  /** Base names in sequence order. */
  reports: string[];
  problems: Problem[];
}

export interface Verification {
  chains: ChainResult[];
  /** Files that belong to no chain and are at fault (an unknown file, a special file, a bad name). */
  folder: Problem[];
  /** The first problem of the first chain that has one, else the folder's first. */
  first?: Problem;
  /** The timestamps of each sealed report checked, by report (runtime/evidence-verify-stamps.ts). */
  timestamps: ReportStamps[];
}

interface Found {
  file: string;
  seal: Seal;
  hash: string;
}

export interface VerifyOptions {
  /**
   * Check only these chains (by drill name): a reader that keeps the results of chains whose files did not change
   * checks only the others. Every seal is still read, so that files moved between chains are still found.
   */
  chains?: ReadonlySet<string>;
  /**
   * Seals the caller already read and parsed, by the base name of their report (undefined: not a readable seal), so
   * that they are not read again; a seal file not in the map is read from the folder.
   */
  seals?: ReadonlyMap<string, Seal | undefined>;
  /**
   * The time-stamping authority's certificates, obtained out of band (`--tsa-cert`): each token must verify against
   * them. Without them, a token is checked to cover its file, and the report's timestamps are `unchecked`.
   */
  timestamps?: readonly X509Certificate[];
}

export async function verifyEvidence(
  dir: string,
  publicKeys: KeyObject[],
  options: VerifyOptions = {},
): Promise<Verification> {
  const selected = (chain: string) => options.chains === undefined || options.chains.has(chain);
  const keys = new Map(publicKeys.map((k) => [keyIdOf(k), k]));
  // A key given both as PEM (no dates) and in a history keeps the history's window.
  const windows = new Map<string, KeyWindow>();
  for (const k of publicKeys) {
    const window = keyWindowOf(k);
    if (window) windows.set(keyIdOf(k), window);
  }
  // Regular files only (lstat: a symlink is never followed); the rest are listed as problems.
  const names = new Set<string>();
  const stray: Problem[] = [];
  for (const name of (await readdir(dir)).sort()) {
    if (LOCK_FILE.test(name)) continue;
    const special = await specialFileKind(dir, name).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    if (special === null || (special === 'a directory' && KNOWN_FOLDERS.has(name))) continue;
    if (special !== undefined) {
      stray.push({ kind: 'special', report: name, detail: `${name} is ${special}, not a regular file: not read` });
      continue;
    }
    names.add(name);
    const bad = fileNameProblem(name);
    if (bad !== undefined) stray.push({ kind: 'badName', report: name, detail: bad });
  }
  const chains = new Map<string, { found: Found[]; problems: Problem[] }>();
  const timestamps: ReportStamps[] = [];
  const chainOf = (name: string) => {
    let chain = chains.get(name);
    if (!chain) chains.set(name, (chain = { found: [], problems: [] }));
    return chain;
  };

  const sealFiles = [...names].filter((n) => n.endsWith(SEAL_SUFFIX)).sort();
  const sealed = new Set<string>();
  const all: Found[] = [];
  for (const name of sealFiles) {
    const file = name.slice(0, -SEAL_SUFFIX.length);
    sealed.add(file);
    const known = options.seals?.has(file) ? options.seals.get(file) : await readJson(join(dir, name));
    const parsed = Seal.safeParse(known);
    if (!parsed.success) {
      const chain = await drillNameOf(dir, names, file);
      chainOf(chain).problems.push({ kind: 'edited', report: file, detail: `${name} is not a readable seal` });
      continue;
    }
    const found = { file, seal: parsed.data, hash: sealSha256(parsed.data) };
    all.push(found);
    chainOf(parsed.data.chain).found.push(found);
  }

  // Every other file: a rendering its seal covers (checked below), a known file, or a problem.
  const folder: Problem[] = [];
  const inChainOf = async (base: string | undefined, problem: Problem) => {
    const seal = base === undefined ? undefined : all.find((f) => f.file === base)?.seal;
    if (seal) chainOf(seal.chain).problems.push(problem);
    else if (base !== undefined && names.has(`${base}.json`))
      chainOf(await drillNameOf(dir, names, base)).problems.push(problem);
    else folder.push(problem);
  };
  for (const problem of stray) await inChainOf(baseOf(problem.report), problem);
  for (const name of [...names].sort()) {
    if (name.endsWith(SEAL_SUFFIX) || knownFile(name)) continue;
    // A token is accounted for by the file it dates, which its report's seal covers (checked with the report).
    const stamped = stampedFileOf(name);
    if (stamped !== undefined && names.has(stamped) && sealed.has(baseOf(stamped) ?? '')) continue;
    if (stamped !== undefined || name.endsWith(TIMESTAMP_SUFFIX)) {
      await inChainOf(stamped === undefined ? undefined : baseOf(stamped), {
        kind: 'unaccounted',
        report: name,
        detail: `${name} is a timestamp of nothing sealed: only a seal and an attestation it covers have tokens`,
      });
      continue;
    }
    const base = baseOf(name);
    if (base === undefined) {
      folder.push({
        kind: 'unaccounted',
        report: name,
        detail: `${name} is not a report, a seal, a public key or the key history: no seal covers it`,
      });
      continue;
    }
    if (sealed.has(base) || name === `${base}.json`) continue;
    await inChainOf(base, {
      kind: 'unsealed',
      report: base,
      detail: `${name} has no ${base}${SEAL_SUFFIX}: a rendering counts only against its report's seal`,
    });
  }

  for (const [name, chain] of chains) {
    if (!selected(name)) continue;
    chain.found.sort((a, b) => a.seal.sequence - b.seal.sequence || a.file.localeCompare(b.file));
    const byHash = new Map(chain.found.map((f) => [f.hash, f]));
    let previous: Found | undefined;
    const ordered: Problem[] = [];
    for (const found of chain.found) {
      ordered.push(...checkSignature(found, keys, windows));
      ordered.push(...(await checkFiles(dir, names, found, all)));
      ordered.push(...checkLink(found, previous, byHash));
      const { stamps, faults } = await checkStamps(dir, names, found.file, found.seal, options.timestamps);
      timestamps.push(stamps);
      ordered.push(...faults.map((detail): Problem => ({ kind: 'timestamp', report: found.file, detail })));
      previous = found;
    }
    // Unreadable seals first: nothing places them in the chain.
    chain.problems = [...chain.problems, ...ordered];
  }

  // Reports without a seal, in their drill's chain when the report names one.
  const reports = [...names].filter((n) => !knownFile(n) && n === `${baseOf(n)}.json`).sort();
  for (const name of reports) {
    const file = name.slice(0, -'.json'.length);
    if (sealed.has(file)) continue;
    chainOf(await drillNameOf(dir, names, file)).problems.push({
      kind: 'unsealed',
      report: file,
      detail: `${name} has no ${file}${SEAL_SUFFIX}`,
    });
  }

  timestamps.sort((a, b) => a.report.localeCompare(b.report));
  const results = [...chains.entries()]
    .filter(([name]) => selected(name))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([chain, { found, problems }]) => ({ chain, reports: found.map((f) => f.file), problems }));
  const first = results.find((c) => c.problems.length > 0)?.problems[0] ?? folder[0];
  return { chains: results, folder, first, timestamps };
}

function checkSignature(
  { file, seal }: Found,
  keys: Map<string, KeyObject>,
  windows: Map<string, KeyWindow>,
): Problem[] {
  const key = keys.get(seal.keyId);
  if (!key) {
    const known = [...keys.keys()].join(', ') || 'none';
    const detail = `sealed with another key (id ${seal.keyId}), not this one (${known})`;
    return [{ kind: 'otherKey', report: file, detail }];
  }
  const ok = verify(null, signedBytes(seal), key, Buffer.from(seal.signature, 'base64'));
  if (!ok) return [{ kind: 'edited', report: file, detail: `the signature of ${file}${SEAL_SUFFIX} does not hold` }];
  return checkWindow(file, seal, windows.get(seal.keyId));
}

/**
 * A seal's time (signed, so not editable) must fall in its key's window: a retired key, or one stolen, cannot seal
 * reports after its retirement, nor a key seal before it was issued. Only keys read from a key history have one.
 */
function checkWindow(file: string, seal: Seal, window: KeyWindow | undefined): Problem[] {
  if (!window) return [];
  const at = Date.parse(seal.sealedAt);
  const since = window.since === null ? -Infinity : Date.parse(window.since);
  const until = window.retiredAt === null ? Infinity : Date.parse(window.retiredAt);
  if (at >= since && at < until) return [];
  const dates = `since ${window.since ?? '(before the history)'}, ${window.retiredAt ? `retired ${window.retiredAt}` : 'current'}`;
  return [
    {
      kind: 'keyWindow',
      report: file,
      detail: `sealed at ${seal.sealedAt} with key ${seal.keyId}, outside its window in the key history (${dates})`,
    },
  ];
}

async function checkFiles(dir: string, names: Set<string>, found: Found, all: Found[]): Promise<Problem[]> {
  const { file, seal } = found;
  const problems: Problem[] = [];
  if (seal.report !== file) {
    problems.push({
      kind: 'reordered',
      report: file,
      detail: `${file}${SEAL_SUFFIX} seals the report ${seal.report} (sequence ${seal.sequence}): files were renamed or swapped`,
    });
  }
  for (const extension of SEALED_RENDERINGS) {
    const name = `${file}.${extension}`;
    const expected = seal.files[extension];
    if (expected === undefined) {
      if (names.has(name))
        problems.push({ kind: 'edited', report: file, detail: `${name} is not covered by its seal` });
      continue;
    }
    if (!names.has(name)) {
      problems.push({ kind: 'edited', report: file, detail: `${name} is missing` });
      continue;
    }
    const data = await readRegularFile(join(dir, name)).catch((err: unknown) => {
      if (err instanceof SpecialFileError) return err;
      throw err;
    });
    if (data === undefined || data instanceof SpecialFileError) {
      const detail = data ? `${name} is ${data.what}, not a regular file: not read` : `${name} is missing`;
      problems.push({ kind: data ? 'special' : 'edited', report: file, detail });
      continue;
    }
    const actual = sha256(data);
    if (actual === expected) continue;
    const owner = all.find((other) => other !== found && other.seal.files[extension] === actual);
    problems.push(
      owner
        ? {
            kind: 'reordered',
            report: file,
            detail: `${name} holds the content sealed for ${owner.seal.report} (sequence ${owner.seal.sequence} of ${owner.seal.chain})`,
          }
        : { kind: 'edited', report: file, detail: `${name} does not match its seal (sha256 ${actual})` },
    );
  }
  return problems;
}

/** A seal must follow the one before it in sequence order, by sequence number and by its hash link. */
function checkLink({ file, seal }: Found, previous: Found | undefined, byHash: Map<string, Found>): Problem[] {
  const n = seal.sequence;
  if (seal.previousSha256 === null) {
    if (n === 1 && previous === undefined) return [];
    const detail =
      n === 1
        ? `a second first report of the chain (after ${previous?.file ?? '?'}): the chain forked`
        : `sequence ${n} claims to be the first report of the chain`;
    return [{ kind: 'reordered', report: file, detail }];
  }
  const linked = byHash.get(seal.previousSha256);
  if (!linked) {
    const gap = previous ? `after ${previous.file} (sequence ${previous.seal.sequence})` : 'before it';
    return [
      {
        kind: 'removed',
        report: file,
        detail: `the report before sequence ${n} is missing: ${gap}, nothing it links to`,
      },
    ];
  }
  if (linked === previous && n === linked.seal.sequence + 1) return [];
  return [
    {
      kind: 'reordered',
      report: file,
      detail: `sequence ${n} links to ${linked.file} (sequence ${linked.seal.sequence}), but follows ${previous?.file ?? 'nothing'} in sequence order`,
    },
  ];
}

/** The base name of a report's file (`<base>.json`, `.md`, `.html` or its seal), else undefined. */
function baseOf(name: string): string | undefined {
  // No rendering's extension ends in `.seal.json`, so a seal is told apart first.
  if (name.endsWith(SEAL_SUFFIX) && name.length > SEAL_SUFFIX.length) return name.slice(0, -SEAL_SUFFIX.length);
  return renderingOf(name)?.base;
}

/** The drill a report belongs to, from its JSON's `name`, when it can be read (a regular file only). */
async function drillNameOf(dir: string, names: ReadonlySet<string>, file: string): Promise<string> {
  if (!names.has(`${file}.json`)) return '(unknown drill)';
  const json = await readJson(join(dir, `${file}.json`));
  const name = json && typeof json === 'object' && 'name' in json ? json.name : undefined;
  return typeof name === 'string' ? name : '(unknown drill)';
}
