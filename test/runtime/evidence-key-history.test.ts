// The key history is signed (runbooks-evidence-keys/2): each key's entry by the key it replaced, the whole by the
// current key. A history made by rotations verifies; one byte changed in any entry's date, key or signature is refused
// naming the entry; a current key swapped for an attacker's fails the link to the key before it; an unsigned history
// of an earlier release is refused to auditors and signed by the key at hand.
import { generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  EvidenceKeyError,
  loadOrCreateEvidenceKey,
  readEvidenceKey,
  rotateEvidenceKey,
  type EvidenceKey,
} from '../../runtime/evidence-key';
import {
  historyBytes,
  historyEntryOf,
  KEY_HISTORY_FORMAT,
  keyHistoryPath,
  linkBytes,
  parseKeyHistory,
  readKeyHistory,
  UNSIGNED_KEY_HISTORY_FORMAT,
  type SignedKeyHistory,
  type SignedKeyHistoryEntry,
} from '../../runtime/evidence-key-history';
import { canonicalJson, sealReport } from '../../runtime/evidence-seal';
import { verifyEvidence } from '../../runtime/evidence-verify';
import { readPublicKeys } from '../../operator/public-keys';
import { runCliInProcess } from '../helpers/cli-in-process';

let root: string;
let keyFile: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'evidence-key-history-'));
  keyFile = join(root, 'data', 'evidence-signing-key.pem');
  await mkdir(join(root, 'data'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

/** Three keys: January, March, then current from June. */
async function threeKeys(): Promise<EvidenceKey[]> {
  const keys: EvidenceKey[] = [];
  for (const at of ['2026-01-01', '2026-03-01', '2026-06-01']) {
    keys.push((await rotateEvidenceKey(keyFile, new Date(`${at}T00:00:00.000Z`))).current);
  }
  return keys;
}

const historyText = () => readFile(keyHistoryPath(keyFile), 'utf8');
const parse = (text: string) => parseKeyHistory(text, 'h.json');
const asSigned = (text: string) => JSON.parse(text) as SignedKeyHistory;
/** As the history is written. */
const written = (history: SignedKeyHistory) => `${JSON.stringify(history, null, 2)}\n`;

/** `value` with its character at `at` (negative: from the end) replaced by another of the same kind. */
function oneByte(value: string, at: number): string {
  const i = at < 0 ? value.length + at : at;
  const c = value.charAt(i);
  const hex = 'abcdef';
  const other = /[0-9]/.test(c)
    ? String((Number(c) + 1) % 10)
    : hex.includes(c)
      ? hex.charAt((hex.indexOf(c) + 1) % hex.length)
      : c === 'A'
        ? 'B'
        : 'A';
  return value.slice(0, i) + other + value.slice(i + 1);
}

/** How many bytes of two texts of one length differ. */
function bytesChanged(a: string, b: string): number {
  expect(b.length).toBe(a.length);
  return [...a].filter((c, i) => c !== b.charAt(i)).length;
}

test('a history made by rotations verifies: the first key signs itself, each later one is signed by the one before', async () => {
  const keys = await threeKeys();
  const text = await historyText();
  const history = parse(text);
  expect(history?.format).toBe(KEY_HISTORY_FORMAT);
  const signed = asSigned(text);
  expect(signed.keys.map((k) => [k.keyId, k.link.signedBy, k.link.signerKeyId])).toEqual([
    [keys[0]?.keyId, 'self', keys[0]?.keyId],
    [keys[1]?.keyId, 'previous', keys[0]?.keyId],
    [keys[2]?.keyId, 'previous', keys[1]?.keyId],
  ]);
  expect(signed.signature?.keyId).toBe(keys[2]?.keyId);
  expect((await readPublicKeys(keyHistoryPath(keyFile))).map((k) => k.line.split(' ')[0])).toEqual(
    keys.map((k) => k.keyId),
  );
});

test('an auditor’s own tool checks the links from the file alone: canonical JSON and Ed25519', async () => {
  const keys = await threeKeys();
  const history = asSigned(await historyText());
  // Starting from the first key, obtained out of band: each entry's link is signed by the key before it.
  let trusted = (keys[0] as EvidenceKey).publicKey;
  history.keys.forEach((entry, i) => {
    const { retiredAt: _retiredAt, link, ...fields } = entry;
    const { signature, ...linked } = link;
    const bytes = Buffer.from(canonicalJson({ ...fields, link: linked }), 'utf8');
    expect(bytes.equals(linkBytes(entry))).toBe(true);
    expect(link.previousFingerprint).toBe(history.keys[i - 1]?.fingerprint ?? null);
    expect(link.previousRetiredAt).toBe(history.keys[i - 1]?.retiredAt ?? null);
    expect(verify(null, bytes, trusted, Buffer.from(signature, 'base64'))).toBe(true);
    trusted = (keys[i] as EvidenceKey).publicKey;
  });
  const { signature, ...rest } = history;
  expect(
    verify(null, Buffer.from(canonicalJson(rest)), trusted, Buffer.from(signature?.signature ?? '', 'base64')),
  ).toBe(true);
});

describe('one byte changed in an entry is refused, naming the entry', () => {
  type Edit = (entry: SignedKeyHistoryEntry) => void;
  const edits: [string, Edit, (i: number) => boolean][] = [
    ['since', (e) => (e.since = oneByte(e.since ?? '', 3)), () => true],
    ['retiredAt', (e) => (e.retiredAt = oneByte(e.retiredAt ?? '', 3)), (i) => i < 2],
    ['keyId', (e) => (e.keyId = oneByte(e.keyId, 5)), () => true],
    ['fingerprint', (e) => (e.fingerprint = oneByte(e.fingerprint, 20)), () => true],
    ['publicKey', (e) => (e.publicKey = oneByte(e.publicKey, 50)), () => true],
    ['the link signature', (e) => (e.link.signature = oneByte(e.link.signature, 10)), () => true],
    // The last character before the padding: bits that base64 decoders drop. Only the one spelling counts.
    ['the link signature’s last character', (e) => (e.link.signature = oneByte(e.link.signature, -3)), () => true],
    [
      'the link’s previous fingerprint',
      (e) => (e.link.previousFingerprint = oneByte(e.link.previousFingerprint ?? '', 30)),
      (i) => i > 0,
    ],
    ['the link’s signer', (e) => (e.link.signerKeyId = oneByte(e.link.signerKeyId, 2)), () => true],
  ];
  for (const [what, edit, applies] of edits) {
    test(`${what}`, async () => {
      const keys = await threeKeys();
      const text = await historyText();
      expect(parse(text)).toBeDefined();
      for (let i = 0; i < keys.length; i++) {
        if (!applies(i)) continue;
        const history = asSigned(text);
        const entry = history.keys[i];
        if (!entry) throw new Error(`no entry ${i}`);
        edit(entry);
        const edited = written(history);
        expect(bytesChanged(text, edited)).toBe(1);
        expect(() => parse(edited)).toThrow(EvidenceKeyError);
        expect(() => parse(edited)).toThrow(new RegExp(`^h\\.json: entry ${i + 1} \\(key [0-9a-f]+\\): `));
        if (what !== 'keyId') expect(() => parse(edited)).toThrow(`(key ${keys[i]?.keyId ?? ''})`);
      }
    });
  }

  test('the history’s own signature', async () => {
    const keys = await threeKeys();
    const text = await historyText();
    const history = asSigned(text);
    if (!history.signature) throw new Error('unsigned');
    history.signature.signature = oneByte(history.signature.signature, 40);
    expect(bytesChanged(text, written(history))).toBe(1);
    expect(() => parse(written(history))).toThrow(
      `h.json: the history's signature by its current key, entry 3 (key ${keys[2]?.keyId ?? ''}), does not hold`,
    );
  });
});

describe('a current key swapped for an attacker’s, re-signed by the attacker, fails the link to the key before it', () => {
  for (const signedBy of ['previous', 'self', 'current-at-upgrade'] as const) {
    test(`its link marked ${signedBy}`, async () => {
      const keys = await threeKeys();
      const history = asSigned(await historyText());
      const attacker = generateKeyPairSync('ed25519');
      const previous = history.keys[1];
      if (!previous) throw new Error('no entry 2');
      const entry = historyEntryOf(attacker.publicKey, '2026-06-01T00:00:00.000Z');
      const unsigned: SignedKeyHistoryEntry = {
        ...entry,
        link: {
          previousFingerprint: previous.fingerprint,
          previousRetiredAt: previous.retiredAt,
          signedBy,
          // It claims the key it replaced, which it cannot sign as.
          signerKeyId: signedBy === 'previous' ? previous.keyId : entry.keyId,
          signature: '',
        },
      };
      unsigned.link.signature = sign(null, linkBytes(unsigned), attacker.privateKey).toString('base64');
      const forged: SignedKeyHistory = { ...history, keys: [...history.keys.slice(0, 2), unsigned], signature: null };
      forged.signature = {
        keyId: entry.keyId,
        signature: sign(null, historyBytes(forged), attacker.privateKey).toString('base64'),
      };
      const why = {
        previous: `the signature of its link (its key and since) by entry 2 (key ${keys[1]?.keyId ?? ''}), the key it replaced, does not hold`,
        self: 'its link is signed by itself, not by the key it replaced',
        'current-at-upgrade': 'its link is marked as made at an upgrade, after a link made by a rotation',
      }[signedBy];
      expect(() => parse(written(forged))).toThrow(`h.json: entry 3 (key ${entry.keyId}): ${why}`);
    });
  }
});

test('a seal outside its key’s window still fails against a signed history', async () => {
  const keys = await threeKeys();
  const dir = join(root, 'drill-reports');
  await mkdir(dir);
  await writeFile(join(dir, 'r1.json'), JSON.stringify({ name: 'a' }));
  const first = keys[0] as EvidenceKey;
  await sealReport(first, {
    dir,
    baseName: 'r1',
    chain: 'a',
    workflowId: 'w',
    runId: 'r',
    now: () => new Date('2026-04-01T00:00:00.000Z'),
  });
  const trusted = (await readPublicKeys(keyHistoryPath(keyFile))).map((k) => k.key);
  expect((await verifyEvidence(dir, trusted)).first).toEqual({
    kind: 'keyWindow',
    report: 'r1',
    detail:
      `sealed at 2026-04-01T00:00:00.000Z with key ${first.keyId}, outside its window in the key history ` +
      `(since 2026-01-01T00:00:00.000Z, retired 2026-03-01T00:00:00.000Z)`,
  });
});

describe('an unsigned history of an earlier release', () => {
  /** A version-1 history as earlier releases wrote it: `keys` listed, the last current. */
  async function writeUnsigned(keys: KeyObject[]): Promise<void> {
    const dates = ['2026-01-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z'];
    const history = {
      format: UNSIGNED_KEY_HISTORY_FORMAT,
      keys: keys.map((k, i) => historyEntryOf(k, i === 0 ? null : (dates[i - 1] ?? null), dates[i] ?? null)),
    };
    const last = history.keys.at(-1);
    if (last) last.retiredAt = null;
    await writeFile(keyHistoryPath(keyFile), `${JSON.stringify(history, null, 2)}\n`);
  }

  async function keyInPlace(): Promise<EvidenceKey> {
    const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    await writeFile(keyFile, pem);
    await chmod(keyFile, 0o600);
    return readEvidenceKey(keyFile);
  }

  test('is refused to an auditor, saying it is unsigned and how it gets signed', async () => {
    const key = await keyInPlace();
    await writeUnsigned([generateKeyPairSync('ed25519').publicKey, key.publicKey]);
    await expect(readPublicKeys(keyHistoryPath(keyFile))).rejects.toThrow(
      `an unsigned key history (${UNSIGNED_KEY_HISTORY_FORMAT}, written by an earlier release)`,
    );
    // The operator's own reading takes it, to sign it.
    expect((await readKeyHistory(keyFile)).format).toBe(UNSIGNED_KEY_HISTORY_FORMAT);
    const shown = await runCliInProcess(['evidence', 'key', 'show', '--key-file', keyFile]);
    expect(shown.stdout).toContain(`unsigned (${UNSIGNED_KEY_HISTORY_FORMAT}, from an earlier release)`);
  });

  test('is signed by the worker’s key at start, every past link marked as made at the upgrade', async () => {
    const old = generateKeyPairSync('ed25519').publicKey;
    const key = await keyInPlace();
    await writeUnsigned([old, key.publicKey]);
    const before = JSON.parse(await historyText()) as { keys: { since: string | null; retiredAt: string | null }[] };
    await loadOrCreateEvidenceKey(keyFile);
    const history = asSigned(await historyText());
    expect(history.format).toBe(KEY_HISTORY_FORMAT);
    expect(history.keys.map((k) => [k.since, k.retiredAt])).toEqual(before.keys.map((k) => [k.since, k.retiredAt]));
    expect(history.keys.map((k) => [k.link.signedBy, k.link.signerKeyId])).toEqual([
      ['current-at-upgrade', key.keyId],
      ['current-at-upgrade', key.keyId],
    ]);
    expect(await readPublicKeys(keyHistoryPath(keyFile))).toHaveLength(2);
    const shown = await runCliInProcess(['evidence', 'key', 'show', '--key-file', keyFile]);
    expect(shown.stdout).toContain(`(signed by ${key.keyId} when the history was first signed)`);
  });

  test('is signed by the old key at a rotation, which then signs the new key’s link', async () => {
    const key = await keyInPlace();
    await writeUnsigned([generateKeyPairSync('ed25519').publicKey, key.publicKey]);
    const { current } = await rotateEvidenceKey(keyFile, new Date('2026-09-01T00:00:00.000Z'));
    const history = asSigned(await historyText());
    expect(history.keys.map((k) => [k.link.signedBy, k.link.signerKeyId])).toEqual([
      ['current-at-upgrade', key.keyId],
      ['current-at-upgrade', key.keyId],
      ['previous', key.keyId],
    ]);
    expect(history.signature?.keyId).toBe(current.keyId);
    expect(parse(await historyText())?.keys).toHaveLength(3);
  });
});

test('a rotation without the key in place is refused when a signed history lists keys', async () => {
  await threeKeys();
  await rm(keyFile);
  await expect(rotateEvidenceKey(keyFile)).rejects.toThrow('there is no key at');
});

test('show says a key put in place by hand is not listed, and how to mend it', async () => {
  const keys = await threeKeys();
  const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  await writeFile(keyFile, pem);
  await chmod(keyFile, 0o600);
  await loadOrCreateEvidenceKey(keyFile);
  const shown = await runCliInProcess(['evidence', 'key', 'show', '--key-file', keyFile]);
  expect(shown.stdout).toContain(`signed (${KEY_HISTORY_FORMAT}) by the current key ${keys[2]?.keyId ?? ''}`);
  expect(shown.stdout).toContain(`put ${keys[2]?.keyId ?? ''} back and run runbooks evidence key rotate`);
});
