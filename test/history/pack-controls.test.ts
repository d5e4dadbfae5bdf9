// `evidence pack --by-control` on real sealed reports: controls/ holds, per control of the catalogue, its JSON and
// page (its period, the packed drills that satisfy it by path and sha256, its gaps) and an overview; every file is
// listed in the manifest, and `evidence verify` refuses any change, any file added under controls/ and any link to a
// report the pack does not hold.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evidenceCommand } from '../../cli/evidence-command';
import { PackCheckFailedError } from '../../cli/evidence-pack-command';
import { CONTROLS } from '../../history/controls';
import { controlFileName } from '../../history/control-evaluation';
import { MANIFEST, MANIFEST_SUM, type PackManifest } from '../../history/pack';
import type { ControlFile } from '../../history/pack-controls';
import { readTarGz, writeTarGz, type TarEntry } from '../../history/tar';
import { loadOrCreateEvidenceKey, type EvidenceKey } from '../../runtime/evidence-key';
import { sha256 } from '../../runtime/evidence-seal';
import { failed, passed, writeDrill } from './fixtures';

let root: string;
let key: EvidenceKey;
let keyFile: string;
let log: jest.SpyInstance;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'pack-controls-'));
  key = await loadOrCreateEvidenceKey(join(root, 'data', 'evidence-signing-key.pem'));
  keyFile = join(root, 'public.pem');
  await writeFile(keyFile, key.publicKeyPem);
  log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
});
afterEach(async () => {
  log.mockRestore();
  await rm(root, { recursive: true, force: true });
});

const output = () => join(root, 'output');
const printed = () => log.mock.calls.map((c: unknown[]) => String(c[0])).join('\n');
const ISO = CONTROLS.find((c) => c.id === 'iso27001-2022-a.8.13');
const DORA = CONTROLS.find((c) => c.id === 'dora-art-11');
const EARLY = '2026-02-01T03:00:00.000Z';

/**
 * The pack's period ends 2026-07-01: vm-1's PASS of 2026-02-01 is within 365 days of it, not within 90; db-1 passed
 * 2026-06-01. A drill of 2025-12-01 is before the pack and does not count.
 */
async function drills(): Promise<{ early: string; recent: string }> {
  await writeDrill(output(), key, {
    runId: 'run-0',
    finishedAt: '2025-12-01T03:00:00.000Z',
    resources: [passed('db-1')],
  });
  const early = await writeDrill(output(), key, {
    runId: 'run-1',
    finishedAt: EARLY,
    resources: [passed('vm-1')],
  });
  const recent = await writeDrill(output(), key, {
    runId: 'run-2',
    finishedAt: '2026-06-01T03:00:00.000Z',
    resources: [passed('db-1')],
  });
  return { early, recent };
}

async function pack(...extra: string[]): Promise<string> {
  const out = join(root, 'h1.tar.gz');
  await evidenceCommand([
    'pack',
    '--from',
    '2026-01-01',
    '--to',
    '2026-06-30',
    '--dir',
    output(),
    '--out',
    out,
    '--public-key',
    keyFile,
    ...extra,
  ]);
  return out;
}

const verify = (path: string) => evidenceCommand(['verify', path, '--public-key', keyFile]);

async function refused(entries: TarEntry[]): Promise<PackCheckFailedError> {
  const path = join(root, 'changed.tar.gz');
  await writeFile(path, writeTarGz(entries, new Date()));
  const err = await verify(path).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PackCheckFailedError);
  return err as PackCheckFailedError;
}

/** `change` applied, the manifest's file list and sum rewritten to match: what an attacker with write access does. */
function rewritten(entries: TarEntry[], change: (entries: TarEntry[]) => TarEntry[]): TarEntry[] {
  const changed = change(entries);
  const old = JSON.parse(String(changed.find((e) => e.path === MANIFEST)?.data)) as PackManifest;
  const files = changed
    .filter((e) => e.path !== MANIFEST && e.path !== MANIFEST_SUM)
    .map((e) => ({ path: e.path, bytes: e.data.length, sha256: sha256(e.data) }));
  const manifest = Buffer.from(JSON.stringify({ ...old, files }, null, 2) + '\n');
  return [
    { path: MANIFEST, data: manifest },
    { path: MANIFEST_SUM, data: Buffer.from(`${sha256(manifest)}  ${MANIFEST}\n`) },
    ...changed.filter((e) => e.path !== MANIFEST && e.path !== MANIFEST_SUM),
  ];
}

const fileOf = (entries: TarEntry[], path: string) => entries.find((e) => e.path === path);
const controlJson = (entries: TarEntry[], id: string) =>
  JSON.parse(String(fileOf(entries, `controls/${id}.json`)?.data)) as ControlFile;

test('every control ID of the catalogue names a file safely', () => {
  for (const c of CONTROLS) expect(controlFileName(c)).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*$/);
  expect(() => controlFileName({ ...CONTROLS[0]!, id: '../x' })).toThrow('cannot name a file');
  expect(() => controlFileName({ ...CONTROLS[0]!, id: '.hidden' })).toThrow('cannot name a file');
  expect(() => controlFileName({ ...CONTROLS[0]!, id: 'index' })).toThrow('cannot name a file');
});

test('--by-control: per control its text, period, satisfying drills by path and sha256, and gaps; it verifies', async () => {
  const { early, recent } = await drills();
  const entries = readTarGz(await readFile(await pack('--by-control')));
  const manifest = JSON.parse(String(fileOf(entries, MANIFEST)?.data)) as PackManifest;
  expect(manifest.byControl).toEqual({ asOf: '2026-07-01T00:00:00.000Z', controls: CONTROLS.map((c) => c.id) });
  const controlPaths = entries.map((e) => e.path).filter((p) => p.startsWith('controls/'));
  expect(controlPaths.sort()).toEqual(
    ['controls/index.html', ...CONTROLS.flatMap((c) => [`controls/${c.id}.json`, `controls/${c.id}.html`])].sort(),
  );
  // Every one listed in the manifest with its sha256.
  for (const path of controlPaths) {
    expect(manifest.files.find((f) => f.path === path)?.sha256).toBe(sha256(fileOf(entries, path)?.data ?? ''));
  }
  const reportSha = (base: string) => sha256(fileOf(entries, `drill-reports/${base}.json`)?.data ?? '');

  // A yearly control: both resources have a verified PASS within 365 days of the pack's end.
  const dora = controlJson(entries, 'dora-art-11');
  expect(dora).toMatchObject({
    control: DORA,
    period: { days: 365, basis: 'stated', since: '2025-07-01T00:00:00.000Z', asOf: '2026-07-01T00:00:00.000Z' },
    satisfied: true,
    resources: 2,
    gaps: [],
  });
  expect(dora.satisfyingDrills).toEqual([
    {
      report: { path: `drill-reports/${recent}.json`, sha256: reportSha(recent) },
      html: `drill-reports/${recent}.html`,
      workflowId: recent.split('--')[0],
      runId: 'run-2',
      finishedAt: '2026-06-01T03:00:00.000Z',
      resourceIds: ['db-1'],
    },
    expect.objectContaining({ report: { path: `drill-reports/${early}.json`, sha256: reportSha(early) } }),
  ]);

  // A quarterly one: vm-1's PASS is older than 90 days, and the gap says so with the gate's status and reason.
  const iso = controlJson(entries, 'iso27001-2022-a.8.13');
  expect(iso).toMatchObject({ control: ISO, period: { days: 90, basis: 'chosen' }, satisfied: false });
  expect(iso.satisfyingDrills.map((d) => d.report.path)).toEqual([`drill-reports/${recent}.json`]);
  expect(iso.gaps).toEqual([
    {
      resourceId: 'vm-1',
      resourceName: 'vm-1',
      status: 'too-old',
      reason: 'last verified PASS 2026-02-01T03:00:00.000Z',
      decidedBy: { path: `drill-reports/${early}.json`, sha256: reportSha(early), finishedAt: EARLY },
      lastVerifiedPass: { path: `drill-reports/${early}.json`, sha256: reportSha(early), finishedAt: EARLY },
    },
  ]);
  expect(iso.reason).toContain('vm-1 (too-old: last verified PASS 2026-02-01');

  const page = String(fileOf(entries, 'controls/iso27001-2022-a.8.13.html')?.data);
  expect(page).not.toMatch(/<script/i);
  expect(page).toContain(`<a href="../drill-reports/${recent}.json">`);
  expect(page).toContain(`<code>${reportSha(recent)}</code>`);
  expect(page).toMatch(/<tr data-resource-id="vm-1">.*<td class="not-satisfied">too old<\/td>/);
  const overview = String(fileOf(entries, 'controls/index.html')?.data);
  expect(overview).toMatch(/<tr data-control="dora-art-11">.*<td class="satisfied">satisfied<\/td>/);
  expect(overview).toMatch(/<tr data-control="iso27001-2022-a.8.13">.*<td class="not-satisfied">not-satisfied<\/td>/);
  expect(String(fileOf(entries, 'index.html')?.data)).toContain('<a href="controls/index.html">');

  log.mockClear();
  await verify(join(root, 'h1.tar.gz'));
  expect(printed()).toContain('by control: 9 controls, each file listed and its links held');
});

test('without --by-control the pack has no controls/, no byControl and no link to them', async () => {
  await drills();
  const entries = readTarGz(await readFile(await pack()));
  expect(entries.filter((e) => e.path.startsWith('controls/'))).toEqual([]);
  expect(JSON.parse(String(fileOf(entries, MANIFEST)?.data))).not.toHaveProperty('byControl');
  expect(String(fileOf(entries, 'index.html')?.data)).not.toContain('controls/');
});

test('one byte changed in any file under controls/ is refused, naming the file', async () => {
  await drills();
  const entries = readTarGz(await readFile(await pack('--by-control')));
  const targets = entries.filter((e) => e.path.startsWith('controls/'));
  expect(targets).toHaveLength(1 + 2 * CONTROLS.length);
  for (const target of targets) {
    const changed = entries.map((e) => {
      if (e !== target) return e;
      const data = Buffer.from(e.data);
      const at = Math.floor(data.length / 2);
      data[at] = (data[at] ?? 0) ^ 0x01;
      return { path: e.path, data };
    });
    const err = await refused(changed);
    expect({ path: target.path, problem: err.problem.kind, file: err.problem.file }).toEqual({
      path: target.path,
      problem: 'changed',
      file: target.path,
    });
  }
});

test('a file added under controls/ is refused, unlisted or listed in a rewritten manifest', async () => {
  await drills();
  const entries = readTarGz(await readFile(await pack('--by-control')));
  const forged = { path: 'controls/soc2-tsc-a1.2.json', data: Buffer.from('{"satisfied": true}\n') };
  const unlisted = await refused([...entries, forged]);
  expect(unlisted.problem).toMatchObject({ kind: 'extra', file: forged.path });
  expect(unlisted.problem.detail).toContain('is in the pack but not in manifest.json');

  const listed = await refused(rewritten(entries, (list) => [...list, forged]));
  expect(listed.problem).toMatchObject({ kind: 'extra', file: forged.path });
  expect(listed.problem.detail).toContain('is not a file of the controls the manifest names (byControl)');

  // A pack made without --by-control accounts for no file under controls/ either.
  const plain = readTarGz(await readFile(await pack()));
  const added = await refused(
    rewritten(plain, (list) => [...list, { path: 'controls/index.html', data: Buffer.from('x') }]),
  );
  expect(added.problem).toMatchObject({ kind: 'extra', file: 'controls/index.html' });
});

test("a control's file removed, or rewritten to link a report with another sha256, is refused", async () => {
  const { recent } = await drills();
  const entries = readTarGz(await readFile(await pack('--by-control')));
  const removed = await refused(
    rewritten(entries, (list) => list.filter((e) => e.path !== 'controls/dora-art-11.html')),
  );
  expect(removed.problem).toMatchObject({ kind: 'missing', file: 'controls/dora-art-11.html' });

  const path = 'controls/dora-art-11.json';
  const file = controlJson(entries, 'dora-art-11');
  const forged: ControlFile = {
    ...file,
    satisfyingDrills: file.satisfyingDrills.map((d) => ({ ...d, report: { ...d.report, sha256: '0'.repeat(64) } })),
  };
  const relinked = await refused(
    rewritten(entries, (list) =>
      list.map((e) => (e.path === path ? { path, data: Buffer.from(JSON.stringify(forged)) } : e)),
    ),
  );
  expect(relinked.problem).toMatchObject({ kind: 'link', file: path });
  expect(relinked.problem.detail).toContain(`names drill-reports/${recent}.json (sha256 ${'0'.repeat(64)})`);
});

test('values from the reports are escaped on the control pages', async () => {
  await writeDrill(output(), key, {
    runId: 'run-x',
    finishedAt: '2026-06-01T03:00:00.000Z',
    resources: [failed('vm-<script>alert(1)</script>')],
  });
  const entries = readTarGz(await readFile(await pack('--by-control')));
  for (const e of entries.filter((x) => x.path.startsWith('controls/') && x.path.endsWith('.html'))) {
    expect(String(e.data)).not.toContain('<script>');
  }
  const page = String(fileOf(entries, 'controls/dora-art-11.html')?.data);
  expect(page).toContain('vm-&lt;script&gt;alert(1)&lt;/script&gt;');
  expect(controlJson(entries, 'dora-art-11').gaps.map((g) => g.status)).toEqual(['failed']);
});
