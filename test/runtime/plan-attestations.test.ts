// A recovery plan report's attestations as the plan's own report activity writes them: two DSSE envelopes beside the
// report, signed with the evidence key and covered by its seal, that open only with that key and name the report's
// JSON by its sha256; `evidence verify` of the plan's folder accounts for them and refuses one edited. With an
// authority that cannot be reached, the report is sealed all the same and the tokens of its seal and both attestations
// are left pending, for plan-reports/. test/runtime/attestation-cosign.test.ts checks them with cosign (full tier).
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { evidenceCommand, EvidenceCheckFailedError } from '../../cli/evidence-command';
import { PLAN_ATTESTATION_FILES, PLAN_PREDICATE } from '../../runbooks/recovery-plan/attestations';
import { recoveryPlanActivities } from '../../runbooks/recovery-plan/activities';
import { timestampActivities } from '../../runbooks/dr-drill/timestamp-activities';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { Envelope, openEnvelope, TEST_RESULT_PREDICATE } from '../../runtime/evidence-attestation';
import { loadOrCreateEvidenceKey, type EvidenceKey } from '../../runtime/evidence-key';
import { readSeal, SEAL_SUFFIX, sha256 } from '../../runtime/evidence-seal';
import { verifyEvidence } from '../../runtime/evidence-verify';
import { planReport } from '../history/fixtures';

const env = new MockActivityEnvironment();
/** For the activities that fail on purpose: their failures are asserted, not logged. */
const quiet = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
const noService = new Proxy(
  {},
  {
    get: () => {
      throw new Error('writePlanReport called the service');
    },
  },
) as ActivityDeps['client'];

let root: string;
let key: EvidenceKey;
let log: jest.SpyInstance;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'plan-attestations-'));
  key = await loadOrCreateEvidenceKey(join(root, 'evidence-signing-key.pem'));
  log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
});
afterEach(async () => {
  log.mockRestore();
  await rm(root, { recursive: true, force: true });
});

const dir = () => join(root, 'output', 'plan-reports');

type Written = Awaited<ReturnType<ReturnType<typeof recoveryPlanActivities>['writePlanReport']>>;

/** The plan's report activity, as the worker binds it. */
async function write(spec: Parameters<typeof planReport>[0], authority?: ActivityDeps['timestampAuthority']) {
  const { schemaVersion: _v, ...report } = planReport(spec);
  const activities = recoveryPlanActivities({
    outputDir: join(root, 'output'),
    evidenceKey: key,
    client: noService,
    ...(authority ? { timestampAuthority: authority } : {}),
  });
  const written: Written = await env.run((input: { report: typeof report }) => activities.writePlanReport(input), {
    report,
  });
  return written;
}

async function envelope(base: string, file: string): Promise<Envelope> {
  return Envelope.parse(JSON.parse(await readFile(`${base}.${file}`, 'utf8')));
}

test("both envelopes open with the evidence key alone, name the report's JSON by sha256, and the seal covers them", async () => {
  const paths = await write({ runId: 'run-1', finishedAt: '2026-03-01T03:00:00.000Z', failed: true });
  expect(paths.timestamps).toBeUndefined();
  const base = paths.json.slice(0, -'.json'.length);
  const json = await readFile(paths.json);

  const testResult = openEnvelope(await envelope(base, PLAN_ATTESTATION_FILES.testResult), [key.publicKey]);
  const plan = openEnvelope(await envelope(base, PLAN_ATTESTATION_FILES.plan), [key.publicKey]);
  expect(testResult?.predicateType).toBe(TEST_RESULT_PREDICATE);
  expect(plan?.predicateType).toBe(PLAN_PREDICATE);
  for (const statement of [testResult, plan]) {
    expect(statement?.subject[0]).toEqual({ name: 'plan-payments--run-1.json', digest: { sha256: sha256(json) } });
  }
  expect(testResult?.predicate).toMatchObject({ result: 'FAILED', failedTests: ['vm-api', 'RTO target'] });
  expect(plan?.predicate).toMatchObject({
    name: 'payments',
    verdict: 'FAIL',
    rto: { seconds: 3900, targetSeconds: 3600, met: false },
    commonPoint: { at: '2026-11-29T01:30:00.000Z' },
  });
  // Another key does not open them.
  const other = generateKeyPairSync('ed25519').publicKey;
  expect(openEnvelope(await envelope(base, PLAN_ATTESTATION_FILES.plan), [other])).toBeUndefined();

  const seal = await readSeal(`${base}${SEAL_SUFFIX}`);
  expect(seal?.chain).toBe('plan:payments');
  expect(Object.keys(seal?.files ?? {}).sort()).toEqual(
    ['html', 'json', 'md', PLAN_ATTESTATION_FILES.plan, PLAN_ATTESTATION_FILES.testResult].sort(),
  );
  for (const file of [PLAN_ATTESTATION_FILES.plan, PLAN_ATTESTATION_FILES.testResult]) {
    expect(seal?.files[file]).toBe(sha256(await readFile(`${base}.${file}`)));
  }
});

test('evidence verify of the plan folder accounts for the attestations, and refuses one edited, naming it', async () => {
  await write({ runId: 'run-1', finishedAt: '2026-03-01T03:00:00.000Z' });
  const paths = await write({ runId: 'run-2', finishedAt: '2026-03-08T03:00:00.000Z' });
  const verified = await verifyEvidence(dir(), [key.publicKey]);
  expect(verified.first).toBeUndefined();
  expect(verified.chains.map((c) => [c.chain, c.reports])).toEqual([
    ['plan:payments', ['plan-payments--run-1', 'plan-payments--run-2']],
  ]);

  const file = `${paths.json.slice(0, -'.json'.length)}.${PLAN_ATTESTATION_FILES.plan}`;
  const bytes = await readFile(file);
  await writeFile(file, bytes.toString('utf8').replace('"payloadType"', '"payloadType" '));
  const keyFile = join(root, 'public.pem');
  await writeFile(keyFile, key.publicKeyPem);
  const err = await evidenceCommand(['verify', dir(), '--public-key', keyFile]).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EvidenceCheckFailedError);
  const { problem } = err as EvidenceCheckFailedError;
  expect(problem).toMatchObject({ kind: 'edited', report: 'plan-payments--run-2' });
  expect(problem.detail).toContain(`plan-payments--run-2.${PLAN_ATTESTATION_FILES.plan} does not match its seal`);
});

test('an authority that cannot be reached leaves the seal and both attestations pending, in plan-reports/', async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const url = `http://127.0.0.1:${port}/api/v1/timestamp`;

  const paths = await write({ runId: 'run-1', finishedAt: '2026-03-01T03:00:00.000Z' }, { url });
  const base = 'plan-payments--run-1';
  const seal = await readSeal(join(dir(), `${base}${SEAL_SUFFIX}`));
  expect(paths.timestamps?.added).toEqual([]);
  expect(paths.timestamps?.pending).toMatchObject({ folder: 'plan-reports', sealedAt: seal?.sealedAt });
  expect(paths.timestamps?.pending?.error).toContain('could not be reached (ECONNREFUSED)');
  // The seal's token over the seal file's bytes; each attestation's over the digest its seal holds for it.
  expect(paths.timestamps?.pending?.targets).toEqual([
    { file: `${base}${SEAL_SUFFIX}`, sha256: sha256(await readFile(join(dir(), `${base}${SEAL_SUFFIX}`))) },
    { file: `${base}.${PLAN_ATTESTATION_FILES.plan}`, sha256: seal?.files[PLAN_ATTESTATION_FILES.plan] },
    { file: `${base}.${PLAN_ATTESTATION_FILES.testResult}`, sha256: seal?.files[PLAN_ATTESTATION_FILES.testResult] },
  ]);
  // Sealed all the same, and verified: a missing token is not an edit.
  expect((await verifyEvidence(dir(), [key.publicKey])).first).toBeUndefined();
  expect((await readdir(dir())).filter((n) => n.endsWith('.tsr'))).toEqual([]);

  // The retry asks in the folder it is told, and takes no other.
  const stamps = timestampActivities({ outputDir: join(root, 'output'), timestampAuthority: { url } });
  const addEvidenceTimestamps = (input: Parameters<typeof stamps.addEvidenceTimestamps>[0]) =>
    stamps.addEvidenceTimestamps(input);
  const pending = paths.timestamps?.pending;
  await expect(
    quiet.run(addEvidenceTimestamps, { targets: pending?.targets ?? [], folder: pending?.folder }),
  ).rejects.toThrow('3 of 3 timestamps still missing');
  const outside = { targets: pending?.targets ?? [], folder: '../elsewhere' as 'plan-reports' };
  await expect(quiet.run(addEvidenceTimestamps, outside)).rejects.toThrow('no reports folder "../elsewhere"');
});
