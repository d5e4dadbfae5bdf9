import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { writeFileAtomic } from './atomic-file';
import { EvidenceKeyError, fingerprintOf, keyIdOf } from './evidence-key-id';

/**
 * The published history of a deployment's evidence keys: every public key that ever sealed a report, the current one
 * last. It sits beside the private key (`<key>.history.json`), holds public keys only, and is what an auditor is given
 * (`runbooks evidence verify --public-key <history>`), so that reports sealed before a rotation still verify.
 */

export const KEY_HISTORY_FORMAT = 'runbooks-evidence-keys/1';

const HistoryEntry = z.strictObject({
  keyId: z.string().regex(/^[0-9a-f]{16}$/),
  /** `SHA256:` and the hex sha256 of the public key's DER (SPKI); keyId is its first 16 digits. */
  fingerprint: z.string().regex(/^SHA256:[0-9a-f]{64}$/),
  publicKey: z.string().min(1),
  /** When it became the signing key; null: before the history was kept. */
  since: z.string().nullable(),
  /** When a rotation replaced it; null: the current key. */
  retiredAt: z.string().nullable(),
});
export type KeyHistoryEntry = z.infer<typeof HistoryEntry>;

export const KeyHistory = z.strictObject({ format: z.literal(KEY_HISTORY_FORMAT), keys: z.array(HistoryEntry) });
export type KeyHistory = z.infer<typeof KeyHistory>;

/** `<dir>/evidence-signing-key.pem` → `<dir>/evidence-signing-key.history.json`. */
export function keyHistoryPath(keyFile: string): string {
  return `${keyFile.replace(/\.pem$/, '')}.history.json`;
}

export function historyEntryOf(key: KeyObject, since: string | null, retiredAt: string | null = null): KeyHistoryEntry {
  return {
    keyId: keyIdOf(key),
    fingerprint: fingerprintOf(key),
    publicKey: key.export({ type: 'spki', format: 'pem' }).toString(),
    since,
    retiredAt,
  };
}

/** A key history from JSON text; undefined when the text is not one (e.g. PEM). Each key must match its ID. */
export function parseKeyHistory(text: string, path: string): KeyHistory | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = KeyHistory.safeParse(json);
  if (!parsed.success) throw new EvidenceKeyError(path, `not a key history (${KEY_HISTORY_FORMAT})`);
  for (const entry of parsed.data.keys) {
    const key = publicKeyOf(entry, path);
    if (keyIdOf(key) !== entry.keyId || fingerprintOf(key) !== entry.fingerprint) {
      throw new EvidenceKeyError(path, `the key listed as ${entry.keyId} has another fingerprint`);
    }
  }
  return parsed.data;
}

/** When a key may seal: from `since` (null: no bound) until `retiredAt` (null: still current), as the history says. */
export interface KeyWindow {
  since: string | null;
  retiredAt: string | null;
}

/** The window of each key read from a history, kept with the key object so that every reader of keys carries it. */
const windows = new WeakMap<KeyObject, KeyWindow>();

/** The validity window of a key read from a key history; undefined for a key from a PEM file (no dates). */
export const keyWindowOf = (key: KeyObject): KeyWindow | undefined => windows.get(key);

/** The public key of a history entry, with its window (`keyWindowOf`). */
export function publicKeyOf(entry: KeyHistoryEntry, path: string): KeyObject {
  try {
    const key = createPublicKey({ key: entry.publicKey, format: 'pem' });
    if (key.asymmetricKeyType === 'ed25519') {
      windows.set(key, { since: entry.since, retiredAt: entry.retiredAt });
      return key;
    }
  } catch {
    // reported below
  }
  throw new EvidenceKeyError(path, `the key listed as ${entry.keyId} is not an Ed25519 public key`);
}

/** The history at `keyFile`'s side; an empty one when there is none yet. */
export async function readKeyHistory(keyFile: string): Promise<KeyHistory> {
  const path = keyHistoryPath(keyFile);
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw new EvidenceKeyError(path, `cannot be read (${err.code ?? err.message})`);
  });
  if (text === undefined) return { format: KEY_HISTORY_FORMAT, keys: [] };
  const history = parseKeyHistory(text, path);
  if (!history) throw new EvidenceKeyError(path, 'not valid JSON');
  return history;
}

/** Writes the history (public keys only: readable by all, so that it can be published as it is). */
export async function writeKeyHistory(keyFile: string, history: KeyHistory): Promise<void> {
  await writeFileAtomic(keyHistoryPath(keyFile), `${JSON.stringify(history, null, 2)}\n`, { mode: 0o644 });
}

/**
 * `history` itself when it lists `key`; otherwise with `key` added as current, and the key listed as current until
 * now retired (it was replaced by hand, without `runbooks evidence key rotate`).
 */
export function withCurrentKey(history: KeyHistory, key: KeyObject, since: string | null): KeyHistory {
  const keyId = keyIdOf(key);
  if (history.keys.some((k) => k.keyId === keyId)) return history;
  const retiredAt = since ?? new Date().toISOString();
  return {
    ...history,
    keys: [...history.keys.map((k) => (k.retiredAt === null ? { ...k, retiredAt } : k)), historyEntryOf(key, since)],
  };
}
