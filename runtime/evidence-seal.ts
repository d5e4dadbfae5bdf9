import { createHash, sign } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from './atomic-file';
import type { EvidenceKey } from './evidence-key';
import { withLockFile } from './file-lock';

/**
 * Tamper-evident evidence: every report gets a sidecar `<baseName>.seal.json` that holds the sha256 of each of its
 * renderings, its place in the chain of its drill (sequence, and the hash of the previous seal) and an Ed25519
 * signature over all of that. A sidecar rather than a block inside the JSON: it signs the files' exact bytes (no
 * canonical form of the report is needed), covers every rendering alike, and leaves the report's format alone.
 */

export const SEAL_SUFFIX = '.seal.json';
export const SEAL_FORMAT = 'runbooks-evidence-seal/1';
/**
 * Files of a report that a seal covers when they exist, `<baseName>.<extension>`: its renderings and its in-toto
 * attestations (runtime/evidence-attestation.ts): a drill's `drill.dsse.json`, a recovery plan's `plan.dsse.json`.
 */
export const SEALED_RENDERINGS = [
  'json',
  'md',
  'html',
  'test-result.dsse.json',
  'drill.dsse.json',
  'plan.dsse.json',
] as const;
export type SealedRendering = (typeof SEALED_RENDERINGS)[number];

/** Longest first: `x.drill.dsse.json` is a file of `x`, not the report JSON of `x.drill.dsse`. */
const RENDERINGS_LONGEST_FIRST = [...SEALED_RENDERINGS].sort((a, b) => b.length - a.length);

/**
 * Which report a file is a rendering of: `<base>.<extension>`, with the longest extension of SEALED_RENDERINGS that
 * ends the name and a base of one character or more; undefined for any other file. A seal (`x.seal.json`) would read
 * as the JSON of `x.seal`: tell seals apart by SEAL_SUFFIX first.
 */
export function renderingOf(fileName: string): { base: string; extension: SealedRendering } | undefined {
  for (const extension of RENDERINGS_LONGEST_FIRST) {
    const suffix = `.${extension}`;
    if (fileName.endsWith(suffix) && fileName.length > suffix.length) {
      return { base: fileName.slice(0, -suffix.length), extension };
    }
  }
  return undefined;
}

export const PUBLIC_KEY_FILE = 'evidence-public-key.pem';
export const LOCK_NAME = '.evidence-chain';
const LOCK_WAIT_MS = 60_000;

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

export const Seal = z.strictObject({
  format: z.literal(SEAL_FORMAT),
  algorithm: z.literal('Ed25519'),
  keyId: z.string().min(1),
  /** The drill's name: reports of one drill form one chain. */
  chain: z.string().min(1),
  /** 1, 2, … within the chain. */
  sequence: z.number().int().min(1),
  /** The base name of the files sealed; a seal found under another name was moved. */
  report: z.string().min(1),
  workflowId: z.string().min(1),
  runId: z.string().min(1),
  /** sha256 of each rendering's bytes, by extension; `json` is the report's content. */
  files: z.record(z.string(), sha256Hex).refine((f) => f.json !== undefined, 'files.json is required'),
  /** `sealSha256` of the chain's previous seal; null for the first. */
  previousSha256: sha256Hex.nullable(),
  sealedAt: z.string().min(1),
  /** Base64 Ed25519 signature over `canonicalJson` of every other field. */
  signature: z.string().min(1),
});
export type Seal = z.infer<typeof Seal>;

/** A chain cannot be extended as asked; the report stays unsealed and the activity fails. */
export class EvidenceChainError extends Error {
  override name = 'EvidenceChainError';
}

/** JSON with object keys sorted at every depth and no white space: one text for one value, wherever it is written. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** The bytes a seal's signature covers. */
export function signedBytes(seal: Omit<Seal, 'signature'> & { signature?: string }): Buffer {
  const { signature: _signature, ...signed } = seal;
  return Buffer.from(canonicalJson(signed), 'utf8');
}

/** The hash the next seal of the chain links to: of the whole seal, signature included. */
export function sealSha256(seal: Seal): string {
  return sha256(canonicalJson(seal));
}

/** sha256 of each rendering of `baseName` present in `dir`. */
export async function hashRenderings(dir: string, baseName: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const extension of SEALED_RENDERINGS) {
    const data = await readFile(join(dir, `${baseName}.${extension}`)).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (data) files[extension] = sha256(data);
  }
  return files;
}

/** Every seal in `dir` that parses, with the base name of its file. */
export async function readSeals(dir: string): Promise<{ file: string; seal: Seal }[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith(SEAL_SUFFIX)).sort();
  const seals: { file: string; seal: Seal }[] = [];
  for (const name of names) {
    const seal = await readSeal(join(dir, name));
    if (seal) seals.push({ file: name.slice(0, -SEAL_SUFFIX.length), seal });
  }
  return seals;
}

/** A seal file's seal, or undefined when the file is missing, not JSON, or not a seal. */
export async function readSeal(path: string): Promise<Seal | undefined> {
  const parsed = Seal.safeParse(await readJson(path));
  return parsed.success ? parsed.data : undefined;
}

/** A JSON file's value, or undefined when it is missing or not JSON. */
export async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

export interface SealRequest {
  /** The folder of the reports (`<outputDir>/drill-reports`). */
  dir: string;
  baseName: string;
  chain: string;
  workflowId: string;
  runId: string;
  now?: () => Date;
}

/**
 * Seals the renderings of `baseName` already written in `dir` as the next report of its chain. Call it after every
 * rendering is written. Under the folder's lock file, so that two drills of one name finishing at once take turns
 * and never both link to the same head. Idempotent per run: a retry finds its run's seal and returns it (resealing
 * in place when the files changed and nothing links to it yet), so it never links to itself or takes a second
 * sequence number.
 */
export async function sealReport(key: EvidenceKey, request: SealRequest): Promise<Seal> {
  const { dir, baseName, chain } = request;
  return withLockFile(
    join(dir, LOCK_NAME),
    LOCK_WAIT_MS,
    async () => {
      const files = await hashRenderings(dir, baseName);
      if (files.json === undefined) throw new EvidenceChainError(`${baseName}.json is not in ${dir}: nothing to seal`);
      const links = (await readSeals(dir)).filter((s) => s.seal.chain === chain);
      const linkedTo = new Set(links.map((s) => s.seal.previousSha256));

      let sequence: number;
      let previousSha256: string | null;
      const mine = links.find((s) => s.seal.runId === request.runId && s.file === baseName);
      if (mine) {
        if (canonicalJson(mine.seal.files) === canonicalJson(files)) return mine.seal;
        if (linkedTo.has(sealSha256(mine.seal))) {
          throw new EvidenceChainError(
            `${baseName} changed after its seal, and a later report of ${chain} already links to it`,
          );
        }
        ({ sequence, previousSha256 } = mine.seal);
      } else {
        const head = links.reduce<Seal | undefined>(
          (best, { seal }) => (best === undefined || seal.sequence > best.sequence ? seal : best),
          undefined,
        );
        sequence = head ? head.sequence + 1 : 1;
        previousSha256 = head ? sealSha256(head) : null;
      }

      const unsigned = {
        format: SEAL_FORMAT,
        algorithm: 'Ed25519',
        keyId: key.keyId,
        chain,
        sequence,
        report: baseName,
        workflowId: request.workflowId,
        runId: request.runId,
        files,
        previousSha256,
        sealedAt: (request.now ?? (() => new Date()))().toISOString(),
      } as const;
      const seal: Seal = {
        ...unsigned,
        signature: sign(null, signedBytes(unsigned), key.privateKey).toString('base64'),
      };
      await writeFileAtomic(join(dir, `${baseName}${SEAL_SUFFIX}`), JSON.stringify(seal, null, 2) + '\n');
      await publishPublicKey(dir, key);
      return seal;
    },
    (lock) => new EvidenceChainError(`${lock} is held by another report's seal`),
  );
}

/**
 * Writes the public key next to the reports for convenience (an auditor should check against a copy obtained out of
 * band). A different key already there (the key was changed) is kept, and this one gets its own file.
 */
async function publishPublicKey(dir: string, key: EvidenceKey): Promise<void> {
  const main = join(dir, PUBLIC_KEY_FILE);
  const existing = await readFile(main, 'utf8').catch(() => undefined);
  if (existing === key.publicKeyPem) return;
  const path = existing === undefined ? main : join(dir, PUBLIC_KEY_FILE.replace(/\.pem$/, `-${key.keyId}.pem`));
  await writeFileAtomic(path, key.publicKeyPem);
}
