// The sealing module on real files: chains, idempotent retries, concurrent seals, keys, and what verification finds.
import { generateKeyPairSync, verify } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, loadEvidenceKeyFile } from '../../runtime/config';
import {
  EvidenceKeyError,
  loadOrCreateEvidenceKey,
  parseEvidenceKey,
  parsePublicKeys,
  type EvidenceKey,
} from '../../runtime/evidence-key';
import {
  canonicalJson,
  EvidenceChainError,
  PUBLIC_KEY_FILE,
  renderingOf,
  sealReport,
  sealSha256,
  signedBytes,
  type Seal,
} from '../../runtime/evidence-seal';
import { verifyEvidence } from '../../runtime/evidence-verify';

let root: string;
let dir: string;
let key: EvidenceKey;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'evidence-seal-'));
  dir = join(root, 'drill-reports');
  key = await loadOrCreateEvidenceKey(join(root, 'data', 'evidence-signing-key.pem'));
  await mkdir(dir);
});
afterEach(() => rm(root, { recursive: true, force: true }));

/** Writes a report's renderings as the activity does, then seals them. */
async function report(baseName: string, chain: string, runId: string, extra = ''): Promise<Seal> {
  await writeFile(join(dir, `${baseName}.json`), JSON.stringify({ name: chain, workflowId: baseName, runId, extra }));
  await writeFile(join(dir, `${baseName}.md`), `# ${chain} ${extra}\n`);
  return sealReport(key, { dir, baseName, chain, workflowId: baseName, runId });
}

const verifyWith = (k: EvidenceKey = key) => verifyEvidence(dir, [k.publicKey]);

test('the first report starts its chain: sequence 1, no previous, a signature over the canonical seal', async () => {
  const seal = await report('drill-a-1', 'a', 'run-1');
  expect(seal).toMatchObject({ sequence: 1, previousSha256: null, chain: 'a', report: 'drill-a-1', keyId: key.keyId });
  expect(Object.keys(seal.files).sort()).toEqual(['json', 'md']);
  expect(verify(null, signedBytes(seal), key.publicKey, Buffer.from(seal.signature, 'base64'))).toBe(true);
  const stored = JSON.parse(await readFile(join(dir, 'drill-a-1.seal.json'), 'utf8')) as Seal;
  expect(stored).toEqual(seal);
  expect(await readFile(join(dir, PUBLIC_KEY_FILE), 'utf8')).toBe(key.publicKeyPem);
  expect((await verifyWith()).first).toBeUndefined();
});

test('the next report links to the previous seal; another drill in the folder has its own chain', async () => {
  const first = await report('drill-a-1', 'a', 'run-1');
  const other = await report('drill-b-1', 'b', 'run-2');
  const second = await report('drill-a-2', 'a', 'run-3');
  expect(second).toMatchObject({ sequence: 2, previousSha256: sealSha256(first) });
  expect(other).toMatchObject({ sequence: 1, previousSha256: null });
  const result = await verifyWith();
  expect(result.first).toBeUndefined();
  expect(result.chains.map((c) => [c.chain, c.reports])).toEqual([
    ['a', ['drill-a-1', 'drill-a-2']],
    ['b', ['drill-b-1']],
  ]);
});

test('a retry of the same run returns its seal: no second sequence number, no link to itself', async () => {
  const first = await report('drill-a-1', 'a', 'run-1');
  const retried = await report('drill-a-1', 'a', 'run-1');
  expect(retried).toEqual(first);
  const next = await report('drill-a-2', 'a', 'run-2');
  expect(next).toMatchObject({ sequence: 2, previousSha256: sealSha256(first) });
  expect((await verifyWith()).first).toBeUndefined();
});

test('a retry that rewrote its files reseals in place while it is the head, and fails once a later report links to it', async () => {
  const first = await report('drill-a-1', 'a', 'run-1');
  const resealed = await report('drill-a-1', 'a', 'run-1', 'rendered again');
  expect(resealed).toMatchObject({ sequence: 1, previousSha256: null });
  expect(resealed.files.json).not.toBe(first.files.json);
  await report('drill-a-2', 'a', 'run-2');
  await expect(report('drill-a-1', 'a', 'run-1', 'once more')).rejects.toBeInstanceOf(EvidenceChainError);
});

test('reports of one drill sealed at the same moment take turns: one chain, no fork', async () => {
  const seals = await Promise.all([1, 2, 3, 4].map((n) => report(`drill-a-${n}`, 'a', `run-${n}`)));
  expect(seals.map((s) => s.sequence).sort()).toEqual([1, 2, 3, 4]);
  const result = await verifyWith();
  expect(result.first).toBeUndefined();
  expect(result.chains[0]?.reports).toHaveLength(4);
});

test('a seal checked against another key fails as sealed with another key, not as edited, naming it', async () => {
  await report('drill-a-1', 'a', 'run-1');
  const other = parseEvidenceKey(
    generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    'other.pem',
  );
  const { first } = await verifyWith(other);
  expect(first).toMatchObject({ kind: 'otherKey', report: 'drill-a-1' });
  expect(first?.detail).toBe(`sealed with another key (id ${key.keyId}), not this one (${other.keyId})`);
});

test('a seal re-signed with the right key ID but a forged signature fails', async () => {
  await report('drill-a-1', 'a', 'run-1');
  const path = join(dir, 'drill-a-1.seal.json');
  const seal = JSON.parse(await readFile(path, 'utf8')) as Seal;
  await writeFile(path, JSON.stringify({ ...seal, sealedAt: '2020-01-01T00:00:00.000Z' }));
  expect((await verifyWith()).first).toMatchObject({ kind: 'edited', report: 'drill-a-1' });
});

test('verification names the first edited, removed or reordered report', async () => {
  for (const n of [1, 2, 3, 4]) await report(`drill-a-${n}`, 'a', `run-${n}`, `value ${n}`);
  const json = (n: number) => join(dir, `drill-a-${n}.json`);

  const original3 = await readFile(json(3), 'utf8');
  await writeFile(json(3), original3.replace('value 3', 'value 9'));
  expect((await verifyWith()).first).toMatchObject({ kind: 'edited', report: 'drill-a-3' });
  await writeFile(json(3), original3);

  // Only the JSON of two reports swapped: each holds content sealed for the other.
  const [one, two] = [await readFile(json(1)), await readFile(json(2))];
  await writeFile(json(1), two);
  await writeFile(json(2), one);
  expect((await verifyWith()).first).toMatchObject({ kind: 'reordered', report: 'drill-a-1' });
  await writeFile(json(1), one);
  await writeFile(json(2), two);
  expect((await verifyWith()).first).toBeUndefined();

  for (const ext of ['json', 'md', 'seal.json']) await rm(join(dir, `drill-a-2.${ext}`));
  expect((await verifyWith()).first).toMatchObject({ kind: 'removed', report: 'drill-a-3' });
});

test('a fork (two reports sealed with one sequence number, e.g. on two disks) is named as a reordering', async () => {
  await report('drill-a-1', 'a', 'run-1');
  const twinDir = join(root, 'twin');
  await cp(dir, twinDir, { recursive: true });
  await report('drill-a-2', 'a', 'run-2');
  // A second disk with the same history seals its own sequence 2.
  await writeFile(join(twinDir, 'drill-a-9.json'), JSON.stringify({ name: 'a', twin: true }));
  const twin = await sealReport(key, { dir: twinDir, baseName: 'drill-a-9', chain: 'a', workflowId: 'w', runId: 'r' });
  expect(twin.sequence).toBe(2);
  for (const name of ['drill-a-9.json', 'drill-a-9.seal.json']) await cp(join(twinDir, name), join(dir, name));
  const { first } = await verifyWith();
  expect(first).toMatchObject({ kind: 'reordered', report: 'drill-a-9' });
  expect(first?.detail).toContain('links to drill-a-1 (sequence 1), but follows drill-a-2');
});

test('a report without its seal is named as unsealed', async () => {
  await report('drill-a-1', 'a', 'run-1');
  await rename(join(dir, 'drill-a-1.seal.json'), join(root, 'moved.seal.json'));
  expect((await verifyWith()).first).toMatchObject({ kind: 'unsealed', report: 'drill-a-1' });
});

test('the generated key is written once, mode 0600, and read back the same', async () => {
  const path = join(root, 'data', 'evidence-signing-key.pem');
  expect((await stat(path)).mode & 0o777).toBe(0o600);
  expect((await loadOrCreateEvidenceKey(path)).keyId).toBe(key.keyId);
  expect(parsePublicKeys(key.publicKeyPem, 'pub.pem').map((k) => k.asymmetricKeyType)).toEqual(['ed25519']);
});

test('RUNBOOKS_EVIDENCE_KEY_FILE must name a readable Ed25519 key, or none yet', async () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
  const rsaPath = join(root, 'rsa.pem');
  await writeFile(rsaPath, rsa);
  const textPath = join(root, 'text.pem');
  await writeFile(textPath, 'not a key\n');
  const good = join(root, 'data', 'evidence-signing-key.pem');
  expect(loadEvidenceKeyFile({ RUNBOOKS_EVIDENCE_KEY_FILE: good })).toBe(good);
  expect(loadEvidenceKeyFile({})).toBeUndefined();
  for (const [path, message] of [
    [rsaPath, 'must be Ed25519'],
    [root, 'EISDIR'],
    [textPath, 'not a PEM private key'],
  ] as const) {
    let error: unknown;
    try {
      loadEvidenceKeyFile({ RUNBOOKS_EVIDENCE_KEY_FILE: path });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues[0]?.variable).toBe('RUNBOOKS_EVIDENCE_KEY_FILE');
    expect((error as ConfigError).message).toContain(message);
  }
  expect(() => parseEvidenceKey('not a key', 'x.pem')).toThrow(EvidenceKeyError);
  // The worker's whole configuration stops on it, with the other variables' problems.
  let whole: unknown;
  try {
    loadConfig({ RUNBOOKS_EVIDENCE_KEY_FILE: rsaPath, LOG_LEVEL: 'loud' });
  } catch (err) {
    whole = err;
  }
  expect((whole as ConfigError).issues.map((i) => i.variable).sort()).toEqual([
    'LOG_LEVEL',
    'RUNBOOKS_EVIDENCE_KEY_FILE',
  ]);
});

test('canonical JSON sorts keys at every depth and drops undefined', () => {
  expect(canonicalJson({ b: 1, a: { d: [2, { f: null, e: 'x' }], c: undefined } })).toBe(
    '{"a":{"d":[2,{"e":"x","f":null}]},"b":1}',
  );
});

test('a file is a rendering of the report its longest sealed extension leaves; another file is none', () => {
  expect(renderingOf('d--r.json')).toEqual({ base: 'd--r', extension: 'json' });
  expect(renderingOf('d--r.md')).toEqual({ base: 'd--r', extension: 'md' });
  expect(renderingOf('d--r.drill.dsse.json')).toEqual({ base: 'd--r', extension: 'drill.dsse.json' });
  expect(renderingOf('d--r.test-result.dsse.json')).toEqual({ base: 'd--r', extension: 'test-result.dsse.json' });
  // A report of a run whose ID ends in `.drill` is still that run's.
  expect(renderingOf('d--r.drill.json')).toEqual({ base: 'd--r.drill', extension: 'json' });
  expect(renderingOf('.json')).toBeUndefined();
  expect(renderingOf('.drill.dsse.json')).toEqual({ base: '.drill.dsse', extension: 'json' });
  expect(renderingOf('d--r.csv')).toBeUndefined();
  expect(renderingOf('d--r.seal.json')).toEqual({ base: 'd--r.seal', extension: 'json' });
  expect(renderingOf('evidence-public-key.pem')).toBeUndefined();
});
