// The coverage gauges from drill reports written and sealed by the drill's own activity code: per drill (the only
// label), the resources in scope, overdue, never drilled and never passed, and the readiness score, equal to
// `runbooks coverage --drill` and `runbooks evidence score -o json` for the same folder; a drill whose reports are
// gone set back to 0; a resource that falls overdue with time counted without any drill running.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunbookMetric } from '../../contracts';
import type { CoverageOutput, EvidenceScoreOutput } from '../../operator/output-shapes';
import { DrillReader } from '../../history/drill-index';
import { loadOrCreateEvidenceKey } from '../../runtime/evidence-key';
import { CoverageGauges, watchCoverage } from '../../worker/coverage-gauges';
import { runCliInProcess } from '../helpers/cli-in-process';
import { gaugeMeter } from '../helpers/gauge-meter';
import { ago, failed, measured, writeDrill } from '../history/fixtures';

const DAY_MS = 86_400_000;

let root: string;
const output = () => join(root, 'output');

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'coverage-gauges-'));
  const key = await loadOrCreateEvidenceKey(join(root, 'evidence-signing-key.pem'));
  await writeDrill(output(), key, {
    name: 'nightly',
    runId: 'run-1',
    finishedAt: ago(120),
    resources: [measured('db-1', 40, 7200), measured('db-2', 50, 7200)],
  });
  await writeDrill(output(), key, {
    name: 'nightly',
    runId: 'run-2',
    finishedAt: ago(30),
    resources: [measured('db-1', 30, 3600), { ...failed('db-3'), reasons: ['no'] }],
  });
  await writeDrill(output(), key, {
    name: 'weekly',
    runId: 'run-3',
    finishedAt: ago(2),
    resources: [measured('bucket-1', 10, 600)],
  });
});
afterAll(() => rm(root, { recursive: true, force: true }));

function setup(now?: () => Date) {
  const m = gaugeMeter('coverage');
  const gauges = new CoverageGauges(() => m.meter);
  const { look } = watchCoverage({
    reader: new DrillReader({ outputDir: output() }),
    running: () => false,
    intervalMs: 3_600_000,
    gauges,
    ...(now ? { now } : {}),
  });
  return { ...m, gauges, look };
}

test('per drill: in scope, overdue, never drilled, never passed and the score, as the CLI computes them', async () => {
  const { get, values, look } = setup();
  await look();
  for (const drill of ['nightly', 'weekly']) {
    const cov = await runCliInProcess(['coverage', '--dir', output(), '--drill', drill, '-o', 'json']);
    const { counts } = JSON.parse(cov.stdout) as CoverageOutput;
    expect(get(RunbookMetric.coverageResources, { drill })).toBe(counts.inScope);
    expect(get(RunbookMetric.coverageOverdue, { drill })).toBe(counts.overdue);
    expect(get(RunbookMetric.coverageNeverDrilled, { drill })).toBe(counts.neverDrilled);
    expect(get(RunbookMetric.coverageNeverPassed, { drill })).toBe(counts.neverPassed);
  }
  expect(get(RunbookMetric.coverageResources, { drill: 'nightly' })).toBe(3);
  expect(get(RunbookMetric.coverageOverdue, { drill: 'nightly' })).toBe(1);
  expect(get(RunbookMetric.coverageNeverPassed, { drill: 'nightly' })).toBe(1);
  expect(get(RunbookMetric.coverageOverdue, { drill: 'weekly' })).toBe(0);

  const score = await runCliInProcess(['evidence', 'score', '--dir', output(), '-o', 'json']);
  const doc = JSON.parse(score.stdout) as EvidenceScoreOutput;
  expect(doc.drills.map((d) => d.scope)).toEqual(['nightly', 'weekly']);
  for (const d of doc.drills) expect(get(RunbookMetric.readinessScore, { drill: d.scope })).toBe(d.score);

  // Bounded labels: the drill's name only, never a resource ID.
  for (const series of values.keys())
    expect(series).toMatch(/^runbooks_(coverage|readiness)_\w+\[\["drill","\w+"\]\]$/);
});

test('a resource falls overdue as time passes, with no drill run', async () => {
  const { get, look } = setup(() => new Date(Date.now() + 80 * DAY_MS));
  await look();
  // db-1's PASS 30 days ago is 110 days old then; bucket-1's 82.
  expect(get(RunbookMetric.coverageOverdue, { drill: 'nightly' })).toBe(2);
  expect(get(RunbookMetric.coverageOverdue, { drill: 'weekly' })).toBe(0);
});

test('a drill whose reports are gone is set back to 0', () => {
  const { get, gauges } = setup();
  const figures = { inScope: 4, overdue: 2, neverDrilled: 1, neverPassed: 1, readinessScore: 55.5 };
  gauges.set([
    { drill: 'a', ...figures },
    { drill: 'b', ...figures },
  ]);
  gauges.set([{ drill: 'b', ...figures, overdue: 0 }]);
  expect(get(RunbookMetric.coverageOverdue, { drill: 'a' })).toBe(0);
  expect(get(RunbookMetric.coverageResources, { drill: 'a' })).toBe(0);
  expect(get(RunbookMetric.readinessScore, { drill: 'a' })).toBe(0);
  expect(get(RunbookMetric.coverageOverdue, { drill: 'b' })).toBe(0);
  expect(get(RunbookMetric.coverageResources, { drill: 'b' })).toBe(4);
});
