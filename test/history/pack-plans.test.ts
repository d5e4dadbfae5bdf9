// Recovery plan reports in evidence packs, written and sealed by the plan's own report activity: a pack of a period
// carries the plan runs that finished in it (every file of each, in plan-reports/), lists them in the manifest and on
// its page with the verdict and the RTO against its target, and `evidence verify` checks their seals and chains and
// accounts for every file under plan-reports/. A period without plan runs gives the pack it gave before, but for an
// empty list.
import { readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { evidenceCommand } from '../../cli/evidence-command';
import { PackCheckFailedError, PackedWithProblemsError, PackSourceRefusedError } from '../../cli/evidence-pack-command';
import { MANIFEST, MANIFEST_SUM, VERIFICATION, type PackManifest, type Verification } from '../../history/pack';
import { readTarGz, writeTarGz, type TarEntry } from '../../history/tar';
import { sha256 } from '../../runtime/evidence-seal';
import { evidenceScratchEachTest, writeDrill, writePlan } from './fixtures';

const f = evidenceScratchEachTest('pack-plans-');
const { output, printed } = f;
const plansDir = () => join(output(), 'plan-reports');
const pack = (out: string) => f.pack(out, '--public-key', f.keyFile);
const verify = (path: string) => evidenceCommand(['verify', path, '--public-key', f.keyFile]);
const failure = (p: Promise<void>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );
const FILES = ['json', 'md', 'html', 'test-result.dsse.json', 'plan.dsse.json', 'seal.json'];

/**
 * Two drills in the period; plan runs of `payments` before it, in it (PASS, then FAIL with its RTO missed), after, each
 * sealed as it finished; with `middle`, one more PASS in the period between the two.
 */
async function drillsAndPlans(
  middle = false,
): Promise<{ before: string; passed: string; middle?: string; failed: string; after: string }> {
  await writeDrill(output(), f.key, { runId: 'run-1', finishedAt: '2026-02-10T03:00:00.000Z' });
  await writeDrill(output(), f.key, { runId: 'run-2', finishedAt: '2026-03-10T03:00:00.000Z' });
  const before = await writePlan(output(), f.key, { runId: 'plan-0', finishedAt: '2026-01-20T03:00:00.000Z' });
  const passed = await writePlan(output(), f.key, { runId: 'plan-1', finishedAt: '2026-02-20T03:00:00.000Z' });
  const between = middle
    ? await writePlan(output(), f.key, { runId: 'plan-1b', finishedAt: '2026-03-01T03:00:00.000Z' })
    : undefined;
  const failed = await writePlan(output(), f.key, {
    runId: 'plan-2',
    finishedAt: '2026-03-20T03:00:00.000Z',
    failed: true,
  });
  const after = await writePlan(output(), f.key, { runId: 'plan-3', finishedAt: '2026-04-11T03:00:00.000Z' });
  return { before, passed, ...(between ? { middle: between } : {}), failed, after };
}

const json = <T>(entries: readonly TarEntry[], path: string) =>
  JSON.parse(String(entries.find((e) => e.path === path)?.data)) as T;

async function refused(path: string): Promise<PackCheckFailedError> {
  const err = await failure(verify(path));
  expect(err).toBeInstanceOf(PackCheckFailedError);
  return err as PackCheckFailedError;
}

/** The pack with `change` applied and its manifest and sum rewritten to match: what an attacker with write access does. */
async function rewritten(out: string, change: (entries: TarEntry[]) => TarEntry[]): Promise<string> {
  const entries = change(readTarGz(await readFile(out)));
  const old = json<PackManifest>(entries, MANIFEST);
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

test("a pack carries the period's plan runs whole, lists them with verdict and RTO, and verifies their chain", async () => {
  const { passed, failed } = await drillsAndPlans();
  const out = join(f.root, 'q1.tar.gz');
  await pack(out);
  expect(printed()).toContain(
    `wrote ${out}: 2 drill reports and 2 recovery plan reports from 2026-02-01 to 2026-04-10`,
  );
  const entries = readTarGz(await readFile(out));
  const planPaths = entries.map((e) => e.path).filter((p) => p.startsWith('plan-reports/'));
  // The runs before --from and after --to are not packed; each packed one with every file its seal covers.
  expect(planPaths.sort()).toEqual(
    [passed, failed].flatMap((base) => FILES.map((x) => `plan-reports/${base}.${x}`)).sort(),
  );
  for (const path of planPaths) {
    expect(entries.find((e) => e.path === path)?.data).toEqual(await readFile(join(output(), path)));
  }

  const manifest = json<PackManifest>(entries, MANIFEST);
  expect(manifest.plans).toEqual([
    {
      file: failed,
      name: 'payments',
      mode: 'drill',
      finishedAt: '2026-03-20T03:00:00.000Z',
      verdict: 'FAIL',
      rto: { seconds: 3900, targetSeconds: 3600, met: false },
      seal: 'verified',
    },
    {
      file: passed,
      name: 'payments',
      mode: 'drill',
      finishedAt: '2026-02-20T03:00:00.000Z',
      verdict: 'PASS',
      rto: { seconds: 4500, targetSeconds: 5400, met: true },
      seal: 'verified',
    },
  ]);
  for (const path of planPaths) expect(manifest.files.map((x) => x.path)).toContain(path);

  // verification.json: each plan's seal, and its chain as verified in the output folder (all four runs of it).
  const verification = json<Verification>(entries, VERIFICATION);
  expect(verification.plans).toEqual([
    { file: failed, status: 'verified', problems: [] },
    { file: passed, status: 'verified', problems: [] },
  ]);
  const chain = verification.chains.find((c) => c.chain === 'plan:payments');
  expect(chain?.reports).toHaveLength(4);
  expect(chain?.problems).toEqual([]);

  // The page: each plan run with its verdict, its RTO against the target, met or missed, and its report.
  const page = String(entries.find((e) => e.path === 'index.html')?.data);
  const rows = [...page.matchAll(/<tr data-file="(plan-[^"]+)">(.*?)<\/tr>/g)].map((m) => [
    m[1],
    [...(m[2] ?? '').matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) => c[1]),
  ]);
  expect(rows).toEqual([
    [
      failed,
      [
        '2026-03-20T03:00:00.000Z',
        'payments',
        'drill',
        'FAIL',
        '65 min against 60 min',
        'MISSED',
        'vm-api',
        'verified',
        `<a href="plan-reports/${failed}.html">report</a>`,
      ],
    ],
    [
      passed,
      [
        '2026-02-20T03:00:00.000Z',
        'payments',
        'drill',
        'PASS',
        '75 min against 1.5 h',
        'met',
        '',
        'verified',
        `<a href="plan-reports/${passed}.html">report</a>`,
      ],
    ],
  ]);
  expect(page).toContain('<tr><th>recovery plan runs</th><td>2: 1 PASS, 1 FAIL; RTO target met in 1</td></tr>');

  f.clearPrinted();
  await verify(out);
  expect(printed()).toContain(
    `pack ${out}: ok, ${manifest.files.length} files match manifest.json, 2 drill reports and 2 recovery plan reports`,
  );
  // The first packed run links to one outside the pack, on purpose: the chain is still ok.
  expect(printed()).toContain(`chain plan:payments: ok, ${passed}, ${failed}`);
});

test('a period without plan runs gives the pack it gave before, but for an empty list', async () => {
  // A period of one drill, with plan runs before and after it: no plan file, and `plans` is empty.
  await writePlan(output(), f.key, { runId: 'plan-0', finishedAt: '2026-01-20T03:00:00.000Z' });
  await writeDrill(output(), f.key, { runId: 'run-1', finishedAt: '2026-02-10T03:00:00.000Z' });
  await writePlan(output(), f.key, { runId: 'plan-1', finishedAt: '2026-04-11T03:00:00.000Z', failed: true });
  const out = join(f.root, 'q1.tar.gz');
  await pack(out);
  expect(printed()).toContain(`wrote ${out}: 1 drill report from 2026-02-01 to 2026-04-10`);
  const entries = readTarGz(await readFile(out));
  expect(entries.filter((e) => e.path.startsWith('plan-reports/'))).toEqual([]);
  const manifest = json<PackManifest>(entries, MANIFEST);
  expect(manifest.plans).toEqual([]);
  // The manifest's fields as before, `plans` besides.
  expect(Object.keys(manifest)).toEqual([
    'format',
    'createdAt',
    'period',
    'keySource',
    'keyIds',
    'drills',
    'plans',
    'skipped',
    'files',
  ]);
  const verification = json<Verification>(entries, VERIFICATION);
  expect(verification.plans).toEqual([]);
  expect(verification.chains.map((c) => c.chain)).toEqual(['nightly']);
  expect(String(entries.find((e) => e.path === 'index.html')?.data)).toContain(
    'No recovery plan run finished in this period.',
  );
  f.clearPrinted();
  await verify(out);
  expect(printed()).toMatch(/: ok, \d+ files match manifest\.json, 1 drill report from /);
  expect(printed()).not.toContain('recovery plan');
  expect(printed()).not.toContain('chain plan:');
});

test('one byte changed in any plan file of the pack is refused, naming the file', async () => {
  await drillsAndPlans();
  const out = join(f.root, 'q1.tar.gz');
  await pack(out);
  const entries = readTarGz(await readFile(out));
  const tampered = join(f.root, 'tampered.tar.gz');
  const planFiles = entries.filter((e) => e.path.startsWith('plan-reports/'));
  expect(planFiles).toHaveLength(12);
  for (const target of planFiles) {
    const changed = entries.map((e) => {
      if (e !== target) return e;
      const data = Buffer.from(e.data);
      const at = Math.floor(data.length / 2);
      data[at] = (data[at] ?? 0) ^ 0x01;
      return { path: e.path, data };
    });
    await writeFile(tampered, writeTarGz(changed, new Date()));
    const err = await refused(tampered);
    expect({ path: target.path, problem: err.problem }).toMatchObject({
      path: target.path,
      problem: { kind: 'changed', file: target.path },
    });
  }
});

test('with the manifest rewritten, the seals still catch an edited, removed, forged or misplaced plan report', async () => {
  const { failed, middle = '' } = await drillsAndPlans(true);
  const out = join(f.root, 'q1.tar.gz');
  await pack(out);

  // The FAIL edited into a PASS.
  const editedJson = `plan-reports/${failed}.json`;
  const edited = await refused(
    await rewritten(out, (entries) =>
      entries.map((e) =>
        e.path === editedJson ? { path: e.path, data: Buffer.from(String(e.data).replace('"FAIL"', '"PASS"')) } : e,
      ),
    ),
  );
  expect(edited.problem).toMatchObject({ kind: 'seal', file: `plan-reports/${failed}` });
  expect(edited.problem.detail).toContain(`${failed}.json does not match its seal`);

  // The middle run removed whole: the FAIL after it links to nothing in the pack.
  const removed = await refused(
    await rewritten(out, (entries) => entries.filter((e) => !e.path.startsWith(`plan-reports/${middle}.`))),
  );
  expect(removed.problem).toMatchObject({ kind: 'seal', file: `plan-reports/${failed}` });
  expect(removed.problem.detail).toMatch(/^removed: /);

  // A page no seal covers.
  const forged = { path: 'plan-reports/plan-payments--run-9.html', data: Buffer.from('<p>PASS</p>\n') };
  const unsealed = await refused(await rewritten(out, (entries) => [...entries, forged]));
  expect(unsealed.problem).toMatchObject({ kind: 'seal', file: 'plan-reports/plan-payments--run-9' });
  expect(unsealed.problem.detail).toContain('has no plan-payments--run-9.seal.json');

  // A drill's report moved into plan-reports/: its seal holds, but it is no plan's.
  const moved = await refused(
    await rewritten(out, (entries) =>
      entries.map((e) =>
        e.path.startsWith('drill-reports/') && !e.path.includes('evidence-public-key')
          ? { path: e.path.replace('drill-reports/', 'plan-reports/'), data: e.data }
          : e,
      ),
    ),
  );
  expect(moved.problem.kind).toBe('seal');
  expect(moved.problem.detail).toContain('is sealed in the chain nightly, of a drill: not a report of plan-reports/');
});

test('a plan report that does not verify is packed all the same, and the command exits 1 naming it', async () => {
  const { failed } = await drillsAndPlans();
  const file = join(plansDir(), `${failed}.json`);
  await writeFile(file, (await readFile(file, 'utf8')).replace('"FAIL"', '"PASS"'));
  const out = join(f.root, 'q1.tar.gz');
  const err = await failure(pack(out));
  expect(err).toBeInstanceOf(PackedWithProblemsError);
  expect(printed()).toContain(`  failed: ${failed}: edited ${failed}: ${failed}.json does not match its seal`);
  const manifest = json<PackManifest>(readTarGz(await readFile(out)), MANIFEST);
  expect(manifest.plans?.map((p) => [p.file, p.verdict, p.seal])).toEqual([
    [failed, 'PASS', 'failed'],
    // Its own seal holds; its chain does not, since a report of it was edited.
    [expect.any(String), 'PASS', 'chainFailed'],
  ]);
  // Packed as it is, it fails verify too.
  const refusal = await refused(out);
  expect(refusal.problem).toMatchObject({ kind: 'seal', file: `plan-reports/${failed}` });
});

test('evidence pack refuses a symlink in plan-reports/, naming it, and writes no pack', async () => {
  const { passed } = await drillsAndPlans();
  const page = join(plansDir(), `${passed}.html`);
  await rm(page);
  await symlink(join(f.root, 'elsewhere.html'), page);
  const out = join(f.root, 'q1.tar.gz');
  const err = await failure(pack(out));
  expect(err).toBeInstanceOf(PackSourceRefusedError);
  expect((err as Error).message).toBe(`nothing packed: ${page} is a symbolic link, not a regular file: refused`);
  await expect(readFile(out)).rejects.toThrow('ENOENT');
});
