// Verify accounts for every file of a reports folder: renderings against their seal, known key files, and nothing
// else; special files are never read; names that hide or mislead fail.
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { loadOrCreateEvidenceKey, type EvidenceKey } from '../../runtime/evidence-key';
import { fileNameProblem, packPathProblem, unsafeCharacter } from '../../runtime/evidence-names';
import { sealReport } from '../../runtime/evidence-seal';
import { verifyEvidence, type Verification } from '../../runtime/evidence-verify';

let root: string;
let dir: string;
let key: EvidenceKey;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'evidence-accounting-'));
  dir = join(root, 'drill-reports');
  key = await loadOrCreateEvidenceKey(join(root, 'data', 'evidence-signing-key.pem'));
  await mkdir(dir);
});
afterEach(() => rm(root, { recursive: true, force: true }));

async function report(baseName: string, runId: string, renderings: ('md' | 'html')[] = ['md', 'html']): Promise<void> {
  await writeFile(join(dir, `${baseName}.json`), JSON.stringify({ name: 'a', workflowId: baseName, runId }));
  for (const ext of renderings) await writeFile(join(dir, `${baseName}.${ext}`), `<p>PASS</p>\n`);
  await sealReport(key, { dir, baseName, chain: 'a', workflowId: baseName, runId });
}

const verifyDir = () => verifyEvidence(dir, [key.publicKey]);
const problems = (v: Verification) => [...v.chains.flatMap((c) => c.problems), ...v.folder];

test('a sealed folder with its public key and the key history beside it verifies', async () => {
  await report('drill--run-1', 'run-1');
  await writeFile(join(dir, 'evidence-signing-key.history.json'), '{}');
  const v = await verifyDir();
  expect(v.first).toBeUndefined();
  expect(v.folder).toEqual([]);
});

test('a rendering with no seal beside it fails, named (the attacker’s edited HTML)', async () => {
  await report('drill--run-1', 'run-1');
  await writeFile(join(dir, 'forged--run-9.html'), '<p>verdict: PASS</p>\n');
  const v = await verifyDir();
  expect(v.first).toMatchObject({ kind: 'unsealed', report: 'forged--run-9' });
  expect(v.first?.detail).toContain('forged--run-9.html has no forged--run-9.seal.json');
});

test('a Markdown rendering whose report has no seal fails too', async () => {
  await writeFile(join(dir, 'x--r.json'), JSON.stringify({ name: 'a' }));
  await writeFile(join(dir, 'x--r.md'), '# PASS\n');
  const found = problems(await verifyDir()).map((p) => p.detail);
  expect(found).toContain('x--r.json has no x--r.seal.json');
  expect(found.some((d) => d.startsWith('x--r.md has no x--r.seal.json'))).toBe(true);
});

test('a sealed rendering edited by one byte fails; one the seal does not cover fails', async () => {
  await report('drill--run-1', 'run-1', ['md']);
  await writeFile(join(dir, 'drill--run-1.html'), '<p>PASS</p>\n');
  expect((await verifyDir()).first?.detail).toBe('drill--run-1.html is not covered by its seal');
  await rm(join(dir, 'drill--run-1.html'));
  const md = await readFile(join(dir, 'drill--run-1.md'));
  md[3] = md[3] === 0x41 ? 0x42 : 0x41;
  await writeFile(join(dir, 'drill--run-1.md'), md);
  expect((await verifyDir()).first?.detail).toMatch(/^drill--run-1\.md does not match its seal/);
});

test('any other file fails verification, named', async () => {
  await report('drill--run-1', 'run-1');
  await writeFile(join(dir, 'notes.txt'), 'hello');
  const v = await verifyDir();
  expect(v.chains.every((c) => c.problems.length === 0)).toBe(true);
  expect(v.folder).toEqual([
    {
      kind: 'unaccounted',
      report: 'notes.txt',
      detail: 'notes.txt is not a report, a seal, a public key or the key history: no seal covers it',
    },
  ]);
  expect(v.first).toEqual(v.folder[0]);
});

test('the seal lock file of a report being sealed is not a problem', async () => {
  await report('drill--run-1', 'run-1');
  await writeFile(join(dir, '.evidence-chain.lock'), '{}');
  expect((await verifyDir()).first).toBeUndefined();
});

test('a symlink is never followed: in place of a rendering, or anywhere in the folder', async () => {
  await report('drill--run-1', 'run-1');
  const target = join(root, 'target.html');
  await writeFile(target, '<p>PASS</p>\n');
  await rm(join(dir, 'drill--run-1.html'));
  await symlink(target, join(dir, 'drill--run-1.html'));
  await symlink(target, join(dir, 'elsewhere.html'));
  const found = problems(await verifyDir());
  expect(found).toContainEqual({
    kind: 'special',
    report: 'drill--run-1.html',
    detail: 'drill--run-1.html is a symbolic link, not a regular file: not read',
  });
  expect(found).toContainEqual(expect.objectContaining({ kind: 'special', report: 'elsewhere.html' }));
});

test('the drill’s parts/ folder is known and not read; a parts symlink, or another folder, is refused', async () => {
  await report('drill--run-1', 'run-1');
  await mkdir(join(dir, 'parts'));
  await writeFile(join(dir, 'parts', 'anything.jsonl'), '{}\n');
  expect((await verifyDir()).first).toBeUndefined();
  await mkdir(join(dir, 'other'));
  expect((await verifyDir()).first).toMatchObject({ kind: 'special', report: 'other' });
  await rm(join(dir, 'other'), { recursive: true });
  await rm(join(dir, 'parts'), { recursive: true });
  await symlink(root, join(dir, 'parts'));
  expect((await verifyDir()).first).toMatchObject({ kind: 'special', report: 'parts' });
});

test('a named pipe is refused, not read (a read would block)', async () => {
  await report('drill--run-1', 'run-1');
  execFileSync('mkfifo', [join(dir, 'pipe.json')]);
  const pipe = problems(await verifyDir()).find((p) => p.report === 'pipe.json');
  expect(pipe).toMatchObject({ kind: 'special', detail: 'pipe.json is a named pipe, not a regular file: not read' });
});

test('a sealed run whose name starts with a dot fails its chain, named (hidden from listings)', async () => {
  await report('drill--run-1', 'run-1');
  await report('.hidden--run-2', 'run-2');
  const v = await verifyDir();
  expect(v.first).toMatchObject({ kind: 'badName', report: '.hidden--run-2.html' });
  expect(v.chains.find((c) => c.chain === 'a')?.problems.map((p) => p.report)).toEqual([
    '.hidden--run-2.html',
    '.hidden--run-2.json',
    '.hidden--run-2.md',
    '.hidden--run-2.seal.json',
  ]);
});

test('a name with a bidirectional override fails, naming the character', async () => {
  await report('drill--run-1', 'run-1');
  await writeFile(join(dir, 'drill--run-2\u202Elmth.json'), '{}');
  const bidi = problems(await verifyDir()).find((p) => p.kind === 'badName');
  expect(bidi?.detail).toContain('holds U+202E, a bidirectional formatting character');
});

test('name rules: hidden, climbing, absolute, control and bidirectional characters', () => {
  expect(fileNameProblem('drill--run-1.json')).toBeUndefined();
  expect(fileNameProblem('.x')).toContain('hidden');
  expect(fileNameProblem('..')).toContain('not a file name');
  expect(fileNameProblem('a\u0085b')).toContain('U+0085, a control character');
  for (const c of ['\u200E', '\u200F', '\u202A', '\u202E', '\u2066', '\u2069']) {
    expect(unsafeCharacter(`a${c}`)).toContain('bidirectional');
  }
  expect(packPathProblem('drill-reports/a--r.json')).toBeUndefined();
  expect(packPathProblem('../etc/passwd')).toContain('climbs out');
  expect(packPathProblem('drill-reports/../../x')).toContain('climbs out');
  expect(packPathProblem('/etc/passwd')).toContain('absolute');
  expect(packPathProblem('drill-reports/.hidden.json')).toContain('hidden');
  expect(packPathProblem('drill-reports//x')).toContain('not a file name');
});

test('a timestamp token counts only beside a seal or an attestation its report seals; a token for other data fails', async () => {
  await report('drill--run-1', 'run-1');
  const token = await readFile(join(__dirname, '..', 'fixtures', 'timestamp', 'data.txt.tsr'));
  // A token beside the report's JSON, or beside nothing: no seal covers such a file.
  await writeFile(join(dir, 'drill--run-1.json.tsr'), token);
  await writeFile(join(dir, 'gone--run-2.seal.json.tsr'), token);
  const strays = problems(await verifyDir()).map((p) => [p.kind, p.report]);
  expect(strays).toEqual([
    ['unaccounted', 'drill--run-1.json.tsr'],
    ['unaccounted', 'gone--run-2.seal.json.tsr'],
  ]);
  await rm(join(dir, 'drill--run-1.json.tsr'));
  await rm(join(dir, 'gone--run-2.seal.json.tsr'));
  // Beside the seal, but a token of another file: it fails, even with no authority certificate to check it against.
  await writeFile(join(dir, 'drill--run-1.seal.json.tsr'), token);
  const v = await verifyDir();
  expect(v.first).toMatchObject({ kind: 'timestamp', report: 'drill--run-1' });
  expect(v.first?.detail).toBe('drill--run-1.seal.json.tsr is a token for other data');
  expect(v.timestamps).toEqual([{ report: 'drill--run-1', status: 'invalid', missing: [] }]);
});
