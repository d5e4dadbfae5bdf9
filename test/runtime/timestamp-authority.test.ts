// Trusted time for a drill's evidence against a real RFC 3161 authority (sigstore's timestamp-server, built into
// .tools/ by scripts/ensure-timestamp-authority.js), checked as an auditor checks it, with `openssl ts -verify` alone:
// the drill's own report activity writes a token beside the seal and each attestation; openssl accepts each, and
// refuses once one byte of the file or of the token changes. An authority killed with kill -9 holds nothing up: the
// report is sealed without tokens, says so, and the tokens come once it is back. A recovery plan's report gets its
// tokens the same way, from the plan's own report activity.
import { execFile } from 'node:child_process';
import { randomUUID, X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MockActivityEnvironment } from '@temporalio/testing';
import { writeReport } from '../../runbooks/dr-drill/activities';
import { loadOrCreateEvidenceKey, type EvidenceKey } from '../../runtime/evidence-key';
import { SEAL_SUFFIX } from '../../runtime/evidence-seal';
import { stampFiles } from '../../runtime/evidence-stamps';
import { certificatesOf, TIMESTAMP_SUFFIX } from '../../runtime/evidence-timestamp';
import { keyHistoryPath } from '../../runtime/evidence-key-history';
import { verifyEvidence } from '../../runtime/evidence-verify';
import { runCliInProcess } from '../helpers/cli-in-process';
import type { EvidenceGateOutput } from '../../operator/output-shapes';
import { latestPassed, v3Report } from '../helpers/drill-reports';
import { PLAN_ATTESTATION_FILES } from '../../runbooks/recovery-plan/attestations';
import { writePlan } from '../history/fixtures';
import { startTimestampAuthority, type TimestampAuthority } from '../helpers/timestamp-authority';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureOpenssl } = require('../../scripts/ensure-openssl.js') as typeof import('../../scripts/ensure-openssl');

const run = promisify(execFile);
let root: string;
let dir: string;
let key: EvidenceKey;
let tsa: TimestampAuthority;
let chainFile: string;
let openssl: string;
let base: string;

const STAMPED = ['.seal.json', '.drill.dsse.json', '.test-result.dsse.json'];

type Written = Awaited<ReturnType<typeof writeReport>>;

async function sealedReport(
  workflowId: string,
  authority: { url: string; certificatesPem?: string },
): Promise<Written> {
  // Finished now, each run its own: the newest report decides the gate, whatever the day the test runs.
  const report = { ...v3Report([latestPassed]), workflowId, runId: randomUUID(), finishedAt: new Date().toISOString() };
  return new MockActivityEnvironment().run(
    writeReport,
    { outputDir: join(root, 'output'), evidenceKey: key, timestampAuthority: authority },
    report,
    false,
    { name: 'nightly', resources: { ids: [latestPassed.resourceId] } },
  );
}

beforeAll(async () => {
  openssl = ensureOpenssl();
  tsa = await startTimestampAuthority();
  root = await mkdtemp(join(tmpdir(), 'timestamp-authority-'));
  chainFile = join(root, 'tsa-chain.pem');
  await writeFile(chainFile, tsa.chainPem);
  key = await loadOrCreateEvidenceKey(join(root, 'evidence-signing-key.pem'));
  const paths = await sealedReport('drill-nightly-tsa', { url: tsa.url, certificatesPem: tsa.chainPem });
  expect(paths.timestamps?.pending).toBeUndefined();
  expect(paths.timestamps?.added).toHaveLength(3);
  dir = join(root, 'output', 'drill-reports');
  base = paths.json.slice(0, -'.json'.length);
}, 600_000);

afterAll(async () => {
  await tsa?.kill();
  if (root) await rm(root, { recursive: true, force: true });
});

/** `openssl ts -verify -data <file> -in <token> -CAfile <chain>`: its exit code and what it printed. */
async function opensslVerify(file: string, token: string): Promise<{ code: number; output: string }> {
  try {
    const args = ['ts', '-verify', '-data', file, '-in', token, '-CAfile', chainFile];
    const { stdout, stderr } = await run(openssl, args, { timeout: 60_000 });
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

test.each(STAMPED)('openssl ts -verify accepts the token of the report%s', async (suffix) => {
  const result = await opensslVerify(`${base}${suffix}`, `${base}${suffix}${TIMESTAMP_SUFFIX}`);
  expect(result.code).toBe(0);
  expect(result.output).toContain('Verification: OK');
});

test.each(STAMPED)('openssl ts -verify refuses the token once one byte of the report%s changes', async (suffix) => {
  const bytes = await readFile(`${base}${suffix}`);
  bytes[bytes.indexOf('"')] = "'".charCodeAt(0);
  const tampered = join(root, `tampered${suffix}`);
  await writeFile(tampered, bytes);
  const result = await opensslVerify(tampered, `${base}${suffix}${TIMESTAMP_SUFFIX}`);
  expect(result.code).not.toBe(0);
  expect(result.output).toContain('message imprint mismatch');
});

test('openssl and verify refuse a token whose time was changed by one byte', async () => {
  const tokenFile = `${base}${SEAL_SUFFIX}${TIMESTAMP_SUFFIX}`;
  const token = await readFile(tokenFile);
  const genTime = token.indexOf(Buffer.from([0x18, 0x0f])) + 2 + 13;
  const tampered = Buffer.from(token);
  tampered[genTime] = (tampered[genTime] ?? 0) ^ 0x01;
  const copy = join(root, 'tampered.tsr');
  await writeFile(copy, tampered);
  const result = await opensslVerify(`${base}${SEAL_SUFFIX}`, copy);
  expect(result.code).not.toBe(0);
  expect(result.output).toMatch(/signature failure|message digest/i);

  await writeFile(tokenFile, tampered);
  try {
    const verification = await verifyEvidence(dir, [key.publicKey], { timestamps: certificatesOf(tsa.chainPem) });
    expect(verification.first).toMatchObject({ kind: 'timestamp' });
    expect(verification.first?.detail).toContain('the TSTInfo was changed');
    const cliVerify = await cli('verify', '--tsa-cert', chainFile);
    expect(cliVerify.status).toBe(1);
    expect(cliVerify.stderr).toContain('evidence check failed: timestamp report');
  } finally {
    await writeFile(tokenFile, token);
  }
});

test('verify checks every token against the authority, and says when the seal was dated', async () => {
  const trusted = certificatesOf(tsa.chainPem);
  const verification = await verifyEvidence(dir, [key.publicKey], { timestamps: trusted });
  expect(verification.first).toBeUndefined();
  const [stamps] = verification.timestamps;
  expect(stamps).toMatchObject({ status: 'timestamped', missing: [], authority: 'O=local, CN=Test TSA Timestamping' });
  // Without the authority's certificates, the tokens are read but not vouched for.
  const unchecked = await verifyEvidence(dir, [key.publicKey]);
  expect(unchecked.timestamps[0]?.status).toBe('unchecked');
  // Another authority's certificate does not vouch for them.
  const other = new X509Certificate(await readFile(join(__dirname, '..', 'fixtures', 'timestamp', 'chain.pem')));
  const untrusted = await verifyEvidence(dir, [key.publicKey], { timestamps: [other] });
  expect(untrusted.first?.detail).toContain('does not chain to a trusted certificate');
});

/** `runbooks evidence <sub> …` against the report folder, with the key history as the trusted key. */
const cli = (sub: 'verify' | 'gate', ...args: string[]) =>
  runCliInProcess([
    'evidence',
    sub,
    ...(sub === 'verify' ? [dir] : ['--dir', join(root, 'output'), '--within', '30d']),
    '--public-key',
    keyHistoryPath(join(root, 'evidence-signing-key.pem')),
    ...args,
  ]);

test('evidence verify --tsa-cert says when each report was dated, and by whom; gate --require-timestamp passes', async () => {
  const verified = await cli('verify', '--tsa-cert', chainFile);
  expect(verified.stderr).toBe('');
  expect(verified.status).toBe(0);
  expect(verified.stdout).toContain("time-stamping authority's certificates given:");
  expect(verified.stdout).toMatch(
    /^timestamp .*drill-nightly-tsa--.*: ok, dated \S+ by O=local, CN=Test TSA Timestamping$/m,
  );
  const gate = await cli('gate', '--require-timestamp', '--tsa-cert', chainFile);
  expect(gate.status).toBe(0);
  // Without the authority's chain, a token cannot count.
  const refused = await cli('gate', '--require-timestamp');
  expect(refused.status).toBe(2);
  expect(refused.stderr).toContain('--require-timestamp needs --tsa-cert');
});

test("a recovery plan's report is timestamped as a drill's: openssl accepts its tokens, gate --plan counts them", async () => {
  const authority = { url: tsa.url, certificatesPem: tsa.chainPem };
  const plan = await writePlan(
    join(root, 'output'),
    key,
    { runId: randomUUID(), finishedAt: new Date().toISOString() },
    authority,
  );
  const plans = join(root, 'output', 'plan-reports');
  for (const suffix of [SEAL_SUFFIX, `.${PLAN_ATTESTATION_FILES.plan}`, `.${PLAN_ATTESTATION_FILES.testResult}`]) {
    const file = join(plans, `${plan}${suffix}`);
    const result = await opensslVerify(file, `${file}${TIMESTAMP_SUFFIX}`);
    expect({ suffix, code: result.code }).toEqual({ suffix, code: 0 });
  }
  const verification = await verifyEvidence(plans, [key.publicKey], { timestamps: certificatesOf(tsa.chainPem) });
  expect(verification.first).toBeUndefined();
  expect(verification.timestamps.find((t) => t.report === plan)?.status).toBe('timestamped');
  const gate = await runCliInProcess([
    'evidence',
    'gate',
    '--dir',
    join(root, 'output'),
    '--plan',
    'payments',
    '--within',
    '1d',
    '--public-key',
    keyHistoryPath(join(root, 'evidence-signing-key.pem')),
    '--require-timestamp',
    '--tsa-cert',
    chainFile,
  ]);
  expect(gate.stderr).toBe('');
  expect(gate.status).toBe(0);
});

test('an authority killed with kill -9 holds nothing up; the tokens come once it is back', async () => {
  const { port } = tsa;
  await tsa.kill();
  const started = Date.now();
  const paths = await sealedReport('drill-nightly-tsa-down', { url: tsa.url });
  expect(Date.now() - started).toBeLessThan(60_000);
  const pending = paths.timestamps?.pending;
  expect(pending?.targets.map((t) => t.file.slice(t.file.indexOf('.')))).toEqual(STAMPED);
  expect(pending?.error).toContain('could not be reached');
  const sealedBase = paths.json.slice(0, -'.json'.length).split('/').at(-1) ?? '';
  const before = await verifyEvidence(dir, [key.publicKey]);
  expect(before.first).toBeUndefined();
  expect(before.timestamps.find((s) => s.report === sealedBase)?.status).toBe('none');
  // The gate that asks for trusted time fails on the newest drill, naming it; without the flag it passes.
  const untimestamped = await cli('gate', '--require-timestamp', '--tsa-cert', chainFile, '-o', 'json');
  expect(untimestamped.status).toBe(1);
  const [resource] = (JSON.parse(untimestamped.stdout) as EvidenceGateOutput).resources;
  expect(resource?.status).toBe('untimestamped');
  expect(resource?.reason).toContain(`${sealedBase}: no timestamp token`);
  expect((await cli('gate')).status).toBe(0);

  tsa = await startTimestampAuthority(port);
  const outcome = await stampFiles(dir, pending?.targets ?? [], { url: tsa.url });
  expect(outcome.pending).toEqual([]);
  // The restarted authority has a new chain (its key is in memory); both are trusted here.
  const trusted = [...certificatesOf(tsa.chainPem), ...certificatesOf(await readFile(chainFile, 'utf8'))];
  const after = await verifyEvidence(dir, [key.publicKey], { timestamps: trusted });
  expect(after.first).toBeUndefined();
  expect(after.timestamps.find((s) => s.report === sealedBase)?.status).toBe('timestamped');
  const bothChains = join(root, 'both-chains.pem');
  await writeFile(bothChains, [tsa.chainPem, await readFile(chainFile, 'utf8')].join('\n'));
  expect((await cli('gate', '--require-timestamp', '--tsa-cert', bothChains)).status).toBe(0);
}, 120_000);
