// `evidence oscal`'s document checked by a real validator: compliance-trestle's OSCAL models, generated from NIST's
// published JSON schemas (scripts/ensure-oscal-validator.js). Full tier: the first run installs it with pip.
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadOrCreateEvidenceKey } from '../../runtime/evidence-key';
import { keyHistoryPath } from '../../runtime/evidence-key-history';
import type { OscalAssessmentResults } from '../../history/oscal';
import { runCliInProcess } from '../helpers/cli-in-process';
import { measured, writeDrill } from '../history/fixtures';

let validator: string;
let root: string;

beforeAll(() => {
  const ensure = spawnSync('node', [resolve(__dirname, '../../scripts/ensure-oscal-validator.js')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (ensure.status !== 0) throw new Error('scripts/ensure-oscal-validator.js found no OSCAL validator');
  validator = ensure.stdout.trim();
}, 900_000);
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'evidence-oscal-validate-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

const validate = (file: string) => spawnSync(validator, [file], { encoding: 'utf8', timeout: 120_000 });
const ago = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

test('the assessment results of sealed drills, satisfied and not, are valid OSCAL; a broken one is refused', async () => {
  const keyFile = join(root, 'data', 'evidence-signing-key.pem');
  const key = await loadOrCreateEvidenceKey(keyFile);
  const output = join(root, 'output');
  await writeDrill(output, key, { runId: 'run-1', finishedAt: ago(120), resources: [measured('db-1', 60, 3600)] });
  const failed = { ...measured('vm-1', 60, 3600), verdict: 'FAIL' as const, reasons: ['restore failed'] };
  await writeDrill(output, key, {
    runId: 'run-2',
    finishedAt: ago(10),
    resources: [measured('db-1', 60, 3600), failed],
  });
  const out = join(root, 'assessment-results.json');
  const args = ['evidence', 'oscal', '--dir', output, '--public-key', keyHistoryPath(keyFile), '--out', out];
  expect((await runCliInProcess(args)).status).toBe(0);

  const run = validate(out);
  console.log(`${validator} ${out}:\n${run.stdout}${run.stderr}`);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(run.stdout).toContain('valid OSCAL assessment-results');

  // No reports at all: findings only, still valid.
  const empty = join(root, 'empty.json');
  await rm(join(output, 'drill-reports'), { recursive: true });
  await writeDrill(join(root, 'other'), key, { runId: 'run-3', finishedAt: ago(1) });
  const other = ['evidence', 'oscal', '--dir', join(root, 'other'), '--public-key', keyHistoryPath(keyFile)];
  expect((await runCliInProcess([...other, '--out', empty, '--within', '1h'])).status).toBe(0);
  expect(validate(empty).status).toBe(0);

  // The validator does check: a finding state OSCAL does not know is refused.
  const doc = JSON.parse(await readFile(out, 'utf8')) as OscalAssessmentResults;
  const finding = doc['assessment-results'].results[0]?.findings[0];
  if (!finding) throw new Error('no finding');
  (finding.target.status as { state: string }).state = 'passed';
  const broken = join(root, 'broken.json');
  await writeFile(broken, JSON.stringify(doc));
  const refused = validate(broken);
  expect(refused.status).toBe(1);
  expect(refused.stderr).toContain('Schema validation failed');
}, 120_000);
