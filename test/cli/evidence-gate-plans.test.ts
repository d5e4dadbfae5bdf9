// `runbooks evidence gate --plan` through the real parser, on recovery plan reports written and sealed by the plan's
// own report activity with a generated key: a plan passes when its newest run within the period verifies, every step
// passed and its RTO met its target; otherwise the gate exits 1 with a reason that names the plan and why.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOrCreateEvidenceKey, type EvidenceKey } from '../../runtime/evidence-key';
import { keyHistoryPath } from '../../runtime/evidence-key-history';
import type { EvidenceGateOutput } from '../../operator/output-shapes';
import type { DrillResourceResult } from '../../runbooks/dr-drill/report';
import { runCliInProcess } from '../helpers/cli-in-process';
import { ago, measured, writeDrill, writePlan, type PlanSpec } from '../history/fixtures';

let root: string;
let key: EvidenceKey;
let keyFile: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'evidence-gate-plans-'));
  keyFile = join(root, 'data', 'evidence-signing-key.pem');
  key = await loadOrCreateEvidenceKey(keyFile);
});
afterEach(() => rm(root, { recursive: true, force: true }));

const output = () => join(root, 'output');
const plansDir = () => join(output(), 'plan-reports');

let runs = 0;
/** One run of a plan (`payments` unless named), finished `days` ago and sealed then: write them oldest first. */
function plan(days: number, spec: Omit<PlanSpec, 'runId' | 'finishedAt'> = {}): Promise<string> {
  runs += 1;
  return writePlan(output(), key, { ...spec, runId: `run-${runs}`, finishedAt: ago(days) });
}

/** `runbooks evidence gate --dir <output> --public-key <the key history> …`. */
const gate = (...args: string[]) =>
  runCliInProcess(['evidence', 'gate', '--dir', output(), '--public-key', keyHistoryPath(keyFile), ...args]);

async function json(...args: string[]): Promise<{ status: number; doc: EvidenceGateOutput; stderr: string }> {
  const result = await gate(...args, '-o', 'json');
  return { status: result.status, doc: JSON.parse(result.stdout) as EvidenceGateOutput, stderr: result.stderr };
}

const planStatuses = (doc: EvidenceGateOutput) => (doc.plans ?? []).map((p) => [p.name, p.status]);

test('exit 0 when the newest run within the period verifies, passed every step and met its RTO target', async () => {
  await plan(20, { failed: true });
  const newest = await plan(2);
  // A drill that fails: --plan alone checks the plans, no resource.
  await writeDrill(output(), key, {
    runId: 'drill-1',
    finishedAt: ago(1),
    resources: [{ ...measured('db-1', 60, 60), verdict: 'FAIL', reasons: ['restore failed'] }],
  });
  const result = await gate('--plan', 'payments', '--within', '30d');
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  expect(result.stdout).toContain(`recovery plans within 30d (since `);
  expect(result.stdout).toMatch(new RegExp(`^PASS\\s+payments\\s+\\S+ ${newest}: RTO 75 min of 1\\.5 h$`, 'm'));
  expect(result.stdout).not.toContain('drills within');
  expect(result.stdout).toContain(
    'evidence gate passed: plan payments, each passed within 30d with its RTO target met',
  );
});

test('exit 1 naming the plan when its newest run failed, even after a PASS', async () => {
  await plan(10);
  const newest = await plan(3, { failed: true });
  const result = await gate('--plan', 'payments', '--within', '30d');
  expect(result.status).toBe(1);
  expect(result.stdout).toMatch(/^failed\s+payments\s+FAIL in /m);
  expect(result.stderr).toContain(
    `evidence gate failed: plan payments without a verified PASS within 30d: failed: FAIL in ${newest} at ` +
      `${ago(3).slice(0, 10)}`,
  );
  expect(result.stderr).toContain('(failed steps: vm-api; RTO 65 min against its target of 60 min, missed)');
});

test('exit 1 when every step passed but the RTO missed its target', async () => {
  const newest = await plan(1, { rto: { seconds: 7200, targetSeconds: 5400 } });
  const { status, doc, stderr } = await json('--plan', 'payments', '--within', '7d');
  expect(status).toBe(1);
  expect(planStatuses(doc)).toEqual([['payments', 'rto-missed']]);
  expect(doc.plans?.[0]?.reason).toBe(
    `RTO 2.0 h against its target of 1.5 h in ${newest} at ${doc.plans?.[0]?.decidedBy?.finishedAt}`,
  );
  expect(doc.plans?.[0]?.decidedBy).toMatchObject({
    verdict: 'PASS',
    rto: { seconds: 7200, targetSeconds: 5400, met: false },
  });
  expect(doc.plans?.[0]?.lastVerifiedPass).toBeUndefined();
  expect(stderr).toContain(
    'evidence gate failed: plan payments without a verified PASS within 7d: RTO missed: RTO 2.0 h',
  );
});

test('exit 1 when the newest run is older than the period, or the plan has none; each plan named', async () => {
  const old = await plan(40);
  const { status, doc, stderr } = await json('--plan', 'payments,checkout', '--within', '30d');
  expect(status).toBe(1);
  expect(doc).toMatchObject({ result: 'fail', scope: 'plans', resources: [], planDir: plansDir() });
  expect(planStatuses(doc)).toEqual([
    ['payments', 'too-old'],
    ['checkout', 'none'],
  ]);
  const [payments, checkout] = doc.plans ?? [];
  expect(payments?.reason).toBe(`last verified PASS ${payments?.decidedBy?.finishedAt}`);
  expect(payments?.decidedBy?.reportFile).toBe(`${old}.json`);
  expect(payments?.lastVerifiedPass?.reportFile).toBe(`${old}.json`);
  expect(checkout?.reason).toBe('no recovery plan report of checkout');
  expect(stderr).toContain(
    'evidence gate failed: plan payments without a verified PASS within 30d: too old: last verified PASS',
  );
  expect(stderr).toContain(
    'evidence gate failed: plan checkout without a verified PASS within 30d: none: no recovery plan report of checkout',
  );
});

test("a report removed from the plan's chain breaks it; an edited one is unsigned", async () => {
  await plan(5);
  const removed = await plan(4);
  const newest = await plan(3);
  for (const name of await readdir(plansDir())) if (name.startsWith(`${removed}.`)) await rm(join(plansDir(), name));
  const broken = await json('--plan', 'payments', '--within', '30d');
  expect(broken.status).toBe(1);
  expect(planStatuses(broken.doc)).toEqual([['payments', 'chain-broken']]);
  expect(broken.doc.plans?.[0]?.reason).toContain(`${newest}: its seal holds, its chain does not (removed ${newest}:`);

  // The newest run's report edited (a byte added): its seal no longer holds, and an older PASS does not hide it.
  const path = join(plansDir(), `${newest}.json`);
  await writeFile(path, (await readFile(path, 'utf8')).replace('"verdict": "PASS"', '"verdict": "PASS" '));
  const edited = await json('--plan', 'payments', '--within', '30d');
  expect(planStatuses(edited.doc)).toEqual([['payments', 'unsigned']]);
  expect(edited.doc.plans?.[0]?.reason).toContain(`${newest}: edited: ${newest}.json does not match its seal`);
});

test('with --scope, the resources and the plans are both checked, each failure on a line of its own', async () => {
  const failedDrill: DrillResourceResult = {
    ...measured('db-1', 60, 60),
    verdict: 'FAIL',
    reasons: ['restore failed'],
  };
  await writeDrill(output(), key, { runId: 'drill-1', finishedAt: ago(1), resources: [failedDrill] });
  await plan(1, { failed: true });
  const scope = join(root, 'scope.json');
  await writeFile(scope, JSON.stringify({ resources: ['db-1'] }));
  const result = await gate('--scope', scope, '--plan', 'payments', '--within', '30d');
  expect(result.status).toBe(1);
  expect(result.stdout).toContain('drills within 30d');
  expect(result.stdout).toContain('recovery plans within 30d');
  const lines = result.stderr.trim().split('\n');
  expect(lines[0]).toMatch(
    /^evidence gate failed: 1 of 1 resource without a verified PASS within 30d: db-1 \(failed: /,
  );
  expect(lines[1]).toMatch(/^evidence gate failed: plan payments without a verified PASS within 30d: failed: /);

  // Both pass: one line saying so.
  await writeDrill(output(), key, { runId: 'drill-2', finishedAt: ago(0.5), resources: [measured('db-1', 60, 60)] });
  await plan(0.5);
  const passed = await json('--scope', scope, '--plan', 'payments', '--within', '30d');
  expect(passed.status).toBe(0);
  expect(passed.doc).toMatchObject({ result: 'pass', scope: 'file' });
  expect(passed.doc.resources.map((r) => r.status)).toEqual(['pass']);
  expect(planStatuses(passed.doc)).toEqual([['payments', 'pass']]);
  expect(passed.stderr).toContain(
    'evidence gate passed: 1 resource, each with a verified PASS within 30d; plan payments, each passed within 30d',
  );
});

test('--require-timestamp: a plan run without tokens is untimestamped', async () => {
  const newest = await plan(1);
  const chain = join(__dirname, '..', 'fixtures', 'timestamp', 'chain.pem');
  const { status, doc } = await json(
    '--plan',
    'payments',
    '--within',
    '7d',
    '--require-timestamp',
    '--tsa-cert',
    chain,
  );
  expect(status).toBe(1);
  expect(planStatuses(doc)).toEqual([['payments', 'untimestamped']]);
  expect(doc.plans?.[0]?.reason).toBe(`${newest}: no timestamp token (no authority configured, or none reached yet)`);
});

test('--trust-folder-keys trusts the keys beside the plan reports, and says so', async () => {
  await plan(1);
  const result = await runCliInProcess([
    'evidence',
    'gate',
    '--dir',
    output(),
    '--plan',
    'payments',
    '--within',
    '7d',
    '--trust-folder-keys',
  ]);
  expect(result.status).toBe(0);
  expect(result.stdout).toContain(
    `trusting the public keys beside the reports in ${plansDir()} (--trust-folder-keys):`,
  );
  expect(result.stdout).toContain(`  ${key.keyId} `);
});

describe('usage errors: exit 2, nothing read', () => {
  test.each([
    [['--plan', 'Payments', '--within', '7d'], "--plan 'Payments' is not a plan's name"],
    [['--plan', 'payments,', '--within', '7d'], 'an empty --plan'],
    [['--plan', 'payments'], 'give --within'],
  ])('%j', async (args, message) => {
    const result = await gate(...args);
    expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 2, stdout: '' });
    expect(result.stderr).toContain(message);
  });
});

test('--help names --plan', async () => {
  const result = await runCliInProcess(['evidence', 'gate', '--help']);
  expect(result.status).toBe(0);
  expect(result.stdout).toContain('[--plan <name>...]');
  expect(result.stdout).toContain('--plan <name> (repeatable, or comma-separated) asks that the recovery plan passed');
});
