// `runbooks evidence gate` through the real parser, on drill reports written and sealed by the drill's own activity
// code with a generated key: which resources have a verified PASS within the period, and why the others do not.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOrCreateEvidenceKey, rotateEvidenceKey, type EvidenceKey } from '../../runtime/evidence-key';
import { keyHistoryPath } from '../../runtime/evidence-key-history';
import type { DrillResourceResult } from '../../runbooks/dr-drill/report';
import type { EvidenceGateOutput } from '../../operator/output-shapes';
import { CONTROLS } from '../../history/controls';
import { runCliInProcess } from '../helpers/cli-in-process';
import { ago, failed, passed, writeDrill } from '../history/fixtures';

let root: string;
let key: EvidenceKey;
let keyFile: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'evidence-gate-'));
  keyFile = join(root, 'data', 'evidence-signing-key.pem');
  key = await loadOrCreateEvidenceKey(keyFile);
});
afterEach(() => rm(root, { recursive: true, force: true }));

const output = () => join(root, 'output');
const reports = () => join(output(), 'drill-reports');
const DAY_MS = 86_400_000;
/** A time `days` ago: the gate counts back from now. */

let runs = 0;
/** One drill report of `name`, finished `days` ago, sealed with `signer` (the test's key by default). */
function drill(name: string, days: number, resources: DrillResourceResult[], signer = key): Promise<string> {
  runs += 1;
  return writeDrill(output(), signer, { name, runId: `run-${runs}`, finishedAt: ago(days), resources });
}

/** `runbooks evidence gate --dir <output> --public-key <the key history> …`. */
const gate = (...args: string[]) =>
  runCliInProcess(['evidence', 'gate', '--dir', output(), '--public-key', keyHistoryPath(keyFile), ...args]);

async function scopeFile(content: unknown): Promise<string> {
  const path = join(root, 'scope.json');
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

async function json(...args: string[]): Promise<{ status: number; doc: EvidenceGateOutput; stderr: string }> {
  const result = await gate(...args, '-o', 'json');
  return { status: result.status, doc: JSON.parse(result.stdout) as EvidenceGateOutput, stderr: result.stderr };
}

const statuses = (doc: EvidenceGateOutput) => doc.resources.map((r) => [r.resourceId, r.status]);

/** Removes every file of a report: its renderings and its seal. */
async function removeReport(base: string): Promise<void> {
  for (const name of await readdir(reports())) if (name.startsWith(`${base}.`)) await rm(join(reports(), name));
}

test('exit 0 when every resource the reports name has a verified PASS within the period', async () => {
  await drill('nightly', 20, [passed('db-1'), passed('vm-1')]);
  await drill('nightly', 2, [passed('db-1')]);
  await drill('weekly', 5, [passed('bucket-1')]);
  const result = await gate('--within', '30d');
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  expect(result.stdout).toContain('public keys given:');
  expect(result.stdout).toMatch(/^PASS\s+bucket-1\s/m);
  expect(result.stdout).toMatch(/^PASS\s+db-1\s/m);
  expect(result.stdout).toMatch(/^PASS\s+vm-1\s/m);
  expect(result.stdout).toContain('evidence gate passed: 3 resources, each with a verified PASS within 30d');
});

test('exit 1 naming each resource without one, and why: none, too old, failed', async () => {
  await drill('nightly', 60, [passed('stale-1')]);
  await drill('nightly', 45, [passed('old-1'), passed('flaky-1'), failed('stale-1')]);
  await drill('nightly', 10, [passed('flaky-1'), passed('ok-1')]);
  await drill('nightly', 3, [failed('flaky-1'), passed('ok-1')]);
  const scope = await scopeFile({ resources: ['ok-1', 'old-1', 'stale-1', 'flaky-1', 'never-1'] });
  const result = await gate('--within', '30d', '--scope', scope);
  expect(result.status).toBe(1);
  expect(result.stdout).toMatch(/^PASS\s+ok-1\s/m);
  expect(result.stdout).toMatch(/^none\s+never-1\s+no drill report names it/m);
  expect(result.stdout).toMatch(/^too old\s+old-1\s/m);
  expect(result.stdout).toMatch(/^too old\s+stale-1\s/m);
  expect(result.stdout).toMatch(/^failed\s+flaky-1\s/m);
  // One line on standard error names each resource that fails, with its reason; the date of the last PASS for too old.
  const [message, ...rest] = result.stderr.trim().split('\n');
  expect(rest).toEqual([]);
  expect(message).toMatch(/^evidence gate failed: 4 of 5 resources without a verified PASS within 30d: /);
  expect(message).toContain('never-1 (none: no drill report names it)');
  expect(message).toMatch(new RegExp(`old-1 \\(too old: last verified PASS ${ago(45).slice(0, 10)}T[^;]+\\)`));
  // Its last PASS, and the newer drill that did not pass, both before the period.
  expect(message).toMatch(
    new RegExp(
      `stale-1 \\(too old: last verified PASS ${ago(60).slice(0, 10)}\\S+; newest drill ${ago(45).slice(0, 10)}`,
    ),
  );
  expect(message).toMatch(/flaky-1 \(failed: FAIL in drill-nightly-\S+ at /);
  expect(message).not.toContain('ok-1');
});

test('a report sealed after its key was retired, as the key history says, fails as key-retired', async () => {
  await drill('nightly', 1, [passed('db-1')]);
  // A rotation dated a millisecond after the key was made: the (signed) history retires it before the report's seal.
  const history = JSON.parse(await readFile(keyHistoryPath(keyFile), 'utf8')) as {
    keys: { keyId: string; since: string }[];
  };
  const entry = history.keys.find((k) => k.keyId === key.keyId);
  if (!entry) throw new Error('the key is not in its history');
  await rotateEvidenceKey(keyFile, new Date(Date.parse(entry.since) + 1));
  const { status, doc } = await json('--within', '30d');
  expect(status).toBe(1);
  expect(statuses(doc)).toEqual([['db-1', 'key-retired']]);
  expect(doc.resources[0]?.reason).toContain(`with key ${key.keyId}, outside its window in the key history`);
});

test('a tampered report counts as unsigned, and so do an unsealed one and one sealed with another key', async () => {
  const tampered = await drill('nightly', 4, [failed('db-1')]);
  const unsealed = await drill('weekly', 4, [passed('vm-1')]);
  const other = await loadOrCreateEvidenceKey(join(root, 'other', 'evidence-signing-key.pem'));
  await drill('monthly', 4, [passed('bucket-1')], other);
  await drill('hourly', 4, [passed('queue-1')]);
  // The failure edited into a pass, and a seal removed.
  const path = join(reports(), `${tampered}.json`);
  await writeFile(path, (await readFile(path, 'utf8')).replace('"verdict": "FAIL"', '"verdict": "PASS"'));
  await rm(join(reports(), `${unsealed}.seal.json`));

  const { status, doc } = await json('--within', '30d');
  expect(status).toBe(1);
  expect(statuses(doc)).toEqual([
    ['bucket-1', 'unsigned'],
    ['db-1', 'unsigned'],
    ['queue-1', 'pass'],
    ['vm-1', 'unsigned'],
  ]);
  const byId = new Map(doc.resources.map((r) => [r.resourceId, r]));
  expect(byId.get('db-1')?.reason).toContain(`edited: ${tampered}.json does not match its seal`);
  expect(byId.get('vm-1')?.reason).toContain('unsealed');
  expect(byId.get('bucket-1')?.reason).toContain('unverified: sealed with another key');
  // No verified PASS to fall back on: the edited one is not one.
  expect(byId.get('db-1')?.lastVerifiedPass).toBeUndefined();
});

test('-o json: one document with each resource, its status, its last verified PASS and the overall result', async () => {
  const old = await drill('nightly', 40, [passed('db-1'), passed('vm-1')]);
  const recent = await drill('nightly', 1, [passed('db-1')]);
  const scope = await scopeFile({ resources: ['db-1', 'vm-1', 'never-1'] });
  const before = Date.now();
  const result = await gate('--within', '30d', '--scope', scope, '-o', 'json');
  expect(result.status).toBe(1);
  // Standard output holds the document alone: the key lines go to standard error, with the failure.
  const doc = JSON.parse(result.stdout) as EvidenceGateOutput;
  expect(result.stderr).toContain('public keys given:');
  expect(result.stderr).toContain('evidence gate failed: 2 of 3 resources');
  expect(doc).toEqual({
    result: 'fail',
    within: '30d',
    since: expect.any(String) as string,
    checkedAt: expect.any(String) as string,
    scope: 'file',
    scopeFile: scope,
    dir: reports(),
    keySource: 'given',
    keyIds: [key.keyId],
    resources: [
      {
        resourceId: 'db-1',
        resourceName: 'db-1',
        status: 'pass',
        lastVerifiedPass: {
          reportFile: `${recent}.json`,
          workflowId: recent.split('--')[0],
          runId: recent.split('--')[1],
          finishedAt: expect.any(String) as string,
          verdict: 'PASS',
          seal: 'verified',
        },
        decidedBy: expect.objectContaining({ reportFile: `${recent}.json` }) as object,
      },
      { resourceId: 'never-1', status: 'none', reason: 'no drill report names it' },
      {
        resourceId: 'vm-1',
        resourceName: 'vm-1',
        status: 'too-old',
        reason: expect.stringMatching(/^last verified PASS \S+$/) as string,
        lastVerifiedPass: expect.objectContaining({ reportFile: `${old}.json`, seal: 'verified' }) as object,
        decidedBy: expect.objectContaining({ reportFile: `${old}.json` }) as object,
      },
    ],
    skipped: expect.any(Array) as unknown[],
  });
  const since = Date.parse(doc.since);
  expect(Date.parse(doc.checkedAt) - since).toBe(30 * DAY_MS);
  expect(since).toBeGreaterThanOrEqual(before - 30 * DAY_MS);

  const passing = await json('--within', '60d');
  expect(passing.status).toBe(0);
  expect(passing.doc).toMatchObject({ result: 'pass', scope: 'reports', keySource: 'given' });
  expect(passing.doc).not.toHaveProperty('scopeFile');
  expect(statuses(passing.doc)).toEqual([
    ['db-1', 'pass'],
    ['vm-1', 'pass'],
  ]);
});

test("passing, then failing once one drill's evidence is removed", async () => {
  await drill('nightly', 9, [passed('db-1')]);
  await drill('nightly', 2, [passed('db-1')]);
  const only = await drill('weekly', 6, [passed('vm-1')]);
  const scope = await scopeFile({ resources: ['db-1', 'vm-1'] });
  expect((await gate('--within', '30d', '--scope', scope)).status).toBe(0);

  // The only report of vm-1 gone: with a scope it shows as never drilled.
  await removeReport(only);
  const { status, doc } = await json('--within', '30d', '--scope', scope);
  expect(status).toBe(1);
  expect(statuses(doc)).toEqual([
    ['db-1', 'pass'],
    ['vm-1', 'none'],
  ]);
});

test('a report removed from the middle of a chain breaks the chain of the reports after it', async () => {
  await drill('nightly', 9, [passed('db-1')]);
  const middle = await drill('nightly', 5, [failed('db-1')]);
  await drill('nightly', 2, [passed('db-1')]);
  expect((await gate('--within', '30d')).status).toBe(0);

  // A failure hidden by deleting its report: the next report's link points to nothing.
  await removeReport(middle);
  const { status, doc } = await json('--within', '30d');
  expect(status).toBe(1);
  expect(statuses(doc)).toEqual([['db-1', 'chain-broken']]);
  expect(doc.resources[0]?.reason).toContain('its seal holds, its chain does not (removed');
});

test("another report of its chain edited: the resource's own report holds its seal, its chain is broken", async () => {
  const edited = await drill('nightly', 5, [passed('db-1')]);
  await drill('nightly', 2, [passed('vm-1')]);
  const path = join(reports(), `${edited}.json`);
  await writeFile(path, (await readFile(path, 'utf8')).replace('"resourceName": "db-1"', '"resourceName": "db-2"'));
  const { status, doc } = await json('--within', '30d');
  expect(status).toBe(1);
  expect(statuses(doc)).toEqual([
    ['db-1', 'unsigned'],
    ['vm-1', 'chain-broken'],
  ]);
  expect(doc.resources[1]?.reason).toContain(`its seal holds, its chain does not (edited ${edited}:`);
  expect(doc.resources[1]?.decidedBy?.seal).toBe('chainFailed');
});

test('--trust-folder-keys checks against the keys beside the reports, and says so', async () => {
  await drill('nightly', 1, [passed('db-1')]);
  const result = await runCliInProcess([
    'evidence',
    'gate',
    '--within',
    '7d',
    '--dir',
    output(),
    '--trust-folder-keys',
  ]);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  expect(result.stdout).toContain('trusting the public keys beside the reports');
  expect(result.stdout).toContain(key.keyId);
  // The drill-reports folder itself is taken as --dir too.
  const nested = await runCliInProcess([
    'evidence',
    'gate',
    '--within',
    '7d',
    '--dir',
    reports(),
    '--trust-folder-keys',
  ]);
  expect(nested.status).toBe(0);
});

test('a folder without reports and without a scope fails: nothing checked is not a pass', async () => {
  await mkdir(output(), { recursive: true });
  const result = await gate('--within', '30d');
  expect(result.status).toBe(1);
  expect(result.stderr).toMatch(/^evidence gate failed: no drill report in \S+ names a resource; give --scope/);
});

describe('usage errors: exit 2 naming the problem, nothing on standard output', () => {
  beforeEach(() => drill('nightly', 1, [passed('db-1')]));

  test.each([
    [
      ['--within', '30x'],
      "--within must be a period such as 30d, 12h or 1d12h (days, hours, minutes, seconds), not '30x'",
    ],
    [['--within', '0'], "not '0'"],
    [[], 'give --within'],
    [['--within', '30d', 'extra'], "unexpected argument 'extra'"],
    [['--within', '30d', '-o', 'yaml'], "--output must be text or json, not 'yaml'"],
    [['--within', '30d', '--trust-folder-keys'], 'give --public-key or --trust-folder-keys, not both'],
    [['--within', '30d', '--withn', '7d'], "unknown option '--withn' for 'evidence gate': did you mean '--within'?"],
  ])('%j', async (args, message) => {
    // JSON first: a later -o of the case's own wins.
    const result = await gate('-o', 'json', ...args);
    expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 2, stdout: '' });
    expect(result.stderr).toContain(message);
  });

  test.each([
    ['not JSON', '{"resources": [', 'is not valid JSON'],
    ['a plain array', '["db-1"]', 'is not a scope file ((top):'],
    ['an empty list', '{"resources": []}', 'is not a scope file (resources:'],
    ['a blank ID', '{"resources": ["db-1", " "]}', 'is not a scope file (resources.1:'],
    ['another field', '{"resources": ["db-1"], "resource": ["vm-1"]}', 'is not a scope file ((top):'],
  ])('a scope file that is %s', async (_, content, message) => {
    const scope = await scopeFile(content);
    const result = await gate('--within', '30d', '--scope', scope, '-o', 'json');
    expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 2, stdout: '' });
    expect(result.stderr).toContain(`--scope ${scope} ${message}`);
    expect(result.stderr).toContain('expected {"resources": ["<resource id>", ...]}');
  });

  test('without --public-key or --trust-folder-keys it refuses, as evidence verify does', async () => {
    const result = await runCliInProcess(['evidence', 'gate', '--within', '30d', '--dir', output()]);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^not checked: the keys beside the reports can be replaced/);
  });

  test('--dir that is a file is a usage error; a missing folder or scope file is not found (5)', async () => {
    const file = await scopeFile({ resources: ['db-1'] });
    const notDir = await runCliInProcess(['evidence', 'gate', '--within', '1d', '--dir', file, '--trust-folder-keys']);
    expect(notDir.status).toBe(2);
    expect(notDir.stderr).toContain(`${file} is not a directory`);
    const missing = join(root, 'no-such-dir');
    const noDir = await runCliInProcess([
      'evidence',
      'gate',
      '--within',
      '1d',
      '--dir',
      missing,
      '--trust-folder-keys',
    ]);
    expect(noDir.status).toBe(5);
    expect(noDir.stderr).toContain(`${missing} does not exist`);
    const noScope = await gate('--within', '1d', '--scope', join(root, 'no-scope.json'));
    expect(noScope.status).toBe(5);
    expect(noScope.stderr).toContain('cannot be read (ENOENT)');
  });
});

test('--help prints the usage and the scope format, exit 0', async () => {
  const result = await runCliInProcess(['evidence', 'gate', '--help']);
  expect(result.status).toBe(0);
  expect(result.stdout).toContain('evidence gate --within <duration>');
  expect(result.stdout).toContain('{"resources": ["<id>", ...]}');
});

describe('--control: a control of the catalogue, judged over its own period unless --within', () => {
  const ISO = 'iso27001-2022-a.8.13'; // 90 days, chosen
  const DORA = 'dora-art-11'; // 365 days, stated

  test('a PASS 120 days ago satisfies a yearly control, not a quarterly one; the failure names control and resource', async () => {
    await drill('nightly', 120, [passed('db-1')]);
    const yearly = await gate('--control', DORA);
    expect(yearly.stderr).toBe('');
    expect(yearly.status).toBe(0);
    expect(yearly.stdout).toContain('drills within 365d (since ');
    expect(yearly.stdout).toMatch(
      /^control dora-art-11 \(DORA \(Regulation \(EU\) 2022\/2554\) Art\. 11 Response and recovery\), within 365 days \(as the standard states\): satisfied\./m,
    );
    expect(yearly.stdout).toContain('evidence gate passed: control dora-art-11 satisfied: 1 resource');

    const quarterly = await gate('--control', ISO);
    expect(quarterly.status).toBe(1);
    expect(quarterly.stdout).toMatch(/^too old\s+db-1\s/m);
    expect(quarterly.stdout).toContain(`control ${ISO} (ISO/IEC 27001:2022 Annex A 8.13 Information backup)`);
    expect(quarterly.stdout).toContain('NOT satisfied');
    expect(quarterly.stderr.trim()).toMatch(
      new RegExp(
        `^evidence gate failed: control iso27001-2022-a\\.8\\.13 not satisfied: 1 of 1 resource without a verified ` +
          `PASS within 90 days \\(chosen: the standard states none\\): db-1 \\(too old: last verified PASS ` +
          `${ago(120).slice(0, 10)}`,
      ),
    );
  });

  test('-o json: each control with its period, result, gaps and satisfying reports; repeatable and comma-separated', async () => {
    const old = await drill('nightly', 120, [passed('db-1'), passed('vm-1')]);
    const recent = await drill('nightly', 10, [passed('db-1'), failed('queue-1')]);
    const { status, doc, stderr } = await json('--control', `${DORA},${ISO}`, '--control', DORA);
    expect(status).toBe(1);
    // One line per control not satisfied.
    expect(stderr).toMatch(
      /^evidence gate failed: control dora-art-11 not satisfied: 1 of 3 resources .*queue-1 \(failed: /m,
    );
    expect(stderr).toMatch(/^evidence gate failed: control iso27001-2022-a\.8\.13 not satisfied: 2 of 3 resources /m);
    // The list above the controls is the shortest period's: what every control named needs.
    expect(doc).toMatchObject({ result: 'fail', within: '90d' });
    expect(Date.parse(doc.checkedAt) - Date.parse(doc.since)).toBe(90 * DAY_MS);
    expect(statuses(doc)).toEqual([
      ['db-1', 'pass'],
      ['queue-1', 'failed'],
      ['vm-1', 'too-old'],
    ]);
    const controls = doc.controls ?? [];
    expect(controls.map((c) => [c.controlId, c.within, c.periodBasis, c.result])).toEqual([
      [DORA, '365d', 'stated', 'not-satisfied'],
      [ISO, '90d', 'chosen', 'not-satisfied'],
    ]);
    const [dora, iso] = controls;
    expect(dora).toMatchObject({
      framework: 'DORA (Regulation (EU) 2022/2554)',
      title: 'Response and recovery',
      clause: 'Art. 11',
      reviewerRequired: false,
    });
    expect(Date.parse(doc.checkedAt) - Date.parse(dora?.since ?? '')).toBe(365 * DAY_MS);
    expect(dora?.gaps.map((g) => [g.resourceId, g.status])).toEqual([['queue-1', 'failed']]);
    expect(dora?.reason).toContain('queue-1 (failed: FAIL in');
    expect(dora?.satisfiedBy).toEqual([
      expect.objectContaining({ reportFile: `${recent}.json`, resourceIds: ['db-1'] }),
      expect.objectContaining({ reportFile: `${old}.json`, resourceIds: ['vm-1'] }),
    ]);
    expect(iso?.gaps.map((g) => [g.resourceId, g.status, g.reason])).toEqual([
      ['queue-1', 'failed', expect.stringContaining('FAIL in')],
      ['vm-1', 'too-old', expect.stringMatching(/^last verified PASS /)],
    ]);
    expect(iso?.satisfiedBy.map((d) => d.reportFile)).toEqual([`${recent}.json`]);
  });

  test('--within replaces the period of every control named', async () => {
    await drill('nightly', 120, [passed('db-1')]);
    const { status, doc } = await json('--control', ISO, '--within', '200d');
    expect(status).toBe(0);
    expect(doc.result).toBe('pass');
    expect(doc.controls?.map((c) => [c.controlId, c.within, c.periodBasis, c.result])).toEqual([
      [ISO, '200d', 'given', 'satisfied'],
    ]);
    // Without --control, the JSON has no controls.
    expect((await json('--within', '200d')).doc).not.toHaveProperty('controls');
  });

  test.each([['iso27001-a.8.13'], ['dora-art-11,nope'], [',']])(
    'an unknown control %j is a usage error listing the known IDs',
    async (arg) => {
      await drill('nightly', 1, [passed('db-1')]);
      const result = await gate('--control', arg, '-o', 'json');
      expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 2, stdout: '' });
      expect(result.stderr).toMatch(
        /^(unknown control '[^']+' \(--control\)|an empty --control): the known controls are /,
      );
      for (const c of CONTROLS) expect(result.stderr).toContain(c.id);
    },
  );
});
