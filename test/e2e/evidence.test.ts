// Tamper-evident drill evidence: real drills on a real Temporal dev server write sealed reports, and
// `runbooks evidence verify` (run from source) accepts them, then names the report edited, removed or reordered in
// copies of the folder.
import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InventoryResource } from '../../api';
import { drDrill } from '../../runbooks/workflows';
import type { DrDrillInput } from '../../runbooks/dr-drill/contract';
import {
  DEFAULT_EVIDENCE_KEY_FILE,
  fingerprintOf,
  loadOrCreateEvidenceKey,
  parsePublicKeys,
} from '../../runtime/evidence-key';
import { keyHistoryPath } from '../../runtime/evidence-key-history';
import { PUBLIC_KEY_FILE, Seal, SEAL_SUFFIX } from '../../runtime/evidence-seal';
import { runCliFromSource } from '../helpers/cli-from-source';
import { HistoryIndex } from '../../history';
import { readTarGz, writeTarGz } from '../../history/tar';
import { backedUp, nudge, setupE2E, startWorker, teardownE2E, type E2E } from './helpers';

let fx: E2E;
let scratch: string;
let reports: string;
/** Out of band: the auditor's copy of the worker's public key, kept away from the reports. */
let publicKey: string;
const drill = `audit-${randomUUID().slice(0, 8)}`;
const otherDrill = `audit-other-${randomUUID().slice(0, 8)}`;
/** Base names of `drill`'s reports by sequence (index 0 is sequence 1). */
let chain: string[];
let input: (name: string, resource: InventoryResource) => DrDrillInput;
let vms: InventoryResource[];

beforeAll(async () => {
  fx = await setupE2E();
  scratch = await mkdtemp(join(tmpdir(), 'evidence-e2e-'));
  reports = join(fx.outputDir, 'drill-reports');
  const key = await loadOrCreateEvidenceKey(join(fx.outputDir, DEFAULT_EVIDENCE_KEY_FILE));
  publicKey = join(scratch, 'auditor-copy.pem');
  await writeFile(publicKey, key.publicKeyPem);

  const state = fx.sim.ctx.state;
  const vault = Object.values(state.vaults).find((v) => v.name === 'backups-pa-east-1');
  const account = Object.values(state.restoreAccounts).find((a) => a.name === 'restore-pa');
  if (!vault || !account) throw new Error('the seeded simulator has no backups-pa-east-1 vault or restore-pa account');
  vms = Object.values(state.resources)
    .map((r) => r.resource)
    // Backed up before, so that the drills pass their RPO target.
    .filter((r) => r.resourceType === 'PA_VM' && backedUp(fx, r.id))
    .sort((a, b) => a.id.localeCompare(b.id))
    .slice(0, 4);
  if (vms.length < 4) throw new Error('the seeded simulator has fewer than 4 VMs');

  input = (name: string, resource: InventoryResource): DrDrillInput => ({
    name,
    resources: { ids: [resource.id] },
    vaultId: vault.id,
    restoreAccountId: account.id,
    destination: { bucketA: { bucketName: 'dr-drill-restores', prefix: 'evidence/' } },
    targets: { rpoSeconds: 3 * 86400, rtoSeconds: 600 },
    retentionDays: 1,
  });
  // Three drills of one name at once (their reports are sealed as they finish, into one chain), and another drill.
  const runs = [
    ...[0, 1, 2].map((n) => [`drill-${drill}-${n + 1}`, input(drill, vms[n] as InventoryResource)] as const),
    [`drill-${otherDrill}-1`, input(otherDrill, vms[3] as InventoryResource)] as const,
  ];
  const handles = await Promise.all(
    runs.map(([workflowId, args]) =>
      fx.env.client.workflow.start(drDrill, { taskQueue: fx.worker.taskQueue, workflowId, args: [args] }),
    ),
  );
  const timer = setInterval(() => handles.forEach((h) => void nudge(h).catch(() => undefined)), 1_000);
  const results = await Promise.all(handles.map((h) => h.result())).finally(() => clearInterval(timer));
  for (const result of results) expect(result.summary.verdict).toBe('PASS');

  const seals = await Promise.all(
    (await readdir(reports))
      .filter((n) => n.endsWith(SEAL_SUFFIX))
      .map(async (n) => Seal.parse(JSON.parse(await readFile(join(reports, n), 'utf8')))),
  );
  const ours = seals.filter((s) => s.chain === drill).sort((a, b) => a.sequence - b.sequence);
  chain = ours.map((s) => s.report);
  expect(ours.map((s) => s.sequence)).toEqual([1, 2, 3]);
  expect(seals.filter((s) => s.chain === otherDrill).map((s) => s.sequence)).toEqual([1]);
}, 240_000);

afterAll(async () => {
  await teardownE2E(fx);
  await rm(scratch, { recursive: true, force: true });
}, 60_000);

const verifyCli = (dir: string, ...args: string[]) => runCliFromSource(['evidence', 'verify', dir, ...args]);

const auditorKey = async () => {
  const [key] = parsePublicKeys(await readFile(publicKey, 'utf8'), publicKey);
  if (!key) throw new Error('no public key in the auditor copy');
  return key;
};

/** A copy of the reports to tamper with. */
async function copyOfReports(name: string): Promise<string> {
  const dir = join(scratch, name);
  await cp(reports, dir, { recursive: true });
  return dir;
}

test('the reports of the drills verify against the public key obtained out of band, one chain per drill', () => {
  const result = verifyCli(reports, '--public-key', publicKey);
  expect(result.stderr).toBe('');
  expect(result.stdout).toContain(`chain ${drill}: ok, 3 reports: ${chain.join(', ')}`);
  expect(result.stdout).toContain(`chain ${otherDrill}: ok, 1 report`);
  expect(result.status).toBe(0);
});

test('the history reads the real drills with their seals verified; a pack of them verifies, and a tampered pack is refused', async () => {
  const history = await new HistoryIndex({ outputDir: fx.outputDir, publicKeys: [await auditorKey()] }).read();
  const ours = history.drills.drills.filter((d) => d.name === drill);
  expect(ours.map((d) => [d.file, d.verdict, d.seal.status]).sort()).toEqual(
    chain.map((file) => [file, 'PASS', 'verified']).sort(),
  );

  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const pack = join(scratch, 'pack.tar.gz');
  const made = runCliFromSource(
    ['evidence', 'pack', '--from', day(-1), '--to', day(1), '--dir', fx.outputDir, '--out', pack],
    { ...process.env, RUNBOOKS_OUTPUT_DIR: undefined },
  );
  expect(made.stderr).toBe('');
  expect(made.status).toBe(0);
  const ok = verifyCli(pack, '--public-key', publicKey);
  expect(ok.stderr).toBe('');
  expect(ok.stdout).toContain(`pack ${pack}: ok`);
  expect(ok.stdout).toContain(`chain ${drill}: ok, ${chain.join(', ')}`);
  expect(ok.status).toBe(0);

  const entries = readTarGz(await readFile(pack));
  const target = `drill-reports/${chain[1]}.md`;
  const tampered = entries.map((e) =>
    e.path === target ? { path: e.path, data: Buffer.concat([e.data, Buffer.from(' ')]) } : e,
  );
  const bad = join(scratch, 'tampered.tar.gz');
  await writeFile(bad, writeTarGz(tampered, new Date()));
  const refused = verifyCli(bad, '--public-key', publicKey);
  expect(refused.status).toBe(1);
  expect(refused.stderr).toContain(`evidence pack check failed: changed ${target}`);
});

test('without --public-key verify refuses (exit code 2) and shows the folder keys; --trust-folder-keys trusts them', async () => {
  expect(await readdir(reports)).toContain(PUBLIC_KEY_FILE);
  const key = await loadOrCreateEvidenceKey(join(fx.outputDir, DEFAULT_EVIDENCE_KEY_FILE));
  const refused = verifyCli(fx.outputDir);
  expect(refused.status).toBe(2);
  expect(refused.stdout).toContain(`${key.keyId} ${fingerprintOf(key.publicKey)} (${join(reports, PUBLIC_KEY_FILE)})`);
  expect(refused.stderr).toContain('not verified: these keys lie beside the reports');
  expect(refused.stdout).not.toContain('chain ');

  const trusted = verifyCli(fx.outputDir, '--trust-folder-keys');
  expect(trusted.status).toBe(0);
  expect(trusted.stdout).toContain(fingerprintOf(key.publicKey));
  expect(trusted.stdout).toContain('trusting them (--trust-folder-keys)');
  expect(trusted.stdout).toContain(`chain ${drill}: ok, 3 reports`);

  // A key swapped in beside the reports is refused just the same (trust never comes from the folder by default),
  // and the auditor's own copy still decides.
  const dir = await copyOfReports('swapped-key');
  const forger = await loadOrCreateEvidenceKey(join(scratch, 'forger-key.pem'));
  await writeFile(join(dir, PUBLIC_KEY_FILE), forger.publicKeyPem);
  const swapped = verifyCli(dir);
  expect(swapped.status).toBe(2);
  expect(swapped.stdout).toContain(fingerprintOf(forger.publicKey));
  expect(verifyCli(dir, '--public-key', publicKey).status).toBe(0);
});

test('a value edited in one report names that report as edited', async () => {
  const dir = await copyOfReports('edited');
  const target = join(dir, `${chain[1]}.json`);
  const report = JSON.parse(await readFile(target, 'utf8')) as { summary: { passed: number } };
  report.summary.passed += 1;
  await writeFile(target, JSON.stringify(report, null, 2) + '\n');
  const result = verifyCli(dir, '--public-key', publicKey);
  expect(result.status).toBe(1);
  expect(result.stderr).toContain(`evidence check failed: edited report ${chain[1]}: ${chain[1]}.json does not match`);
  expect(result.stdout).toContain(`chain ${drill}: FAILED`);
  expect(result.stdout).toContain(`chain ${otherDrill}: ok`);
});

test('a middle report deleted names the next one, whose link leads nowhere', async () => {
  const dir = await copyOfReports('removed');
  for (const name of await readdir(dir)) if (name.startsWith(`${chain[1]}.`)) await rm(join(dir, name));
  const result = verifyCli(dir, '--public-key', publicKey);
  expect(result.status).toBe(1);
  expect(result.stderr).toContain(`evidence check failed: removed report ${chain[2]}`);
});

test('two reports swapped (every file renamed to the other) names the reordering', async () => {
  const dir = await copyOfReports('swapped');
  const [first, second] = [chain[0] ?? '', chain[1] ?? ''];
  for (const ext of ['json', 'md', 'seal.json']) {
    await rename(join(dir, `${first}.${ext}`), join(dir, `swap.${ext}`));
    await rename(join(dir, `${second}.${ext}`), join(dir, `${first}.${ext}`));
    await rename(join(dir, `swap.${ext}`), join(dir, `${second}.${ext}`));
  }
  const result = verifyCli(dir, '--public-key', publicKey);
  expect(result.status).toBe(1);
  // Sequence 1 now sits under the second report's name.
  expect(result.stderr).toContain(`evidence check failed: reordered report ${second}: ${second}${SEAL_SUFFIX} seals`);
  expect(result.stderr).toContain(`the report ${first} (sequence 1)`);
});

test('another public key, a bad key file and a missing folder are refused with their own errors', async () => {
  const otherKey = await loadOrCreateEvidenceKey(join(scratch, 'other-key.pem'));
  const otherPublic = join(scratch, 'other-public.pem');
  await writeFile(otherPublic, otherKey.publicKeyPem);
  const wrong = verifyCli(reports, '--public-key', otherPublic);
  expect(wrong.status).toBe(1);
  expect(wrong.stderr).toContain('unverified report');
  expect(wrong.stderr).toContain('sealed with another key (id ');

  const bad = join(scratch, 'bad.pem');
  await writeFile(bad, 'not a key\n');
  const badKey = verifyCli(reports, '--public-key', bad);
  expect(badKey.status).toBe(2);
  expect(badKey.stderr).toContain(`${bad}: holds no PEM key`);

  const missing = verifyCli(join(scratch, 'no-such-dir'), '--public-key', publicKey);
  expect(missing.status).toBe(5);
  expect(missing.stderr).toContain('no-such-dir is not a directory');
});

test('a rotation keeps the old public key in the history: reports of both keys verify against it', async () => {
  const keyFile = join(fx.outputDir, DEFAULT_EVIDENCE_KEY_FILE);
  const cli = (...args: string[]) => runCliFromSource(['evidence', 'key', ...args, '--key-file', keyFile]);
  const old = await loadOrCreateEvidenceKey(keyFile);
  const shown = cli('show');
  expect(shown.status).toBe(0);
  expect(shown.stdout).toContain(`current key: ${old.keyId} ${fingerprintOf(old.publicKey)}`);
  expect(shown.stdout).toContain(`key history: ${keyHistoryPath(keyFile)}`);

  const rotated = cli('rotate');
  expect(rotated.status).toBe(0);
  const next = await loadOrCreateEvidenceKey(keyFile);
  expect(next.keyId).not.toBe(old.keyId);
  expect(rotated.stdout).toContain(`${old.keyId} retired, ${next.keyId} current`);
  const after = cli('show').stdout;
  expect(after).toMatch(new RegExp(`${old.keyId} SHA256:[0-9a-f]{64} since .*, retired `));
  expect(after).toMatch(new RegExp(`${next.keyId} SHA256:[0-9a-f]{64} since .*, current`));

  // A worker restarted after the rotation seals the chain's next report with the new key.
  const worker = await startWorker(fx, { evidenceKey: next, taskQueue: `evidence-rotated-${randomUUID()}` });
  try {
    const handle = await fx.env.client.workflow.start(drDrill, {
      taskQueue: worker.taskQueue,
      workflowId: `drill-${drill}-4`,
      args: [input(drill, vms[0] as InventoryResource)],
    });
    const timer = setInterval(() => void nudge(handle).catch(() => undefined), 1_000);
    expect((await handle.result().finally(() => clearInterval(timer))).summary.verdict).toBe('PASS');
  } finally {
    await worker.stop();
  }

  const history = verifyCli(reports, '--public-key', keyHistoryPath(keyFile));
  expect(history.stderr).toBe('');
  expect(history.stdout).toContain(`chain ${drill}: ok, 4 reports`);
  expect(history.stdout).toContain(fingerprintOf(old.publicKey));
  expect(history.status).toBe(0);
  // The old key alone no longer covers the chain: the fourth report names the new key.
  const oldOnly = verifyCli(reports, '--public-key', publicKey);
  expect(oldOnly.status).toBe(1);
  expect(oldOnly.stderr).toContain(next.keyId);
});
