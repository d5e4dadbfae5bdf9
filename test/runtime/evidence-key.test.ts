// The evidence signing key is made once per deployment: replicas that start together on one volume share one key.
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEvidenceKeyFile } from '../../runtime/config';
import { generateKeyPairSync } from 'node:crypto';
import {
  EvidenceKeyError,
  fingerprintOf,
  loadOrCreateEvidenceKey,
  parseEvidenceKey,
  rotateEvidenceKey,
} from '../../runtime/evidence-key';
import { keyHistoryPath, parseKeyHistory, readKeyHistory } from '../../runtime/evidence-key-history';

// The built module (npm run build): each replica is its own process, as on a shared volume.
const BUILT = join(__dirname, '..', '..', 'dist', 'runtime', 'evidence-key.js');

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'evidence-key-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

/** Starts `count` processes that each load-or-create the key at `keyFile` at once; their key IDs. */
function raceProcesses(module: string, keyFile: string, count: number): Promise<string[]> {
  const script = `require(${JSON.stringify(module)}).loadOrCreateEvidenceKey(process.argv[1])
    .then((k) => process.stdout.write(k.keyId), (e) => { console.error(e); process.exit(1); });`;
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<string>((resolve, reject) => {
          execFile(process.execPath, ['-e', script, keyFile], (err, stdout, stderr) =>
            err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
          );
        }),
    ),
  );
}

test('a missing key is created in a new folder (0700), as a 0600 file, and read back the same', async () => {
  const keyFile = join(root, 'keys', 'evidence', 'signing-key.pem');
  const key = await loadOrCreateEvidenceKey(keyFile);
  expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
  expect((await stat(join(root, 'keys', 'evidence'))).mode & 0o777).toBe(0o700);
  expect((await loadOrCreateEvidenceKey(keyFile)).keyId).toBe(key.keyId);
  expect(parseEvidenceKey(await readFile(keyFile, 'utf8'), keyFile).keyId).toBe(key.keyId);
});

test('an existing key is never replaced', async () => {
  const keyFile = join(root, 'signing-key.pem');
  const first = await loadOrCreateEvidenceKey(keyFile);
  const pem = await readFile(keyFile, 'utf8');
  await Promise.all(Array.from({ length: 5 }, () => loadOrCreateEvidenceKey(keyFile)));
  expect(await readFile(keyFile, 'utf8')).toBe(pem);
  expect((await loadOrCreateEvidenceKey(keyFile)).keyId).toBe(first.keyId);
});

test('concurrent calls in one process end with one key and no temporary file', async () => {
  const keyFile = join(root, 'shared', 'signing-key.pem');
  const keys = await Promise.all(Array.from({ length: 16 }, () => loadOrCreateEvidenceKey(keyFile)));
  expect(new Set(keys.map((k) => k.keyId)).size).toBe(1);
  expect(await readdir(join(root, 'shared'))).toEqual(['signing-key.history.json', 'signing-key.pem']);
});

test('replicas starting at the same moment on one volume all end with the same key', async () => {
  for (let round = 0; round < 5; round++) {
    const keyFile = join(root, `volume-${round}`, 'evidence', 'signing-key.pem');
    const ids = await raceProcesses(BUILT, keyFile, 6);
    const onDisk = parseEvidenceKey(await readFile(keyFile, 'utf8'), keyFile).keyId;
    expect(ids).toEqual(Array.from({ length: 6 }, () => onDisk));
    expect(await readdir(join(root, `volume-${round}`, 'evidence'))).toEqual([
      'signing-key.history.json',
      'signing-key.pem',
    ]);
    // The history names the one key, as current: the losers' keys were never used.
    const history = await readKeyHistory(keyFile);
    expect(history.keys.map((k) => [k.keyId, k.retiredAt])).toEqual([[onDisk, null]]);
  }
});

test('RUNBOOKS_EVIDENCE_KEY_FILE may name a key that does not exist yet', () => {
  const keyFile = join(root, 'not-yet', 'signing-key.pem');
  expect(loadEvidenceKeyFile({ RUNBOOKS_EVIDENCE_KEY_FILE: keyFile })).toBe(keyFile);
});

test('a rotation retires the key in the history, keeps its public half, and replaces the private key (0600)', async () => {
  const keyFile = join(root, 'keys', 'signing-key.pem');
  const first = await loadOrCreateEvidenceKey(keyFile);
  const { previous, current, history } = await rotateEvidenceKey(keyFile, new Date('2026-11-25T12:00:00Z'));
  expect(previous?.keyId).toBe(first.keyId);
  expect(current.keyId).not.toBe(first.keyId);
  expect((await loadOrCreateEvidenceKey(keyFile)).keyId).toBe(current.keyId);
  expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
  expect(history.keys.map((k) => [k.keyId, k.retiredAt])).toEqual([
    [first.keyId, '2026-11-25T12:00:00.000Z'],
    [current.keyId, null],
  ]);
  expect(history.keys[1]?.since).toBe('2026-11-25T12:00:00.000Z');
  expect(history.keys[0]?.fingerprint).toBe(fingerprintOf(first.publicKey));
  expect(await readKeyHistory(keyFile)).toEqual(history);
  // Public keys only: the file can be handed out as it is.
  const text = await readFile(keyHistoryPath(keyFile), 'utf8');
  expect(text).not.toContain('PRIVATE KEY');
  expect((await stat(keyHistoryPath(keyFile))).mode & 0o777).toBe(0o644);
  // A second rotation keeps both older keys.
  const again = await rotateEvidenceKey(keyFile);
  expect(again.history.keys.map((k) => k.keyId)).toEqual([first.keyId, current.keyId, again.current.keyId]);
  expect(again.history.keys.filter((k) => k.retiredAt === null).map((k) => k.keyId)).toEqual([again.current.keyId]);
});

test('a key put in place by hand over a signed history is not listed: no key it replaced vouches for it', async () => {
  const keyFile = join(root, 'signing-key.pem');
  const first = await loadOrCreateEvidenceKey(keyFile);
  const before = await readFile(keyHistoryPath(keyFile), 'utf8');
  const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  await writeFile(keyFile, pem);
  await chmod(keyFile, 0o600);
  await loadOrCreateEvidenceKey(keyFile);
  expect(await readFile(keyHistoryPath(keyFile), 'utf8')).toBe(before);
  const history = await readKeyHistory(keyFile);
  expect(history.keys.map((k) => [k.keyId, k.retiredAt])).toEqual([[first.keyId, null]]);
  // Nor can it be rotated away from: it would sign the next key's link, and nothing links it to the history.
  await expect(rotateEvidenceKey(keyFile)).rejects.toThrow(`whose current key is ${first.keyId}`);
});

test('a history whose key does not match its listed ID or fingerprint is refused', async () => {
  const keyFile = join(root, 'signing-key.pem');
  const key = await loadOrCreateEvidenceKey(keyFile);
  const other = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const stored = JSON.parse(await readFile(keyHistoryPath(keyFile), 'utf8')) as { keys: { publicKey: string }[] };
  const text = JSON.stringify({ ...stored, keys: stored.keys.map((k) => ({ ...k, publicKey: other })) });
  expect(() => parseKeyHistory(text, 'h.json')).toThrow(EvidenceKeyError);
  expect(() => parseKeyHistory(text, 'h.json')).toThrow(`the key listed as ${key.keyId} has another fingerprint`);
  expect(parseKeyHistory(key.publicKeyPem, 'pub.pem')).toBeUndefined();
});
