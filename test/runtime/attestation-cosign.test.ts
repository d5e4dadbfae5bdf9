// A drill report's and a recovery plan report's attestations checked as an auditor checks them, with a real cosign
// (built from its Go module into .tools/ by scripts/ensure-cosign.js): `cosign verify-blob-attestation` accepts each,
// for the report the runbook's own activity code wrote and sealed, and refuses them once one byte of the report or of
// an envelope changes.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MockActivityEnvironment } from '@temporalio/testing';
import { writeReport } from '../../runbooks/dr-drill/activities';
import type { DrillReportPaths } from '../../runbooks/dr-drill/report';
import { ATTESTATION_FILES, DRILL_PREDICATE, TEST_RESULT_PREDICATE } from '../../runbooks/dr-drill/attestations';
import { PLAN_ATTESTATION_FILES, PLAN_PREDICATE } from '../../runbooks/recovery-plan/attestations';
import { loadOrCreateEvidenceKey, type EvidenceKey } from '../../runtime/evidence-key';
import { PUBLIC_KEY_FILE, readSeal, SEAL_SUFFIX } from '../../runtime/evidence-seal';
import { latestPassed, v3Report } from '../helpers/drill-reports';
import { writePlan } from '../history/fixtures';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureCosign } = require('../../scripts/ensure-cosign.js') as typeof import('../../scripts/ensure-cosign');

const run = promisify(execFile);
let root: string;
let dir: string;
let base: string;
/** The recovery plan report's files, without their extension. */
let planBase: string;
let key: EvidenceKey;
let cosign: string;

beforeAll(async () => {
  cosign = ensureCosign().cosign;
  root = await mkdtemp(join(tmpdir(), 'attestation-cosign-'));
  key = await loadOrCreateEvidenceKey(join(root, 'evidence-signing-key.pem'));
  const report = { ...v3Report([latestPassed]), workflowId: 'drill-nightly-cosign' };
  const paths: DrillReportPaths = await new MockActivityEnvironment().run(
    writeReport,
    { outputDir: join(root, 'output'), evidenceKey: key },
    report,
    false,
    { name: 'nightly', resources: { ids: [latestPassed.resourceId] } },
  );
  dir = join(root, 'output', 'drill-reports');
  base = paths.json.slice(0, -'.json'.length);
  const plan = await writePlan(join(root, 'output'), key, {
    runId: 'run-cosign',
    finishedAt: '2026-11-29T03:15:10.000Z',
  });
  planBase = join(root, 'output', 'plan-reports', plan);
}, 600_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

/** `cosign verify-blob-attestation` of `blob` with one envelope: its exit code and what it printed. */
async function verify(blob: string, envelope: string, type: string): Promise<{ code: number; output: string }> {
  const args = ['verify-blob-attestation', '--key', join(dir, PUBLIC_KEY_FILE), '--type', type];
  try {
    const { stdout, stderr } = await run(cosign, [...args, '--signature', envelope, '--insecure-ignore-tlog', blob], {
      timeout: 120_000,
    });
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** Each attestation: its name, the report's files without extension, its file's suffix, its predicate type. */
const KINDS = [
  ['drill test-result', () => base, ATTESTATION_FILES.testResult, TEST_RESULT_PREDICATE],
  ['drill', () => base, ATTESTATION_FILES.drill, DRILL_PREDICATE],
  ['plan test-result', () => planBase, PLAN_ATTESTATION_FILES.testResult, TEST_RESULT_PREDICATE],
  ['plan', () => planBase, PLAN_ATTESTATION_FILES.plan, PLAN_PREDICATE],
] as const;

test('the seal covers both attestations, of the drill and of the plan', async () => {
  const seal = await readSeal(`${base}${SEAL_SUFFIX}`);
  expect(Object.keys(seal?.files ?? {}).sort()).toEqual(
    ['json', 'md', 'html', ATTESTATION_FILES.testResult, ATTESTATION_FILES.drill].sort(),
  );
  const planSeal = await readSeal(`${planBase}${SEAL_SUFFIX}`);
  expect(Object.keys(planSeal?.files ?? {}).sort()).toEqual(
    ['json', 'md', 'html', PLAN_ATTESTATION_FILES.testResult, PLAN_ATTESTATION_FILES.plan].sort(),
  );
});

test.each(KINDS)(
  'cosign accepts the %s attestation of the report',
  async (_kind, baseOf, file, type) => {
    const result = await verify(`${baseOf()}.json`, `${baseOf()}.${file}`, type);
    expect(result).toMatchObject({ code: 0 });
    expect(result.output).toContain('Verified OK');
  },
  180_000,
);

test.each(KINDS)(
  'cosign refuses the %s attestation once one byte of the report changes',
  async (_kind, baseOf, file, type) => {
    const bytes = await readFile(`${baseOf()}.json`);
    bytes[bytes.indexOf('PASS')] = 'F'.charCodeAt(0);
    const tampered = join(root, 'tampered.json');
    await writeFile(tampered, bytes);
    const result = await verify(tampered, `${baseOf()}.${file}`, type);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('no matching subject digest');
  },
  180_000,
);

test.each(KINDS)(
  'cosign refuses the %s envelope once one byte of its payload changes',
  async (_kind, baseOf, file, type) => {
    const envelope = JSON.parse(await readFile(`${baseOf()}.${file}`, 'utf8')) as { payload: string };
    const payload = Buffer.from(envelope.payload, 'base64');
    payload.writeUInt8(payload.readUInt8(payload.indexOf('"subject"') + 1) ^ 1, payload.indexOf('"subject"') + 1);
    const tampered = join(root, `tampered.${file}`);
    await writeFile(tampered, JSON.stringify({ ...envelope, payload: payload.toString('base64') }));
    const result = await verify(`${baseOf()}.json`, tampered, type);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('accepted signatures do not match threshold');
  },
  180_000,
);
