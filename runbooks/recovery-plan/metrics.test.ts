import { MockActivityEnvironment } from '@temporalio/testing';
import { RunbookMetric } from '../../contracts';
import { gaugeMeter } from '../../test/helpers/gauge-meter';
import { at, failedPlan, passedPlan } from '../../test/helpers/plan-reports';
import { recordPlan, type PlanMeasures } from './metrics';

/** recordPlan as the report's activity calls it. */
const record = (measures: PlanMeasures) => Promise.resolve(recordPlan(measures));
const plan = { plan: 'payments' };

test("sets the last run's verdict, RTO against its target, RPO, skew and failed steps, labelled by plan only", async () => {
  const { meter, values, get } = gaugeMeter('plan');
  const env = new MockActivityEnvironment(undefined, { metricMeter: meter });

  // failedPlan finished before passedPlan: recorded first, as it would be.
  await env.run(record, failedPlan);
  expect(get(RunbookMetric.planVerdict, { ...plan, verdict: 'FAIL' })).toBe(1);
  expect(get(RunbookMetric.planVerdict, { ...plan, verdict: 'PASS' })).toBe(0);
  expect(get(RunbookMetric.planFailedSteps, plan)).toBe(1);
  expect(get(RunbookMetric.planRto, plan)).toBe(3900);
  expect(get(RunbookMetric.planRtoTarget, plan)).toBe(3600);

  await env.run(record, passedPlan);
  expect(get(RunbookMetric.planVerdict, { ...plan, verdict: 'PASS' })).toBe(1);
  expect(get(RunbookMetric.planVerdict, { ...plan, verdict: 'FAIL' })).toBe(0);
  expect(get(RunbookMetric.planFailedSteps, plan)).toBe(0);
  expect(get(RunbookMetric.planRto, plan)).toBe(4500);
  expect(get(RunbookMetric.planRtoTarget, plan)).toBe(5400);
  expect(get(RunbookMetric.planRpo, plan)).toBe(2520);
  expect(get(RunbookMetric.planSkew, plan)).toBe(720);
  expect(get(RunbookMetric.planLastRun, plan)).toBe(Date.parse(passedPlan.finishedAt) / 1000);

  // Seven metrics, the verdict's two series: nothing else, and no step or resource in any label.
  expect(values.size).toBe(8);
  const ids = [
    ...passedPlan.steps.map((s) => s.id),
    ...(passedPlan.commonPoint?.resources ?? []).flatMap((r) => [r.resourceId, r.snapshotId]),
    passedPlan.workflowId,
    passedPlan.runId,
  ];
  for (const k of values.keys()) for (const id of ids) expect(k).not.toContain(`"${id}"`);
  for (const k of values.keys())
    expect(k).toMatch(/^runbooks_plan_\w+\[\["plan","payments"\](,\["verdict","(PASS|FAIL)"\])?\]$/);
});

test('a retried attempt of an older run keeps the newer figures; the same run again sets the same values', async () => {
  const { meter, values, get } = gaugeMeter('plan');
  const env = new MockActivityEnvironment(undefined, { metricMeter: meter });
  // A name of its own: the recorder remembers, per process, what it last set for each plan.
  const older = { ...failedPlan, name: 'retried' };
  const newer = { ...passedPlan, name: 'retried' };
  await env.run(record, older);
  await env.run(record, newer);
  const after = new Map(values);
  await env.run(record, older);
  expect(values).toEqual(after);
  expect(get(RunbookMetric.planVerdict, { plan: 'retried', verdict: 'PASS' })).toBe(1);
  await env.run(record, newer);
  expect(values).toEqual(after);
});

test("a run without a common point sets RPO and skew to NaN, not the previous run's", async () => {
  const { meter, get } = gaugeMeter('plan');
  const env = new MockActivityEnvironment(undefined, { metricMeter: meter });
  const other = { plan: 'orders' };
  await env.run(record, { ...passedPlan, name: 'orders' });
  expect(get(RunbookMetric.planSkew, other)).toBe(720);
  // Manual steps only: no restore, so no point was chosen.
  const { commonPoint: _point, rpoSeconds: _rpo, ...noPoint } = passedPlan;
  await env.run(record, { ...noPoint, name: 'orders', finishedAt: at(9000) });
  expect(get(RunbookMetric.planRpo, other)).toBeNaN();
  expect(get(RunbookMetric.planSkew, other)).toBeNaN();
  expect(get(RunbookMetric.planRto, other)).toBe(4500);
  // Each plan keeps its own series.
  expect(get(RunbookMetric.planSkew, plan)).toBeUndefined();
});
