// The rotation's choice of the next resources to drill, run against the coverage the reports would give, day after
// day: every resource of the scope drilled once before any twice, a failure drilled again at the next run.
import { coverageByResource, type ResourceCoverage } from '../../history/coverage';
import type { DrillEntry } from '../../history/drill-index';
import { nextToDrill } from '../../history/rotation';
import { entry } from './entries';

const DAY_MS = 86_400_000;
const START = Date.parse('2026-01-01T02:00:00Z');

/** A verified report of drill `rotation` with `results`, finished on `day`. */
const report = (day: number, results: { id: string; verdict: 'PASS' | 'FAIL' }[]): DrillEntry =>
  entry({
    name: 'rotation',
    runId: `run-${day}`,
    finishedAt: new Date(START + day * DAY_MS).toISOString(),
    resources: results,
  });

const scopeOf = (n: number) => Array.from({ length: n }, (_, i) => `res-${String(i).padStart(5, '0')}`);

function coverageOn(day: number, reports: DrillEntry[], scope: string[]): ResourceCoverage[] {
  return coverageByResource(reports, { now: new Date(START + day * DAY_MS + 3_600_000), withinDays: 90, scope })
    .resources;
}

test('1,200 resources, 20 a run, daily for 90 days: each drilled once before any twice, none overdue at the end', () => {
  const scope = scopeOf(1_200);
  const reports: DrillEntry[] = [];
  const drilled = new Map<string, number>();
  for (let day = 0; day < 90; day++) {
    const picks = nextToDrill(coverageOn(day, reports, scope), 20);
    expect(picks.length).toBeLessThanOrEqual(20);
    for (const p of picks) {
      // Nobody twice before everybody once.
      if (drilled.size < scope.length) expect(drilled.has(p.resourceId)).toBe(false);
      drilled.set(p.resourceId, (drilled.get(p.resourceId) ?? 0) + 1);
    }
    reports.push(
      report(
        day,
        picks.map((p) => ({ id: p.resourceId, verdict: 'PASS' })),
      ),
    );
  }
  expect(drilled.size).toBe(1_200);
  const end = coverageByResource(reports, { now: new Date(START + 90 * DAY_MS), withinDays: 90, scope });
  expect(end.counts.overdue).toBe(0);
  expect(end.counts.neverDrilled).toBe(0);
});

test('a resource that fails is drilled again at the next run, ahead of those never drilled', () => {
  const scope = scopeOf(50);
  const first = nextToDrill(coverageOn(0, [], scope), 5);
  expect(first.map((p) => p.reason)).toEqual(Array(5).fill('never-drilled'));
  const failing = first[2]?.resourceId ?? '';
  const reports = [
    report(
      0,
      first.map((p) => ({ id: p.resourceId, verdict: p.resourceId === failing ? 'FAIL' : 'PASS' })),
    ),
  ];
  const second = nextToDrill(coverageOn(1, reports, scope), 5);
  expect(second[0]).toEqual({ resourceId: failing, reason: 'failed-last' });
  expect(second.slice(1).every((p) => p.reason === 'never-drilled')).toBe(true);
});

test('once all are drilled, the oldest verified PASS goes first', () => {
  const scope = scopeOf(4);
  const reports = [
    report(0, [{ id: 'res-00002', verdict: 'PASS' }]),
    report(1, [{ id: 'res-00000', verdict: 'PASS' }]),
    report(2, [
      { id: 'res-00003', verdict: 'PASS' },
      { id: 'res-00001', verdict: 'PASS' },
    ]),
  ];
  expect(nextToDrill(coverageOn(3, reports, scope), 3).map((p) => p.resourceId)).toEqual([
    'res-00002',
    'res-00000',
    'res-00001',
  ]);
});
