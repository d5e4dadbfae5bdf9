// Coverage and freshness per resource (history/coverage.ts): on drill entries made by hand, and on reports written and
// sealed by the drill's own activity, read back with their seals checked.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { coverageByResource } from '../../history/coverage';
import { coverageFigures } from '../../worker/coverage-gauges';
import { DrillReader } from '../../history/drill-index';
import { loadOrCreateEvidenceKey } from '../../runtime/evidence-key';
import { daysBefore, entry } from './entries';
import { measured, writeDrill } from './fixtures';

const NOW = new Date('2026-11-29T00:00:00.000Z');
const DAY_S = 86_400;

/** a covered; b overdue; c overdue and failed since; d failed only; e passed unsealed; f passed, chain broken. */
const HISTORY = [
  entry({ runId: 'r1', finishedAt: daysBefore(NOW, 200), resources: [{ id: 'c' }] }),
  entry({ runId: 'r2', finishedAt: daysBefore(NOW, 100), resources: [{ id: 'b', rtoSeconds: 900 }] }),
  entry({ runId: 'r3', finishedAt: daysBefore(NOW, 10), resources: [{ id: 'a', rtoSeconds: 300, rpoSeconds: 3600 }] }),
  entry({ runId: 'r4', finishedAt: daysBefore(NOW, 5), resources: [{ id: 'c', verdict: 'FAIL' }] }),
  entry({ runId: 'r5', finishedAt: daysBefore(NOW, 3), resources: [{ id: 'd', verdict: 'FAIL' }] }),
  entry({ name: 'weekly', runId: 'r6', finishedAt: daysBefore(NOW, 1), resources: [{ id: 'e' }], seal: 'unsealed' }),
  entry({ runId: 'r7', finishedAt: daysBefore(NOW, 20), resources: [{ id: 'f' }], seal: 'chainFailed' }),
];

test('every resource the reports name: overdue first, then due now, then by next due date', () => {
  const report = coverageByResource(HISTORY, { now: NOW });
  expect(report.withinDays).toBe(90);
  expect(report.since).toBe(daysBefore(NOW, 90));
  expect(report.resources.map((r) => [r.resourceId, r.state, r.lastFailed, r.nextDue])).toEqual([
    ['c', 'overdue', true, daysBefore(NOW, 110)],
    ['b', 'overdue', false, daysBefore(NOW, 10)],
    ['d', 'never-passed', true, NOW.toISOString()],
    ['e', 'never-passed', true, NOW.toISOString()],
    ['f', 'never-passed', true, NOW.toISOString()],
    ['a', 'covered', false, daysBefore(NOW, -80)],
  ]);
  expect(report.counts).toEqual({
    inScope: 6,
    covered: 1,
    overdue: 2,
    neverDrilled: 0,
    neverPassed: 3,
    failedLast: 4,
  });
  expect(report.resources.filter((r) => r.overdue).map((r) => r.resourceId)).toEqual(['c', 'b']);
});

test("a resource's last verified PASS, its figures and report, its last result, and its point's age now", () => {
  const report = coverageByResource(HISTORY, { now: NOW });
  const a = report.resources.find((r) => r.resourceId === 'a');
  expect(a).toEqual({
    resourceId: 'a',
    resourceName: 'a-name',
    resourceType: 'AWS_RDS',
    lastPass: {
      file: 'drill-nightly-2026-11-19--r3',
      drill: 'nightly',
      workflowId: 'drill-nightly-2026-11-19',
      runId: 'r3',
      startedAt: daysBefore(NOW, 10),
      finishedAt: daysBefore(NOW, 10),
      verdict: 'PASS',
      seal: 'verified',
      rpoSeconds: 3600,
      rtoSeconds: 300,
      rpoTargetSeconds: 172_800,
      rtoTargetSeconds: 3_600,
    },
    lastResult: expect.objectContaining({ runId: 'r3', verdict: 'PASS' }) as object,
    lastFailed: false,
    nextDue: daysBefore(NOW, -80),
    state: 'covered',
    overdue: false,
    neverDrilled: false,
    verifiedPointAgeSeconds: 10 * DAY_S + 3600,
  });
  // c passed 200 days ago, failed 5 days ago: due since day 110, its last result the FAIL.
  const c = report.resources.find((r) => r.resourceId === 'c');
  expect(c?.lastPass?.runId).toBe('r1');
  expect(c?.lastResult).toMatchObject({ runId: 'r4', verdict: 'FAIL', seal: 'verified' });
  // e's PASS is in a report without a seal: anyone could have written it, so it proves nothing.
  const e = report.resources.find((r) => r.resourceId === 'e');
  expect(e?.lastPass).toBeUndefined();
  expect(e?.lastResult).toMatchObject({ verdict: 'PASS', seal: 'unsealed' });
});

test('--drill: that drill reports and the resources they name, alone', () => {
  const weekly = coverageByResource(HISTORY, { now: NOW, drill: 'weekly' });
  expect(weekly.drill).toBe('weekly');
  expect(weekly.resources.map((r) => r.resourceId)).toEqual(['e']);
  expect(weekly.counts).toMatchObject({ inScope: 1, covered: 0, neverPassed: 1 });
  expect(coverageByResource(HISTORY, { now: NOW, drill: 'none' }).counts.inScope).toBe(0);
});

test('a shorter period: a PASS 10 days old is overdue within 7 days', () => {
  const report = coverageByResource(HISTORY, { now: NOW, withinDays: 7 });
  expect(report.resources.find((r) => r.resourceId === 'a')).toMatchObject({
    state: 'overdue',
    nextDue: daysBefore(NOW, 3),
  });
  expect(report.counts).toMatchObject({ covered: 0, overdue: 3 });
});

test('a given scope: a resource no report names is never drilled, due now, before the never passed', () => {
  const report = coverageByResource(HISTORY, { now: NOW, scope: ['a', 'z', 'd', 'z'] });
  expect(report.resources.map((r) => [r.resourceId, r.state, r.neverDrilled])).toEqual([
    ['z', 'never-drilled', true],
    ['d', 'never-passed', false],
    ['a', 'covered', false],
  ]);
  expect(report.resources[0]).toEqual({
    resourceId: 'z',
    lastFailed: false,
    nextDue: NOW.toISOString(),
    state: 'never-drilled',
    overdue: false,
    neverDrilled: true,
  });
  expect(report.counts).toEqual({ inScope: 3, covered: 1, overdue: 0, neverDrilled: 1, neverPassed: 1, failedLast: 1 });
});

test('an empty history: nothing in scope, nothing counted', () => {
  expect(coverageByResource([], { now: NOW })).toMatchObject({
    resources: [],
    counts: { inScope: 0, covered: 0, overdue: 0, neverDrilled: 0, neverPassed: 0, failedLast: 0 },
  });
});

describe('on reports written and sealed by the drill', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'coverage-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  test('a PASS counts once its seal verifies; an edited report no longer covers its resource', async () => {
    const key = await loadOrCreateEvidenceKey(join(root, 'data', 'evidence-signing-key.pem'));
    const output = join(root, 'output');
    const now = new Date();
    await writeDrill(output, key, {
      runId: 'run-1',
      finishedAt: daysBefore(now, 120),
      resources: [measured('db-1', 40, 7200), measured('db-2', 50, 7200)],
    });
    await writeDrill(output, key, {
      runId: 'run-2',
      finishedAt: daysBefore(now, 30),
      resources: [measured('db-1', 30, 3600), { ...measured('db-3', 20, 3600), verdict: 'FAIL', reasons: ['no'] }],
    });
    const file = await writeDrill(output, key, {
      name: 'weekly',
      runId: 'run-3',
      finishedAt: daysBefore(now, 2),
      resources: [measured('bucket-1', 10, 600)],
    });
    const read = async () => (await new DrillReader({ outputDir: output, publicKeys: [key.publicKey] }).read()).drills;

    const before = coverageByResource(await read(), { now });
    expect(before.resources.map((r) => [r.resourceId, r.state, r.lastPass?.runId])).toEqual([
      ['db-2', 'overdue', 'run-1'],
      ['db-3', 'never-passed', undefined],
      ['db-1', 'covered', 'run-2'],
      ['bucket-1', 'covered', 'run-3'],
    ]);
    expect(before.resources.find((r) => r.resourceId === 'db-1')?.lastPass).toMatchObject({
      rtoSeconds: 30,
      rpoSeconds: 3600,
      seal: 'verified',
      file: expect.stringContaining('run-2') as string,
    });
    expect(before.counts).toMatchObject({ inScope: 4, covered: 2, overdue: 1, neverPassed: 1 });

    // An edited report fails its seal: its PASS no longer counts.
    const json = join(output, 'drill-reports', `${file}.json`);
    await writeFile(json, (await readFile(json, 'utf8')).replace('"bucket-1"', '"bucket-1" '));
    const after = coverageByResource(await read(), { now });
    expect(after.resources.find((r) => r.resourceId === 'bucket-1')).toMatchObject({
      state: 'never-passed',
      lastFailed: true,
      lastResult: { seal: 'failed', verdict: 'PASS' },
    });
    expect(coverageByResource(await read(), { now, drill: 'weekly' }).counts).toMatchObject({ covered: 0 });
  });
});

test("a rotating drill's scope is its newest run's, those no run reached counted never drilled, over its own period", () => {
  const rotating = (runId: string, days: number, ids: string[], scopeIds: string[]) => ({
    ...entry({ name: 'estate', runId, finishedAt: daysBefore(NOW, days), resources: ids.map((id) => ({ id })) }),
    rotation: { withinDays: 30, scopeIds },
  });
  const drills = [
    rotating('e1', 40, ['p'], ['p', 'q', 'r', 's']),
    // The newest run's scope no longer holds s, and now holds t.
    rotating('e2', 2, ['q'], ['p', 'q', 'r', 't']),
  ];
  const report = coverageByResource(drills, { now: NOW, withinDays: 30, drill: 'estate' });
  expect(report.resources.map((r) => [r.resourceId, r.state])).toEqual([
    ['p', 'overdue'],
    ['r', 'never-drilled'],
    ['t', 'never-drilled'],
    ['q', 'covered'],
  ]);
  // The gauges judge each rotating drill over its own withinDays, whatever the worker's default.
  const [figures] = coverageFigures(drills, NOW, 90);
  expect(figures).toMatchObject({ drill: 'estate', inScope: 4, overdue: 1, neverDrilled: 2 });
  // An explicit scope still wins.
  expect(coverageByResource(drills, { now: NOW, drill: 'estate', scope: ['q'] }).counts.inScope).toBe(1);
});
