import type { KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { EvidenceKeyError, fingerprintOf, keyIdOf, parsePublicKeys } from '../runtime/evidence-key';
import { parseKeyHistory, publicKeyOf, type KeyHistoryEntry } from '../runtime/evidence-key-history';
import { NotFoundError, UsageError } from './errors';

// The public keys an operator trusts for the evidence: `runbooks evidence verify` and the console read them.

/** A --public-key file that cannot be read or holds no Ed25519 public key. */
export class PublicKeyFileError extends UsageError {}

export interface TrustedKey {
  key: KeyObject;
  /** Where it came from, and for a history its dates. */
  line: string;
}

/** The keys of a PEM file (one key or several) or of a key history, each with its fingerprint. */
export async function readPublicKeys(path: string): Promise<TrustedKey[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    const message = `--public-key ${path} cannot be read (${code})`;
    throw code === 'ENOENT' ? new NotFoundError(message) : new PublicKeyFileError(message);
  }
  try {
    const history = parseKeyHistory(text, path);
    if (history) {
      if (history.keys.length === 0) throw new PublicKeyFileError(`${path}: the key history lists no key`);
      return history.keys.map((entry) => ({
        key: publicKeyOf(entry, path),
        line: `${describeHistoryEntry(entry)} (${path})`,
      }));
    }
    return parsePublicKeys(text, path).map((key) => ({
      key,
      line: `${keyIdOf(key)} ${fingerprintOf(key)} (${path})`,
    }));
  } catch (err) {
    if (err instanceof EvidenceKeyError) throw new PublicKeyFileError(err.message);
    throw err;
  }
}

/** One line per key of a history, as `show` and `verify` print them. */
export function describeHistoryEntry(entry: KeyHistoryEntry): string {
  const since = entry.since ? `since ${entry.since}` : 'since (before the history)';
  const state = entry.retiredAt ? `retired ${entry.retiredAt}` : 'current';
  return `${entry.keyId} ${entry.fingerprint} ${since}, ${state}`;
}
