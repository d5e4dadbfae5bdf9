import { createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { writeFileAtomic } from './atomic-file';
import { EvidenceKeyError, fingerprintOf, keyIdOf } from './evidence-key-id';
import { canonicalJson } from './evidence-seal';

/**
 * The published history of a deployment's evidence keys: every public key that ever sealed a report, the current one
 * last. It sits beside the private key (`<key>.history.json`), holds public keys only, and is what an auditor is given
 * (`runbooks evidence verify --public-key <history>`), so that reports sealed before a rotation still verify.
 *
 * It is signed (`runbooks-evidence-keys/2`): each entry carries a link, an Ed25519 signature by the key it replaced over
 * the entry and the previous entry's fingerprint and retirement, so that an auditor holding any earlier key (obtained
 * out of band) can follow the rotations forward; the first key signs its own entry. The whole history carries a
 * signature by its current key. Editing a date, a key or a signature breaks one of them, and reading names the entry.
 * Histories written by earlier releases (`runbooks-evidence-keys/1`) are unsigned: the worker or a rotation signs them
 * with the key at hand (`upgradedKeyHistory`), and until then an auditor's reading refuses them (docs/security.md).
 */

export const KEY_HISTORY_FORMAT = 'runbooks-evidence-keys/2';
/** Written by earlier releases: no signatures. Read only to be upgraded. */
export const UNSIGNED_KEY_HISTORY_FORMAT = 'runbooks-evidence-keys/1';

const entryFields = {
  keyId: z.string().regex(/^[0-9a-f]{16}$/),
  /** `SHA256:` and the hex sha256 of the public key's DER (SPKI); keyId is its first 16 digits. */
  fingerprint: z.string().regex(/^SHA256:[0-9a-f]{64}$/),
  publicKey: z.string().min(1),
  /** When it became the signing key; null: before the history was kept. */
  since: z.string().nullable(),
  /** When a rotation replaced it; null: the current key. */
  retiredAt: z.string().nullable(),
};

/**
 * Who signed an entry's link: `self`, the entry's own key (the first entry only); `previous`, the key it replaced (a
 * rotation); `current-at-upgrade`, the key that was current when an unsigned history was signed: it vouches for the
 * keys before it, which could no longer sign (a prefix of the history, all signed by the last key of that prefix).
 */
export const LinkSigner = z.enum(['self', 'previous', 'current-at-upgrade']);
export type LinkSigner = z.infer<typeof LinkSigner>;

const KeyLink = z.strictObject({
  /** The fingerprint of the entry before; null for the first. */
  previousFingerprint: z.string().nullable(),
  /** The `retiredAt` of the entry before, as signed; null for the first. */
  previousRetiredAt: z.string().nullable(),
  signedBy: LinkSigner,
  /** The key ID of the signer. */
  signerKeyId: z.string(),
  /** Base64 Ed25519 signature over `linkBytes`: the entry but its `retiredAt`, and its link but this signature. */
  signature: z.string(),
});
export type KeyLink = z.infer<typeof KeyLink>;

const UnsignedEntry = z.strictObject(entryFields);
const SignedEntry = z.strictObject({ ...entryFields, link: KeyLink });
export type UnsignedKeyHistoryEntry = z.infer<typeof UnsignedEntry>;
export type SignedKeyHistoryEntry = z.infer<typeof SignedEntry>;
export type KeyHistoryEntry = UnsignedKeyHistoryEntry | SignedKeyHistoryEntry;

const HistorySignature = z.strictObject({
  /** The current key: the last entry's. */
  keyId: z.string(),
  /** Base64 Ed25519 signature over the canonical JSON of the history without its `signature` member. */
  signature: z.string(),
});

export const SignedKeyHistory = z.strictObject({
  format: z.literal(KEY_HISTORY_FORMAT),
  keys: z.array(SignedEntry),
  /** null only while the history lists no key (in memory: never written). */
  signature: HistorySignature.nullable(),
});
export type SignedKeyHistory = z.infer<typeof SignedKeyHistory>;

export const UnsignedKeyHistory = z.strictObject({
  format: z.literal(UNSIGNED_KEY_HISTORY_FORMAT),
  keys: z.array(UnsignedEntry),
});
export type UnsignedKeyHistory = z.infer<typeof UnsignedKeyHistory>;

export const KeyHistory = z.discriminatedUnion('format', [SignedKeyHistory, UnsignedKeyHistory]);
export type KeyHistory = z.infer<typeof KeyHistory>;

/** The private and public halves of a key that signs history entries (an `EvidenceKey` is one). */
export interface HistorySigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/** `<dir>/evidence-signing-key.pem` → `<dir>/evidence-signing-key.history.json`. */
export function keyHistoryPath(keyFile: string): string {
  return `${keyFile.replace(/\.pem$/, '')}.history.json`;
}

export function historyEntryOf(
  key: KeyObject,
  since: string | null,
  retiredAt: string | null = null,
): UnsignedKeyHistoryEntry {
  return {
    keyId: keyIdOf(key),
    fingerprint: fingerprintOf(key),
    publicKey: key.export({ type: 'spki', format: 'pem' }).toString(),
    since,
    retiredAt,
  };
}

export interface ParseKeyHistoryOptions {
  /**
   * `refuse` (the default, an auditor's reading): an unsigned history is an error. `accept`: it is returned as it is,
   * to be upgraded by the holder of the key (`signedKeyHistoryWith`).
   */
  unsigned?: 'refuse' | 'accept';
}

/**
 * A key history from JSON text; undefined when the text is not one (e.g. PEM). Each key must match its ID, and every
 * signature of a signed history must hold (`checkKeyHistory`).
 */
export function parseKeyHistory(
  text: string,
  path: string,
  options: ParseKeyHistoryOptions = {},
): KeyHistory | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = KeyHistory.safeParse(json);
  if (!parsed.success) {
    const [index, ...field] = parsed.error.issues[0]?.path.slice(1) ?? [];
    const keys = (json as { keys?: unknown } | null)?.keys;
    const entry = typeof index === 'number' && Array.isArray(keys) ? (keys[index] as { keyId?: unknown }) : undefined;
    if (entry && typeof index === 'number') {
      const keyId = typeof entry.keyId === 'string' ? entry.keyId : '?';
      const what = field.length > 0 ? field.join('.') : 'its fields';
      throw new EvidenceKeyError(path, `entry ${index + 1} (key ${keyId}): ${what} is not as the format says`);
    }
    throw new EvidenceKeyError(path, `not a key history (${KEY_HISTORY_FORMAT}, or ${UNSIGNED_KEY_HISTORY_FORMAT})`);
  }
  const history = parsed.data;
  if (history.format === UNSIGNED_KEY_HISTORY_FORMAT) {
    history.keys.forEach((entry, i) => publicKeyOf(entry, path, i));
    if ((options.unsigned ?? 'refuse') === 'refuse') throw new EvidenceKeyError(path, UNSIGNED_REFUSED);
    return history;
  }
  checkKeyHistory(history, path);
  return history;
}

const UNSIGNED_REFUSED =
  `an unsigned key history (${UNSIGNED_KEY_HISTORY_FORMAT}, written by an earlier release): no key vouches for its ` +
  `keys or dates, so it is refused; it is signed where the key is, when a worker next starts with the key or at ` +
  `runbooks evidence key rotate`;

/** `entry 2 (key 0123456789abcdef)`: how errors name an entry (1 is the oldest). */
const entryName = (entry: KeyHistoryEntry, i: number) => `entry ${i + 1} (key ${entry.keyId})`;

/**
 * Checks every signature of a signed history, oldest entry first, and throws an EvidenceKeyError naming the first
 * entry at fault and what failed: its key against its ID and fingerprint, its link against the entry before and the
 * key that signed it, that only the last key is current, and the history's signature by its current key.
 */
export function checkKeyHistory(history: SignedKeyHistory, path: string): void {
  const fail = (message: string): never => {
    throw new EvidenceKeyError(path, message);
  };
  const { keys } = history;
  const publicKeys = keys.map((entry, i) => publicKeyOf(entry, path, i));
  // The entries linked when an unsigned history was signed: a prefix, signed by its last entry's key.
  const firstOther = keys.findIndex((entry) => entry.link.signedBy !== 'current-at-upgrade');
  const upgraded = (firstOther === -1 ? keys.length : firstOther) - 1;
  keys.forEach((entry, i) => {
    const name = entryName(entry, i);
    const previous = i > 0 ? keys[i - 1] : undefined;
    const { link } = entry;
    if (link.previousFingerprint !== (previous?.fingerprint ?? null)) {
      fail(
        `${name}: its link names the key before it as ${link.previousFingerprint ?? 'none'}, but the entry before ` +
          `is ${previous ? `${entryName(previous, i - 1)} ${previous.fingerprint}` : 'none'}`,
      );
    }
    if (previous && link.previousRetiredAt !== previous.retiredAt) {
      fail(
        `${entryName(previous, i - 1)}: retiredAt ${previous.retiredAt ?? 'null'} is not the date the link of ` +
          `${name} signs (${link.previousRetiredAt ?? 'null'})`,
      );
    }
    if (!previous && link.previousRetiredAt !== null) fail(`${name}: the first entry's link names a key before it`);
    const at = linkSigner(entry, i, upgraded);
    if (typeof at === 'string') return fail(`${name}: ${at}`);
    const signerEntry = keys[at];
    const signerKey = publicKeys[at];
    if (!signerEntry || !signerKey || link.signerKeyId !== signerEntry.keyId) {
      return fail(
        `${name}: its link is signed by key ${link.signerKeyId}, not by ${signerEntry?.keyId ?? 'a listed key'}`,
      );
    }
    if (!signatureHolds(linkBytes(entry), link.signature, signerKey)) {
      const by = at === i ? 'its own key' : `${entryName(signerEntry, at)}, ${LINK_ROLE[link.signedBy]},`;
      fail(`${name}: the signature of its link (its key and since) by ${by} does not hold`);
    }
    const last = i === keys.length - 1;
    if (last !== (entry.retiredAt === null)) {
      fail(
        last ? `${name}: the last key is retired at ${entry.retiredAt ?? ''}` : `${name}: not retired, yet not last`,
      );
    }
  });
  const current = keys.at(-1);
  const currentKey = publicKeys.at(-1);
  if (!current || !currentKey) {
    if (history.signature !== null) fail('a signed history that lists no key');
    return;
  }
  const { signature } = history;
  if (signature === null) return fail(`not signed by its current key, ${entryName(current, keys.length - 1)}`);
  if (signature.keyId !== current.keyId) {
    fail(`signed by key ${signature.keyId}, not by its current key, ${entryName(current, keys.length - 1)}`);
  }
  if (!signatureHolds(historyBytes(history), signature.signature, currentKey)) {
    fail(
      `the history's signature by its current key, ${entryName(current, keys.length - 1)}, does not hold: ` +
        `an entry, a date or the signature was changed`,
    );
  }
}

const LINK_ROLE: Record<LinkSigner, string> = {
  self: 'itself',
  previous: 'the key it replaced',
  'current-at-upgrade': 'the key current when the history was first signed',
};

/** The index of the entry whose key must have signed entry `i`'s link; a string says why none may. */
function linkSigner(entry: SignedKeyHistoryEntry, i: number, upgraded: number): number | string {
  switch (entry.link.signedBy) {
    case 'self':
      return i === 0
        ? 0
        : 'its link is signed by itself, not by the key it replaced: a key put in place without a rotation';
    case 'previous':
      return i > 0 ? i - 1 : 'the first entry has no key before it to sign its link';
    case 'current-at-upgrade':
      // A prefix: every entry up to the upgrade's key was linked at the upgrade, none after it.
      return i <= upgraded ? upgraded : 'its link is marked as made at an upgrade, after a link made by a rotation';
  }
}

/** The bytes a link's signature covers: the entry without its `retiredAt` (set later), and its link without the signature. */
export function linkBytes(entry: SignedKeyHistoryEntry): Buffer {
  const { retiredAt: _retiredAt, link, ...fields } = entry;
  const { signature: _signature, ...linked } = link;
  return Buffer.from(canonicalJson({ ...fields, link: linked }), 'utf8');
}

/** The bytes the history's signature covers: the history without its `signature` member. */
export function historyBytes(history: SignedKeyHistory): Buffer {
  const { signature: _signature, ...signed } = history;
  return Buffer.from(canonicalJson(signed), 'utf8');
}

/** Whether a base64 signature holds; only the one base64 spelling of the bytes counts (no stray or changed padding). */
function signatureHolds(data: Buffer, signature: string, key: KeyObject): boolean {
  const bytes = Buffer.from(signature, 'base64');
  if (bytes.toString('base64') !== signature) return false;
  return verify(null, data, key, bytes);
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

/** The public key of a history entry, with its window (`keyWindowOf`); it must match the entry's ID and fingerprint. */
export function publicKeyOf(entry: KeyHistoryEntry, path: string, index?: number): KeyObject {
  const name = index === undefined ? `the key listed as ${entry.keyId}` : entryName(entry, index);
  let key: KeyObject | undefined;
  try {
    key = createPublicKey({ key: entry.publicKey, format: 'pem' });
  } catch {
    // reported below
  }
  if (key?.asymmetricKeyType !== 'ed25519') {
    throw new EvidenceKeyError(path, `${name}: its publicKey is not an Ed25519 public key`);
  }
  if (keyIdOf(key) !== entry.keyId || fingerprintOf(key) !== entry.fingerprint) {
    throw new EvidenceKeyError(path, `${name}: the key listed as ${entry.keyId} has another fingerprint`);
  }
  windows.set(key, { since: entry.since, retiredAt: entry.retiredAt });
  return key;
}

/** The history at `keyFile`'s side, checked; an empty one when there is none yet. An unsigned one is returned as is. */
export async function readKeyHistory(keyFile: string): Promise<KeyHistory> {
  const path = keyHistoryPath(keyFile);
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw new EvidenceKeyError(path, `cannot be read (${err.code ?? err.message})`);
  });
  if (text === undefined) return { format: KEY_HISTORY_FORMAT, keys: [], signature: null };
  const history = parseKeyHistory(text, path, { unsigned: 'accept' });
  if (!history) throw new EvidenceKeyError(path, 'not valid JSON');
  return history;
}

/** Writes the history (public keys only: readable by all, so that it can be published as it is). */
export async function writeKeyHistory(keyFile: string, history: SignedKeyHistory): Promise<void> {
  await writeFileAtomic(keyHistoryPath(keyFile), `${JSON.stringify(history, null, 2)}\n`, { mode: 0o644 });
}

/**
 * An unsigned history with `key` added as current when it does not list it; the key listed as current until now is
 * retired (it was replaced by hand, without `runbooks evidence key rotate`).
 */
export function withCurrentKey(history: UnsignedKeyHistory, key: KeyObject, since: string | null): UnsignedKeyHistory {
  const keyId = keyIdOf(key);
  if (history.keys.some((k) => k.keyId === keyId)) return history;
  const retiredAt = since ?? new Date().toISOString();
  return {
    ...history,
    keys: [...history.keys.map((k) => (k.retiredAt === null ? { ...k, retiredAt } : k)), historyEntryOf(key, since)],
  };
}

function linked(
  entry: UnsignedKeyHistoryEntry,
  previous: KeyHistoryEntry | undefined,
  signedBy: LinkSigner,
  signer: HistorySigningKey,
): SignedKeyHistoryEntry {
  const unsigned = {
    ...entry,
    link: {
      previousFingerprint: previous?.fingerprint ?? null,
      previousRetiredAt: previous?.retiredAt ?? null,
      signedBy,
      signerKeyId: keyIdOf(signer.publicKey),
      signature: '',
    },
  };
  const signature = sign(null, linkBytes(unsigned), signer.privateKey).toString('base64');
  return { ...unsigned, link: { ...unsigned.link, signature } };
}

/** `keys` signed as a history by its current key, `current` (the last entry's). */
function signedBy(keys: SignedKeyHistoryEntry[], current: HistorySigningKey): SignedKeyHistory {
  const unsigned: SignedKeyHistory = { format: KEY_HISTORY_FORMAT, keys, signature: null };
  const signature = sign(null, historyBytes(unsigned), current.privateKey).toString('base64');
  return { ...unsigned, signature: { keyId: keyIdOf(current.publicKey), signature } };
}

const strip = ({ keyId, fingerprint, publicKey, since, retiredAt }: KeyHistoryEntry): UnsignedKeyHistoryEntry => ({
  keyId,
  fingerprint,
  publicKey,
  since,
  retiredAt,
});

/**
 * An unsigned history signed by `current`, which it must list last, as current: every link is made by `current` and
 * says so (`current-at-upgrade`), since the keys before it can no longer sign. An auditor learns from it what
 * `current` vouched for at the upgrade, no more.
 */
export function upgradedKeyHistory(
  history: UnsignedKeyHistory,
  current: HistorySigningKey,
  path: string,
): SignedKeyHistory {
  const last = history.keys.at(-1);
  const keyId = keyIdOf(current.publicKey);
  if (
    last?.keyId !== keyId ||
    last.retiredAt !== null ||
    history.keys.some((k) => k.retiredAt === null && k !== last)
  ) {
    throw new EvidenceKeyError(path, `cannot be signed with key ${keyId}: it is not the history's only current key`);
  }
  const keys: SignedKeyHistoryEntry[] = [];
  history.keys.forEach((entry, i) =>
    keys.push(linked(strip(entry), history.keys[i - 1], 'current-at-upgrade', current)),
  );
  return signedBy(keys, current);
}

/**
 * The signed history that lists `key` as its current key: `history` itself when it does; a new one when `history` is
 * empty (the key signs its own entry); an unsigned one with `key` added when not listed, upgraded. A signed history
 * whose current key is another cannot take `key`: only a rotation, signed by the key it replaces, can add one, so this
 * throws (a key put in place by hand stays out of the history).
 */
export function signedKeyHistoryWith(
  history: KeyHistory,
  key: HistorySigningKey,
  since: string | null,
  path: string,
): SignedKeyHistory {
  const keyId = keyIdOf(key.publicKey);
  if (history.keys.length === 0)
    return signedBy([linked(historyEntryOf(key.publicKey, since), undefined, 'self', key)], key);
  if (history.format === UNSIGNED_KEY_HISTORY_FORMAT) {
    return upgradedKeyHistory(withCurrentKey(history, key.publicKey, since), key, path);
  }
  const current = history.keys.at(-1);
  if (current?.keyId === keyId && current.retiredAt === null) return history;
  const listed = history.keys.some((k) => k.keyId === keyId);
  throw new EvidenceKeyError(
    path,
    `key ${keyId} is ${listed ? 'a retired key of this history' : 'not in this history'}, whose current key is ` +
      `${current?.keyId ?? 'none'}: only runbooks evidence key rotate, with the current key in place, adds a key ` +
      `(the key it replaces signs the new one's entry). Put key ${current?.keyId ?? ''} back and rotate, or move ` +
      `the history aside (keep it: it verifies the reports its keys sealed) to start a new one`,
  );
}

/**
 * `history` with its current key, `previous`, retired at `when` and `next` added as current from `when`: the link of
 * `next`'s entry is signed by `previous`, and the history by `next`.
 */
export function rotatedKeyHistory(
  history: SignedKeyHistory,
  previous: HistorySigningKey,
  next: HistorySigningKey,
  when: string,
  path: string,
): SignedKeyHistory {
  const last = history.keys.length - 1;
  const current = history.keys[last];
  if (current?.keyId !== keyIdOf(previous.publicKey) || current.retiredAt !== null) {
    throw new EvidenceKeyError(path, `key ${keyIdOf(previous.publicKey)} is not the current key of this history`);
  }
  const retired = { ...current, retiredAt: when };
  const entry = linked(historyEntryOf(next.publicKey, when), retired, 'previous', previous);
  return signedBy([...history.keys.slice(0, last), retired, entry], next);
}
