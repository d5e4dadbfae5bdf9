// `runbooks evidence oscal` through the real parser, on drill reports written and sealed by the drill's own activity
// code: one observation per verified report with its digest, one finding per control, satisfied or not.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOrCreateEvidenceKey, type EvidenceKey } from '../../runtime/evidence-key';
import { keyHistoryPath } from '../../runtime/evidence-key-history';
import type { DrillResourceResult } from '../../runbooks/dr-drill/report';
import { CONTROLS } from '../../history/controls';
import {
  ASSESSMENT_PLAN_HREF,
  objectiveId,
  OSCAL_VERSION,
  uuidV5,
  type OscalAssessmentResults,
} from '../../history/oscal';
import { runCliInProcess } from '../helpers/cli-in-process';
import { ago, failed, passed, writeDrill } from '../history/fixtures';

let root: string;
let key: EvidenceKey;
let keyFile: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'evidence-oscal-'));
  keyFile = join(root, 'data', 'evidence-signing-key.pem');
  key = await loadOrCreateEvidenceKey(keyFile);
});
afterEach(() => rm(root, { recursive: true, force: true }));

const output = () => join(root, 'output');

let runs = 0;
function drill(days: number, resources: DrillResourceResult[], signer = key): Promise<string> {
  runs += 1;
  return writeDrill(output(), signer, { name: 'nightly', runId: `run-${runs}`, finishedAt: ago(days), resources });
}

async function oscal(...args: string[]): Promise<{ status: number; doc: OscalAssessmentResults; stderr: string }> {
  const out = join(root, 'ar.json');
  const result = await runCliInProcess([
    'evidence',
    'oscal',
    '--dir',
    output(),
    '--public-key',
    keyHistoryPath(keyFile),
    '--out',
    out,
    ...args,
  ]);
  const doc = result.status === 0 ? (JSON.parse(await readFile(out, 'utf8')) as OscalAssessmentResults) : ({} as never);
  return { status: result.status, doc, stderr: result.stderr };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const states = (doc: OscalAssessmentResults) =>
  Object.fromEntries(
    (doc['assessment-results'].results[0]?.findings ?? []).map((f) => [f.target['target-id'], f.target.status.state]),
  );

test('a finding per control; those whose period holds a verified PASS of every resource are satisfied', async () => {
  const old = await drill(200, [passed('db-1'), passed('vm-1')]);
  const recent = await drill(30, [passed('db-1'), passed('vm-1')]);
  const { status, doc, stderr } = await oscal();
  expect(stderr).toContain('2 verified drill report(s) of 2; 9 of 9 controls satisfied');
  expect(status).toBe(0);

  const ar = doc['assessment-results'];
  expect(ar['import-ap'].href).toBe(ASSESSMENT_PLAN_HREF);
  expect(ar.metadata['oscal-version']).toBe(OSCAL_VERSION);
  const [result] = ar.results;
  expect(result?.['reviewed-controls']['control-selections'][0]?.['include-controls']).toEqual(
    CONTROLS.map((c) => ({ 'control-id': c.id })),
  );
  expect(result?.findings.map((f) => f.target['target-id'])).toEqual(CONTROLS.map(objectiveId));
  expect(Object.values(states(doc))).toEqual(CONTROLS.map(() => 'satisfied'));

  // Observations: one per verified report, linked to its file and sha256 through the back matter.
  const observations = result?.observations ?? [];
  expect(observations).toHaveLength(2);
  const resources = ar['back-matter']?.resources ?? [];
  const observationOf = new Map<string, string | undefined>();
  for (const base of [old, recent]) {
    const digest = createHash('sha256')
      .update(await readFile(join(output(), 'drill-reports', `${base}.json`)))
      .digest('hex');
    const resource = resources.find((r) => r.rlinks[0]?.href === `drill-reports/${base}.json`);
    expect(resource?.rlinks[0]?.hashes).toEqual([{ algorithm: 'SHA-256', value: digest }]);
    const observation = observations.find((o) => o['relevant-evidence'][0]?.href === `#${resource?.uuid ?? ''}`);
    expect(observation?.['relevant-evidence'][0]?.props).toEqual([
      { name: 'sha256', value: digest, ns: 'urn:backup-runbooks:oscal' },
    ]);
    expect(observation?.methods).toEqual(['TEST']);
    observationOf.set(base, observation?.uuid);
  }
  // The recent drill decides every control: each finding points at its observation.
  for (const f of result?.findings ?? []) {
    expect(f['related-observations']).toEqual([{ 'observation-uuid': observationOf.get(recent) }]);
  }

  // Every UUID is a valid version 5 UUID, and the same reports give the same UUIDs.
  const uuids = [
    ar.uuid,
    result?.uuid,
    ...observations.map((o) => o.uuid),
    ...(result?.findings ?? []).map((f) => f.uuid),
  ];
  for (const u of uuids) expect(u).toMatch(UUID);
  const again = await oscal();
  expect(again.doc['assessment-results'].uuid).toBe(ar.uuid);
  expect(again.doc['assessment-results'].results[0]?.findings.map((f) => f.uuid)).toEqual(
    result?.findings.map((f) => f.uuid),
  );
});

test('controls with a shorter period are not satisfied when the newest PASS is older; a failure fails all', async () => {
  await drill(120, [passed('db-1')]);
  let { doc } = await oscal();
  const byControl = states(doc);
  for (const c of CONTROLS) {
    expect(byControl[objectiveId(c)]).toBe(c.evidence.within.days >= 120 ? 'satisfied' : 'not-satisfied');
  }
  expect(byControl['iso27001-2022-a.8.13_obj']).toBe('not-satisfied');
  expect(byControl['dora-art-11_obj']).toBe('satisfied');
  const iso = doc['assessment-results'].results[0]?.findings.find((f) =>
    f.target['target-id'].startsWith('iso27001-2022-a.8.13'),
  );
  expect(iso?.target.remarks).toContain('db-1 (too-old');

  // --within replaces every control's period.
  ({ doc } = await oscal('--within', '30d'));
  expect(Object.values(states(doc))).toEqual(CONTROLS.map(() => 'not-satisfied'));

  await drill(1, [failed('db-1')]);
  ({ doc } = await oscal());
  expect(Object.values(states(doc))).toEqual(CONTROLS.map(() => 'not-satisfied'));
  expect(doc['assessment-results'].results[0]?.observations).toHaveLength(2);
});

test('a report sealed with another key is no observation and satisfies nothing', async () => {
  const other = await loadOrCreateEvidenceKey(join(root, 'other', 'key.pem'));
  await drill(5, [passed('db-1')], other);
  const { status, doc } = await oscal();
  expect(status).toBe(0);
  expect(doc['assessment-results'].results[0]?.observations).toBeUndefined();
  expect(doc['assessment-results']['back-matter']).toBeUndefined();
  expect(Object.values(states(doc))).toEqual(CONTROLS.map(() => 'not-satisfied'));
});

test('without --public-key it refuses as verify does (exit 2); a bad --within is a usage error', async () => {
  await drill(5, [passed('db-1')]);
  const refused = await runCliInProcess(['evidence', 'oscal', '--dir', output()]);
  expect(refused.status).toBe(2);
  expect(refused.stderr).toContain('not checked: the keys beside the reports can be replaced');
  const bad = await runCliInProcess([
    'evidence',
    'oscal',
    '--dir',
    output(),
    '--trust-folder-keys',
    '--within',
    'soon',
  ]);
  expect(bad.status).toBe(2);
  expect(bad.stderr).toContain('--within must be a period such as 365d or 90d');
});

test('to standard output with --trust-folder-keys; the UUIDs are RFC 4122 version 5', async () => {
  await drill(5, [passed('db-1')]);
  const result = await runCliInProcess(['evidence', 'oscal', '--dir', output(), '--trust-folder-keys']);
  expect(result.status).toBe(0);
  const doc = JSON.parse(result.stdout) as OscalAssessmentResults;
  expect(doc['assessment-results'].results[0]?.observations).toHaveLength(1);
  expect(result.stderr).toContain('trusting the public keys beside the reports');
  // RFC 4122 appendix B: uuid5(NAMESPACE_DNS, 'python.org').
  expect(uuidV5('python.org', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
});

test("docs/evidence-packs.md's catalogue table lists each control with its period and whether it is chosen", async () => {
  const doc = await readFile(join(__dirname, '../../docs/evidence-packs.md'), 'utf8');
  for (const c of CONTROLS) {
    const row = doc.split('\n').find((line) => line.startsWith('|') && line.includes(`(\`${c.id}\`)`));
    expect(row).toContain(`${c.evidence.within.days} days (${c.evidence.within.basis}`);
    expect(row).toMatch(new RegExp(`\\|\\s+${c.evidence.reviewer ? 'yes' : 'no'}\\s+\\|`));
  }
});
