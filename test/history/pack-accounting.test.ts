// Packs account for every file: a rendering without its seal, a member named to climb out or hide, a symlink in the
// reports folder and a run hidden by a leading dot are each refused, naming the file.
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { evidenceCommand, EvidenceCheckFailedError } from '../../cli/evidence-command';
import { PackCheckFailedError, PackedWithProblemsError, PackSourceRefusedError } from '../../cli/evidence-pack-command';
import { MANIFEST, MANIFEST_SUM, type PackManifest } from '../../history/pack';
import { readTarGz, writeTarGz, type TarEntry } from '../../history/tar';
import { sha256 } from '../../runtime/evidence-seal';
import { evidenceScratchEachTest, writeDrill } from './fixtures';

const f = evidenceScratchEachTest('pack-accounting-');
const { output, printed } = f;
const reports = () => join(output(), 'drill-reports');
const pack = (out: string) => f.pack(out, '--public-key', f.keyFile);
const failure = (p: Promise<void>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

async function twoDrills(): Promise<string> {
  await writeDrill(output(), f.key, { runId: 'run-1', finishedAt: '2026-02-10T03:00:00.000Z' });
  await writeDrill(output(), f.key, { runId: 'run-2', finishedAt: '2026-03-10T03:00:00.000Z' });
  const out = join(f.root, 'q1.tar.gz');
  await pack(out);
  return out;
}

/** The pack with `change` applied and its manifest and sum rewritten to match: what an attacker with write access does. */
async function rewritten(out: string, change: (entries: TarEntry[]) => TarEntry[]): Promise<string> {
  const entries = change(readTarGz(await readFile(out)));
  const old = JSON.parse(String(entries.find((e) => e.path === MANIFEST)?.data)) as PackManifest;
  const files = entries
    .filter((e) => e.path !== MANIFEST && e.path !== MANIFEST_SUM)
    .map((e) => ({ path: e.path, bytes: e.data.length, sha256: sha256(e.data) }));
  const manifest = Buffer.from(JSON.stringify({ ...old, files }, null, 2) + '\n');
  const all = [
    { path: MANIFEST, data: manifest },
    { path: MANIFEST_SUM, data: Buffer.from(`${sha256(manifest)}  ${MANIFEST}\n`) },
    ...entries.filter((e) => e.path !== MANIFEST && e.path !== MANIFEST_SUM),
  ];
  const path = join(f.root, 'changed.tar.gz');
  await writeFile(path, writeTarGz(all, new Date()));
  return path;
}

async function refused(path: string): Promise<PackCheckFailedError> {
  const err = await failure(evidenceCommand(['verify', path, '--public-key', f.keyFile]));
  expect(err).toBeInstanceOf(PackCheckFailedError);
  return err as PackCheckFailedError;
}

test('a rendering with no seal added to a pack, manifest rewritten, is refused, named', async () => {
  const out = await twoDrills();
  const forged = { path: 'drill-reports/forged--run-9.html', data: Buffer.from('<p>verdict: PASS</p>\n') };
  const err = await refused(await rewritten(out, (entries) => [...entries, forged]));
  expect(err.problem).toMatchObject({ kind: 'seal', file: 'drill-reports/forged--run-9' });
  expect(err.problem.detail).toContain('forged--run-9.html has no forged--run-9.seal.json');
});

test.each([
  ['../escape.txt', 'climbs out of the pack'],
  ['drill-reports/../../escape.txt', 'climbs out of the pack'],
  ['/etc/cron.d/x', 'is an absolute path'],
  ['drill-reports/.hidden--run-9.json', 'is hidden'],
  ['keys/\u202Egnp.pem', 'U+202E'],
])('a member named %j is refused, even listed in a rewritten manifest', async (path, why) => {
  const out = await twoDrills();
  const err = await refused(await rewritten(out, (entries) => [...entries, { path, data: Buffer.from('x') }]));
  expect(err.problem).toMatchObject({ kind: 'badName', file: path });
  expect(err.problem.detail).toContain(why);
});

test('evidence pack refuses a symlink in the reports folder, naming it, and writes no pack', async () => {
  await writeDrill(output(), f.key, { runId: 'run-1', finishedAt: '2026-02-10T03:00:00.000Z' });
  const secret = join(f.root, 'secret.txt');
  await writeFile(secret, 'not evidence');
  const [html] = (await readdir(reports())).filter((n) => n.endsWith('.html'));
  await rm(join(reports(), html ?? ''));
  await symlink(secret, join(reports(), html ?? ''));
  const out = join(f.root, 'q1.tar.gz');
  const err = await failure(pack(out));
  expect(err).toBeInstanceOf(PackSourceRefusedError);
  expect((err as Error).message).toBe(
    `nothing packed: ${join(reports(), html ?? '')} is a symbolic link, not a regular file: refused`,
  );
  expect(await readdir(f.root)).not.toContain('q1.tar.gz');
});

test('the drill’s parts/ folder does not stop a pack, and is not packed', async () => {
  await mkdir(join(reports(), 'parts'), { recursive: true });
  await writeFile(join(reports(), 'parts', 'p.jsonl'), '{}\n');
  const out = await twoDrills();
  expect(readTarGz(await readFile(out)).some((e) => e.path.includes('parts'))).toBe(false);
  await evidenceCommand(['verify', output(), '--public-key', f.keyFile]);
});

test('a sealed run hidden by a leading dot fails evidence pack and evidence verify, named', async () => {
  await writeDrill(output(), f.key, { runId: 'run-1', finishedAt: '2026-02-10T03:00:00.000Z' });
  await writeDrill(output(), f.key, { workflowId: '.hidden', runId: 'run-2', finishedAt: '2026-03-10T03:00:00.000Z' });
  expect(await failure(pack(join(f.root, 'q1.tar.gz')))).toBeInstanceOf(PackedWithProblemsError);
  expect(printed()).toContain('badName .hidden--run-2.json: ".hidden--run-2.json" is hidden (starts with a dot)');
  const err = await failure(evidenceCommand(['verify', output(), '--public-key', f.keyFile]));
  expect(err).toBeInstanceOf(EvidenceCheckFailedError);
  expect((err as Error).message).toContain('.hidden--run-2');
});
