import { MockActivityEnvironment } from '@temporalio/testing';
import { RunbookMetric } from '../../contracts';
import { gaugeMeter } from '../../test/helpers/gauge-meter';
import { recordDrill, type DrillMeasures } from './metrics';
import type { DrillResourceResult, DrillVerdict } from './report';

const resource = (resourceId: string, resourceType: string, verdict: DrillVerdict): DrillResourceResult => ({
  resourceId,
  resourceName: resourceId,
  resourceType,
  snapshotReused: false,
  verdict,
  reasons: [],
});

/** recordDrill as the report's activity calls it. */
const record = (measures: DrillMeasures) => Promise.resolve(recordDrill(measures));

function run(finishedAt: string, resources: DrillResourceResult[], worst?: number): DrillMeasures {
  const passed = resources.filter((r) => r.verdict === 'PASS').length;
  const failed = resources.filter((r) => r.verdict === 'FAIL').length;
  const verdict: DrillVerdict = failed > 0 ? 'FAIL' : passed === resources.length ? 'PASS' : 'PARTIAL';
  return {
    name: 'nightly',
    finishedAt,
    resources,
    summary: {
      total: resources.length,
      passed,
      partial: resources.length - passed - failed,
      failed,
      verdict,
      worstRpoSeconds: worst,
      worstRtoSeconds: worst,
    },
    targets: { rpoSeconds: 3600, rtoSeconds: 600 },
  };
}

test('counts every verdict of every type, 0 included, and keeps the last run when an older one is retried late', async () => {
  const { meter, values, get } = gaugeMeter('drill');
  const env = new MockActivityEnvironment(undefined, { metricMeter: meter });
  const drill = { drill: 'nightly' };

  const older = run(
    '2026-01-01T00:00:00Z',
    [resource('r-1', 'PA_VM', 'PARTIAL'), resource('r-2', 'PA_VM', 'PASS')],
    90,
  );
  await env.run(record, older);
  expect(get(RunbookMetric.drillResources, { ...drill, verdict: 'PARTIAL', resource_type: 'PA_VM' })).toBe(1);
  expect(get(RunbookMetric.drillResources, { ...drill, verdict: 'FAIL', resource_type: 'PA_VM' })).toBe(0);
  expect(get(RunbookMetric.drillVerdict, { ...drill, verdict: 'PARTIAL' })).toBe(1);
  expect(get(RunbookMetric.drillVerdict, { ...drill, verdict: 'PASS' })).toBe(0);
  expect(get(RunbookMetric.drillWorstRpo, drill)).toBe(90);

  expect(get(RunbookMetric.drillCleanPointAge, drill)).toBeNaN();

  // Nothing restored: the worst figures are NaN, not the older run's.
  const newer = run('2026-01-02T00:00:00Z', [resource('r-3', 'PA_DISK', 'FAIL')]);
  await env.run(record, newer);
  expect(get(RunbookMetric.drillWorstRpo, drill)).toBeNaN();
  expect(get(RunbookMetric.drillWorstRto, drill)).toBeNaN();
  expect(get(RunbookMetric.drillResources, { ...drill, verdict: 'PARTIAL', resource_type: 'PA_VM' })).toBe(0);
  expect(get(RunbookMetric.drillResources, { ...drill, verdict: 'PASS', resource_type: 'PA_VM' })).toBe(0);
  expect(get(RunbookMetric.drillResources, { ...drill, verdict: 'FAIL', resource_type: 'PA_DISK' })).toBe(1);
  expect(get(RunbookMetric.drillLastRun, drill)).toBe(Date.parse(newer.finishedAt) / 1000);
  const after = new Map(values);

  // A retried attempt of the older run's report activity: the newer run's figures stay.
  await env.run(record, older);
  expect(values).toEqual(after);
  // The same run again (a retried attempt of the newer one) sets the same values.
  await env.run(record, newer);
  expect(values).toEqual(after);
  // No tag names a resource.
  for (const k of values.keys()) for (const id of ['r-1', 'r-2', 'r-3']) expect(k).not.toContain(id);
});

test('a latest-clean drill sets the oldest clean point restored and how far one lay behind the newest', async () => {
  const { meter, get } = gaugeMeter('drill');
  const env = new MockActivityEnvironment(undefined, { metricMeter: meter });
  const cleanPoint = (resourceId: string, rpoSeconds: number, behind: number): DrillResourceResult => ({
    ...resource(resourceId, 'PA_RELATIONAL_DB', 'PASS'),
    rpoSeconds,
    recoveryPoint: {
      snapshotId: `s-${resourceId}`,
      pointInTime: '2026-01-01T00:00:00Z',
      selection: 'latest-clean',
      windowDays: 30,
      clean: {
        check: { name: 'intact', sha256: '0'.repeat(64) },
        verdict: 'clean as of intact',
        candidates: 8,
        examined: [],
        queries: 4,
        nonMonotone: [],
        behindNewest: { points: 2, seconds: behind },
      },
    },
  });
  const latest = { ...resource('r-3', 'PA_VM', 'PASS'), rpoSeconds: 10 };
  await env.run(
    record,
    run('2026-01-03T00:00:00Z', [cleanPoint('r-1', 7200, 86400), cleanPoint('r-2', 3600, 0), latest]),
  );
  expect(get(RunbookMetric.drillCleanPointAge, { drill: 'nightly' })).toBe(7200);
  expect(get(RunbookMetric.drillCleanPointBehind, { drill: 'nightly' })).toBe(86400);
});
