import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { access, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createFileOnce, writeFileAtomic } from './atomic-file';
import { EvidenceKeyError, keyIdOf } from './evidence-key-id';
import {
  KEY_HISTORY_FORMAT,
  keyHistoryPath,
  readKeyHistory,
  rotatedKeyHistory,
  signedKeyHistoryWith,
  writeKeyHistory,
  type SignedKeyHistory,
} from './evidence-key-history';
import { withLockFile } from './file-lock';
import { keyFileProblem } from './key-file-permissions';

export { EvidenceKeyError, fingerprintOf, keyIdOf } from './evidence-key-id';

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
 * The key at `path`, generated there the first time (folder 0700, file 0600) with `createFileOnce`: of replicas
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
    // A replica that loses the race reads the winner's key below.
    await createFileOnce(path, pem, { mode: 0o600 }).catch((err: unknown) => {
      throw new EvidenceKeyError(path, `cannot be created (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    });
  }
  const shared = keyFileProblem(path, options.allowShared ?? false);
  if (shared) throw new Error(`${options.variable ?? 'evidence signing key'}: ${shared}`);
  const key = await readEvidenceKey(path);
  await recordInHistory(path, key);
  return key;
}

/**
 * Lists `key` in the key history beside it when it is not there yet (a new key: it signs its own entry), and signs an
 * unsigned history written by an earlier release with it (`upgradedKeyHistory`), so that the history names every key
 * that ever sealed. A key put in place by hand over a signed history stays out of it: no key it replaced vouches for
 * it, and `runbooks evidence key show` says so. Under the rotation's lock, so that a worker starting during a rotation
 * cannot write back a history without the new key. Best effort: a read-only key folder (a mounted secret) keeps no
 * history.
 */
async function recordInHistory(path: string, key: EvidenceKey): Promise<void> {
  await withLockFile(
    path,
    HISTORY_LOCK_WAIT_MS,
    async () => {
      const history = await readKeyHistory(path);
      const updated = signedKeyHistoryWith(history, key, new Date().toISOString(), keyHistoryPath(path));
      if (updated !== history) await writeKeyHistory(path, updated);
    },
    (lock) => new EvidenceKeyError(path, `${lock} is held`),
  ).catch(() => undefined);
}

export interface LoadEvidenceKeyOptions {
  /** RUNBOOKS_ALLOW_SHARED_KEY_FILES: accept a key that the group or others can read. */
  allowShared?: boolean;
  /** The variable that put the key where it is, named in errors. */
  variable?: string;
}

const HISTORY_LOCK_WAIT_MS = 5_000;

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

const ROTATION_LOCK_WAIT_MS = 30_000;

export interface Rotation {
  previous?: EvidenceKey;
  current: EvidenceKey;
  history: SignedKeyHistory;
}

/**
 * Replaces the signing key at `keyFile` by a new one, under a lock beside it. The history is written first, with the
 * old key retired and the new one current, the new key's entry signed by the old key (its link) and the history by
 * the new key: a crash between the two steps leaves a history that lists a key never used, never a key that signed
 * and is not listed. An unsigned history is signed by the old key first (`upgradedKeyHistory`). The old private key
 * is gone; its public half stays in the history. Workers sign with the key they loaded at start: they take the new
 * one when restarted. Without a key in place, a signed history that lists keys cannot take a new one (nothing would
 * vouch for it), and this throws.
 */
export async function rotateEvidenceKey(keyFile: string, at = new Date()): Promise<Rotation> {
  return withLockFile(
    keyFile,
    ROTATION_LOCK_WAIT_MS,
    async () => {
      const previous = (await exists(keyFile)) ? await readEvidenceKey(keyFile) : undefined;
      const when = at.toISOString();
      const path = keyHistoryPath(keyFile);
      const found = await readKeyHistory(keyFile);
      if (!previous && found.format === KEY_HISTORY_FORMAT && found.keys.length > 0) {
        throw new EvidenceKeyError(
          path,
          `lists keys, but there is no key at ${keyFile} to sign the new key's entry: put the current key ` +
            `(${found.keys.at(-1)?.keyId ?? ''}) back and rotate, or move the history aside (keep it: it verifies ` +
            `the reports its keys sealed) to start a new one`,
        );
      }
      const { privateKey } = generateKeyPairSync('ed25519');
      const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const current = parseEvidenceKey(pem, keyFile);
      const history = previous
        ? rotatedKeyHistory(signedKeyHistoryWith(found, previous, null, path), previous, current, when, path)
        : signedKeyHistoryWith(found, current, when, path);
      await mkdir(dirname(keyFile), { recursive: true, mode: 0o700 });
      await writeKeyHistory(keyFile, history);
      await writeFileAtomic(keyFile, pem, { mode: 0o600 });
      return { previous, current, history };
    },
    (lock) => new EvidenceKeyError(keyFile, `${lock} is held: another rotation is under way`),
  );
}
