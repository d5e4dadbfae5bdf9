// The key history's dates are enforced: a seal made by a key outside its [since, retiredAt) window fails, naming the
// key and the dates; a one-byte edit of a date in the (signed) history makes it refused.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readEvidenceKey, rotateEvidenceKey, type EvidenceKey } from '../../runtime/evidence-key';
import { keyHistoryPath } from '../../runtime/evidence-key-history';
import { sealReport } from '../../runtime/evidence-seal';
import { verifyEvidence } from '../../runtime/evidence-verify';
import { readPublicKeys } from '../../operator/public-keys';

let root: string;
let dir: string;
let keyFile: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'evidence-key-window-'));
  dir = join(root, 'drill-reports');
  keyFile = join(root, 'data', 'evidence-signing-key.pem');
  await mkdir(dir);
  await mkdir(join(root, 'data'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

async function seal(key: EvidenceKey, base: string, at: string): Promise<void> {
  await writeFile(join(dir, `${base}.json`), JSON.stringify({ name: 'a', base }));
  await sealReport(key, { dir, baseName: base, chain: 'a', workflowId: base, runId: base, now: () => new Date(at) });
}

const verifyAgainstHistory = async () =>
  verifyEvidence(
    dir,
    (await readPublicKeys(keyHistoryPath(keyFile))).map((k) => k.key),
  );

/** Key 1 from January to March, key 2 from March on. */
async function twoKeys(): Promise<{ first: EvidenceKey; second: EvidenceKey }> {
  const first = (await rotateEvidenceKey(keyFile, new Date('2026-01-01T00:00:00.000Z'))).current;
  const second = (await rotateEvidenceKey(keyFile, new Date('2026-03-01T00:00:00.000Z'))).current;
  expect((await readEvidenceKey(keyFile)).keyId).toBe(second.keyId);
  return { first, second };
}

test('seals inside their keys’ windows verify', async () => {
  const { first, second } = await twoKeys();
  await seal(first, 'r1', '2026-02-01T00:00:00.000Z');
  await seal(second, 'r2', '2026-03-01T00:00:00.000Z');
  expect((await verifyAgainstHistory()).first).toBeUndefined();
});

test('a seal by a retired key after its retirement fails, naming the key and the dates', async () => {
  const { first } = await twoKeys();
  await seal(first, 'r1', '2026-03-05T00:00:00.000Z');
  expect((await verifyAgainstHistory()).first).toEqual({
    kind: 'keyWindow',
    report: 'r1',
    detail:
      `sealed at 2026-03-05T00:00:00.000Z with key ${first.keyId}, outside its window in the key history ` +
      `(since 2026-01-01T00:00:00.000Z, retired 2026-03-01T00:00:00.000Z)`,
  });
});

test('a seal by a key before its since fails', async () => {
  const { second } = await twoKeys();
  await seal(second, 'r1', '2026-02-28T23:59:59.000Z');
  expect((await verifyAgainstHistory()).first).toMatchObject({ kind: 'keyWindow', report: 'r1' });
  expect((await verifyAgainstHistory()).first?.detail).toContain(`with key ${second.keyId}`);
});

test('a one-byte edit of a date in the key history is not ignored: the history is refused, naming the entry', async () => {
  const { first } = await twoKeys();
  await seal(first, 'r1', '2026-02-01T00:00:00.000Z');
  expect((await verifyAgainstHistory()).first).toBeUndefined();
  const path = keyHistoryPath(keyFile);
  // retiredAt 2026-03-01 → 2026-01-01: one byte, which would move r1 out of its key's window.
  const text = await readFile(path, 'utf8');
  const edited = text.replace('"retiredAt": "2026-03-01', '"retiredAt": "2026-01-01');
  expect(edited).not.toBe(text);
  await writeFile(path, edited);
  await expect(verifyAgainstHistory()).rejects.toThrow(
    `entry 1 (key ${first.keyId}): retiredAt 2026-01-01T00:00:00.000Z is not the date the link of entry 2`,
  );
});

test('a key given as plain PEM has no dates: no window is checked', async () => {
  const { first } = await twoKeys();
  await seal(first, 'r1', '2026-06-01T00:00:00.000Z');
  expect((await verifyEvidence(dir, [first.publicKey])).first).toBeUndefined();
});
