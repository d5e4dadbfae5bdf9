import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { access, chmod, link, mkdir, open, readFile, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { keyFileProblem } from './key-file-permissions';

/**
 * The Ed25519 key that seals drill evidence (runtime/evidence-seal.ts). The private key stays with the worker; its
 * public half is published next to the reports, and an auditor checks against a copy obtained out of band.
 */

/** The key a worker generates in its data dir when RUNBOOKS_EVIDENCE_KEY_FILE is unset. */
export const DEFAULT_EVIDENCE_KEY_FILE = 'evidence-signing-key.pem';

export interface EvidenceKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** SPKI PEM of the public key, as written next to the reports. */
  publicKeyPem: string;
  keyId: string;
}

/** A key file that is not what it must be; `path` names it. */
export class EvidenceKeyError extends Error {
  override name = 'EvidenceKeyError';
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}

/** First 16 hex digits of the sha256 of the public key's DER (SPKI): short, and the same wherever it is computed. */
export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16);
}

/** An Ed25519 private key from PKCS#8 PEM text. */
export function parseEvidenceKey(pem: string, path: string): EvidenceKey {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    throw new EvidenceKeyError(path, 'not a PEM private key (openssl genpkey -algorithm ed25519)');
  }
  if (privateKey.asymmetricKeyType !== 'ed25519') {
    throw new EvidenceKeyError(path, `an ${privateKey.asymmetricKeyType ?? 'unknown'} key; it must be Ed25519`);
  }
  const publicKey = createPublicKey(privateKey);
  return {
    privateKey,
    publicKey,
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    keyId: keyIdOf(publicKey),
  };
}

/** Ed25519 public keys from PEM text (SPKI, or a private key's public half); a file may hold several. */
export function parsePublicKeys(pem: string, path: string): KeyObject[] {
  const blocks = pem.match(/-----BEGIN [A-Z ]+-----[\s\S]+?-----END [A-Z ]+-----/g) ?? [];
  if (blocks.length === 0) throw new EvidenceKeyError(path, 'holds no PEM key');
  return blocks.map((block) => {
    let key: KeyObject;
    try {
      key = createPublicKey({ key: block, format: 'pem' });
    } catch {
      throw new EvidenceKeyError(path, 'not a PEM public key');
    }
    if (key.asymmetricKeyType !== 'ed25519') {
      throw new EvidenceKeyError(path, `an ${key.asymmetricKeyType ?? 'unknown'} key; it must be Ed25519`);
    }
    return key;
  });
}

/** Reads a configured key file; it must exist and hold an Ed25519 key. */
export async function readEvidenceKey(path: string): Promise<EvidenceKey> {
  const pem = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new EvidenceKeyError(path, `cannot be read (${err.code ?? err.message})`);
  });
  return parseEvidenceKey(pem, path);
}

/**
 * The key at `path`, generated there the first time (folder 0700, file 0600). The new key is written and synced
 * under a temporary name, then hard-linked to `path`: link() fails with EEXIST when the name exists, so of replicas
 * starting at once on a shared volume exactly one wins, the others read the winner's key, and no key is ever
 * overwritten. A crash leaves at most a stray temporary file, never a half-written key.
 */
export async function loadOrCreateEvidenceKey(
  path: string,
  options: LoadEvidenceKeyOptions = {},
): Promise<EvidenceKey> {
  const folder = dirname(path);
  await mkdir(folder, { recursive: true, mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
    throw new EvidenceKeyError(path, `its folder cannot be created (${err.code ?? err.message})`);
  });
  if (!(await exists(path))) {
    const { privateKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      const file = await open(tmp, 'wx', 0o600);
      try {
        await file.writeFile(pem, 'utf8');
        await file.sync();
      } finally {
        await file.close();
      }
      // The umask may have narrowed the mode; nothing may have widened it.
      await chmod(tmp, 0o600);
      await link(tmp, path).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
      });
      await syncFolder(folder);
    } catch (err) {
      if (err instanceof EvidenceKeyError) throw err;
      throw new EvidenceKeyError(path, `cannot be created (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    } finally {
      await rm(tmp, { force: true });
    }
  }
  const shared = keyFileProblem(path, options.allowShared ?? false);
  if (shared) throw new Error(`${options.variable ?? 'evidence signing key'}: ${shared}`);
  return readEvidenceKey(path);
}

export interface LoadEvidenceKeyOptions {
  /** RUNBOOKS_ALLOW_SHARED_KEY_FILES: accept a key that the group or others can read. */
  allowShared?: boolean;
  /** The variable that put the key where it is, named in errors. */
  variable?: string;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

async function syncFolder(folder: string): Promise<void> {
  const dir = await open(folder, 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
