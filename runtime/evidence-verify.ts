import { verify, type KeyObject } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isAttestationFile } from './evidence-attestation';
import { keyIdOf } from './evidence-key';
import { readJson, Seal, SEAL_SUFFIX, SEALED_RENDERINGS, sealSha256, sha256, signedBytes } from './evidence-seal';

/**
 * Checks a folder of sealed reports (runtime/evidence-seal.ts): every signature, every file against its seal, and
 * every chain's links. Problems are listed in chain order, so that the first one names the first report at fault.
 */

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
  | 'otherKey';

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
  /** The first problem of the first chain that has one. */
  first?: Problem;
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
}

export async function verifyEvidence(
  dir: string,
  publicKeys: KeyObject[],
  options: VerifyOptions = {},
): Promise<Verification> {
  const selected = (chain: string) => options.chains === undefined || options.chains.has(chain);
  const keys = new Map(publicKeys.map((k) => [keyIdOf(k), k]));
  const names = new Set(await readdir(dir));
  const chains = new Map<string, { found: Found[]; problems: Problem[] }>();
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
      const chain = await drillNameOf(dir, file);
      chainOf(chain).problems.push({ kind: 'edited', report: file, detail: `${name} is not a readable seal` });
      continue;
    }
    const found = { file, seal: parsed.data, hash: sealSha256(parsed.data) };
    all.push(found);
    chainOf(parsed.data.chain).found.push(found);
  }

  for (const [name, chain] of chains) {
    if (!selected(name)) continue;
    chain.found.sort((a, b) => a.seal.sequence - b.seal.sequence || a.file.localeCompare(b.file));
    const byHash = new Map(chain.found.map((f) => [f.hash, f]));
    let previous: Found | undefined;
    const ordered: Problem[] = [];
    for (const found of chain.found) {
      ordered.push(...checkSignature(found, keys));
      ordered.push(...(await checkFiles(dir, names, found, all)));
      ordered.push(...checkLink(found, previous, byHash));
      previous = found;
    }
    // Unreadable seals first: nothing places them in the chain.
    chain.problems = [...chain.problems, ...ordered];
  }

  // Reports without a seal, in their drill's chain when the report names one.
  const reports = [...names]
    .filter((n) => n.endsWith('.json') && !n.endsWith(SEAL_SUFFIX) && !isAttestationFile(n))
    .sort();
  for (const name of reports) {
    const file = name.slice(0, -'.json'.length);
    if (sealed.has(file)) continue;
    chainOf(await drillNameOf(dir, file)).problems.push({
      kind: 'unsealed',
      report: file,
      detail: `${name} has no ${file}${SEAL_SUFFIX}`,
    });
  }

  const results = [...chains.entries()]
    .filter(([name]) => selected(name))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([chain, { found, problems }]) => ({ chain, reports: found.map((f) => f.file), problems }));
  return { chains: results, first: results.find((c) => c.problems.length > 0)?.problems[0] };
}

function checkSignature({ file, seal }: Found, keys: Map<string, KeyObject>): Problem[] {
  const key = keys.get(seal.keyId);
  if (!key) {
    const known = [...keys.keys()].join(', ') || 'none';
    const detail = `sealed with another key (id ${seal.keyId}), not this one (${known})`;
    return [{ kind: 'otherKey', report: file, detail }];
  }
  const ok = verify(null, signedBytes(seal), key, Buffer.from(seal.signature, 'base64'));
  return ok ? [] : [{ kind: 'edited', report: file, detail: `the signature of ${file}${SEAL_SUFFIX} does not hold` }];
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
    const actual = sha256(await readFile(join(dir, name)));
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

/** The drill a report belongs to, from its JSON's `name`, when it can be read. */
async function drillNameOf(dir: string, file: string): Promise<string> {
  const json = await readJson(join(dir, `${file}.json`));
  const name = json && typeof json === 'object' && 'name' in json ? json.name : undefined;
  return typeof name === 'string' ? name : '(unknown drill)';
}
