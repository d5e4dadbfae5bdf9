// Evidence packs end to end on real sealed reports: made by `evidence pack`, checked by `evidence verify <pack>`,
// refused after any change to a file inside.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { evidenceCommand } from '../../cli/evidence-command';
import { UntrustedKeysError } from '../../cli/evidence-inputs';
import { PackCheckFailedError } from '../../cli/evidence-pack-command';
import { EXIT_CODES, UsageError } from '../../operator/errors';
import { MANIFEST, MANIFEST_SUM, type PackManifest } from '../../history/pack';
import { readTarGz, writeTarGz, type TarEntry } from '../../history/tar';
import { PUBLIC_KEY_FILE, renderingOf, SEAL_SUFFIX, sha256 } from '../../runtime/evidence-seal';
import { evidenceScratchEachTest, writeDrill, writePosture } from './fixtures';

const f = evidenceScratchEachTest('evidence-pack-');
const { output, printed, pack } = f;

async function fourDrills(): Promise<string[]> {
  const files = [];
  for (const [i, day] of ['2026-01-10', '2026-02-10', '2026-03-10', '2026-04-10'].entries()) {
    files.push(await writeDrill(output(), f.key, { runId: `run-${i}`, finishedAt: `${day}T03:00:00.000Z` }));
  }
  await writePosture(output(), 'posture-q1', '2026-02-01T00:00:00.000Z', [], []);
  return files;
}

const verify = (path: string) => evidenceCommand(['verify', path, '--public-key', f.keyFile]);

async function refusal(path: string): Promise<PackCheckFailedError> {
  const err = await verify(path).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PackCheckFailedError);
  expect((err as PackCheckFailedError).exitCode).toBe(EXIT_CODES.failed);
  return err as PackCheckFailedError;
}

test('a pack holds the period’s reports, their seals, the key, the verification, a page and a manifest; it verifies', async () => {
  const files = await fourDrills();
  const out = join(f.root, 'q1.tar.gz');
  await pack(out, '--public-key', f.keyFile);
  const entries = readTarGz(await readFile(out));
  const paths = entries.map((e) => e.path).sort();
  // The 2nd to the 4th drill: --to counts its whole day; the first is before --from.
  const packed = files
    .slice(1)
    .flatMap((f) =>
      ['html', 'json', 'md', 'seal.json', 'test-result.dsse.json', 'drill.dsse.json'].map(
        (x) => `drill-reports/${f}.${x}`,
      ),
    );
  expect(paths).toEqual(
    [...packed, 'index.html', `keys/${f.key.keyId}.pem`, MANIFEST, MANIFEST_SUM, 'verification.json'].sort(),
  );
  const manifest = JSON.parse(String(entries.find((e) => e.path === MANIFEST)?.data)) as PackManifest;
  expect(manifest).toMatchObject({
    keySource: 'given',
    keyIds: [f.key.keyId],
    period: { from: '2026-02-01', to: '2026-04-10' },
  });
  expect(manifest.drills.map((d) => [d.file, d.seal])).toEqual(
    files
      .slice(1)
      .reverse()
      .map((f) => [f, 'verified']),
  );
  for (const f of manifest.files) {
    expect(sha256(entries.find((e) => e.path === f.path)?.data ?? '')).toBe(f.sha256);
  }
  const page = String(entries.find((e) => e.path === 'index.html')?.data);
  expect(page).not.toMatch(/<script/i);
  expect([...page.matchAll(/<circle class="point" data-series="rto"/g)]).toHaveLength(3);
  expect(page).toContain('data-chart="posture-unprotected-total"');

  f.clearPrinted();
  await verify(out);
  expect(printed()).toContain(`pack ${out}: ok, ${manifest.files.length} files match manifest.json, 3 drill reports`);
});

test('changing one byte of any file in the pack is refused, naming the file', async () => {
  await fourDrills();
  const out = join(f.root, 'q1.tar.gz');
  await pack(out, '--public-key', f.keyFile);
  const entries = readTarGz(await readFile(out));
  const tampered = join(f.root, 'tampered.tar.gz');
  for (const target of entries) {
    const changed = entries.map((e) => {
      if (e !== target) return e;
      const data = Buffer.from(e.data);
      const at = Math.floor(data.length / 2);
      data[at] = (data[at] ?? 0) ^ 0x01;
      return { path: e.path, data };
    });
    await writeFile(tampered, writeTarGz(changed, new Date()));
    const err = await refusal(tampered);
    const named = target.path === MANIFEST_SUM ? MANIFEST : target.path;
    expect({ path: target.path, named: err.problem.file }).toEqual({ path: target.path, named });
  }
});

test('a file added or removed is refused; a report re-hashed into the manifest still fails its seal', async () => {
  await fourDrills();
  const out = join(f.root, 'q1.tar.gz');
  await pack(out, '--public-key', f.keyFile);
  const entries = readTarGz(await readFile(out));
  const write = async (list: TarEntry[]) => {
    const path = join(f.root, 'changed.tar.gz');
    await writeFile(path, writeTarGz(list, new Date()));
    return path;
  };

  const extra = await refusal(await write([...entries, { path: 'notes.txt', data: Buffer.from('hi') }]));
  expect(extra.problem).toMatchObject({ kind: 'extra', file: 'notes.txt' });

  const report = entries.find(
    (e) =>
      e.path.startsWith('drill-reports/') && !e.path.endsWith(SEAL_SUFFIX) && renderingOf(e.path)?.extension === 'json',
  );
  const missing = await refusal(await write(entries.filter((e) => e !== report)));
  expect(missing.problem).toMatchObject({ kind: 'missing', file: report?.path });

  // Whoever edits a report and rewrites the manifest and its sum to match is still caught by the report's seal.
  const edited = Buffer.from(String(report?.data).replace('"verdict": "PASS"', '"verdict": "FAIL"'));
  const manifest = JSON.parse(String(entries.find((e) => e.path === MANIFEST)?.data)) as PackManifest;
  manifest.files = manifest.files.map((f) =>
    f.path === report?.path ? { ...f, bytes: edited.length, sha256: sha256(edited) } : f,
  );
  const manifestBytes = Buffer.from(JSON.stringify(manifest, null, 2) + '\n');
  const rewritten = entries.map((e) =>
    e === report
      ? { path: e.path, data: edited }
      : e.path === MANIFEST
        ? { path: e.path, data: manifestBytes }
        : e.path === MANIFEST_SUM
          ? { path: e.path, data: Buffer.from(`${sha256(manifestBytes)}  ${MANIFEST}\n`) }
          : e,
  );
  const sealed = await refusal(await write(rewritten));
  expect(sealed.problem.kind).toBe('seal');
  expect(sealed.problem.file).toBe(report?.path.replace(/\.json$/, ''));
  expect(sealed.problem.detail).toContain('does not match its seal');
});

test('a bad --from or --to is a usage error, and nothing is written', async () => {
  await fourDrills();
  const bad: [string, string][] = [
    ['2026-13-01', '2026-12-31'],
    ['2026-02-30', '2026-03-01'],
    ['yesterday', '2026-03-01'],
    ['2026-03-01', '2026-02-01'],
    ['2026-03-01T00:00:00', '2026-04-01'],
  ];
  for (const [from, to] of bad) {
    const out = join(f.root, `bad-${from}.tar.gz`);
    const err = await evidenceCommand(['pack', '--from', from, '--to', to, '--dir', output(), '--out', out]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(EXIT_CODES.usage);
  }
  expect((await readdir(f.root)).filter((n) => n.includes('tar.gz'))).toEqual([]);
});

test('without --public-key, verify of a pack refuses to trust the keys inside it unless told to', async () => {
  await fourDrills();
  const out = join(f.root, 'q1.tar.gz');
  await pack(out);
  const err = await evidenceCommand(['verify', out]).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UntrustedKeysError);
  expect((err as Error).message).toMatch(/^not verified: whoever can edit the pack can replace the keys inside it/);
  expect(printed()).toContain(`public keys inside the pack ${out}:\n  ${f.key.keyId} `);
  await evidenceCommand(['verify', out, '--trust-folder-keys']);
  expect(printed()).toContain(`pack ${out}: ok`);
});

test('without --public-key, verify of a folder shows the keys beside the reports, then refuses them unless told to', async () => {
  await fourDrills();
  const reports = join(output(), 'drill-reports');
  const failure = (args: string[]) =>
    evidenceCommand(['verify', output(), ...args]).then(
      () => undefined,
      (e: unknown) => e,
    );
  const refused = await failure([]);
  expect(refused).toBeInstanceOf(UntrustedKeysError);
  expect((refused as UntrustedKeysError).exitCode).toBe(EXIT_CODES.usage);
  expect((refused as Error).message).toMatch(/^not verified: these keys lie beside the reports/);
  const shown = `public keys found beside the reports in ${reports}:\n  ${f.key.keyId} `;
  expect(printed().slice(0, shown.length)).toBe(shown);
  expect(printed()).toContain(`(${join(reports, PUBLIC_KEY_FILE)})`);
  expect(printed()).not.toContain('chain ');

  const both = await failure(['--public-key', f.keyFile, '--trust-folder-keys']);
  expect(both).toBeInstanceOf(UsageError);
  expect((both as Error).message).toMatch(/^give --public-key or --trust-folder-keys, not both/);

  f.clearPrinted();
  await evidenceCommand(['verify', output(), '--trust-folder-keys']);
  expect(printed()).toMatch(
    /^public keys found beside the reports in .*\n {2}.*\ntrusting them \(--trust-folder-keys\)/,
  );
  expect(printed()).toContain('chain nightly: ok, 4 reports');

  f.clearPrinted();
  await evidenceCommand(['verify', output(), '--public-key', f.keyFile]);
  expect(printed()).toMatch(/^public keys given:\n {2}\S/);
  expect(printed()).not.toContain('trusting them');
});
