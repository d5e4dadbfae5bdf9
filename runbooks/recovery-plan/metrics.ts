// A recovery plan's metrics, set by the activity that writes its report, once the report is sealed.
//
// Why there, and why gauges only (as the drill's, runbooks/dr-drill/metrics.ts):
// - The activity is never replayed, and it runs once the evidence exists: a dashboard shows what a report says.
//   Workflow code would lose the figures on a replay and record them twice on a re-executed task.
// - An activity can run twice too (a retried attempt): a gauge set twice to the same value is the same series. The
//   last run's verdict is a gauge; `runbooks_runs_finished_total{runbook="recoveryPlan"}` counts the runs.
// - Labels: the plan's name (the team's choice) and the verdict; never a step or resource ID, which would grow a series
//   per plan edit or per restored resource. Per-step figures stay in the report.
import { metricMeter } from '@temporalio/activity';
import { RunbookMetric } from '../../contracts';
import type { PlanReport } from './contract';

const VERDICTS: readonly PlanReport['verdict'][] = ['PASS', 'FAIL'];

export type PlanMeasures = Pick<
  PlanReport,
  'name' | 'finishedAt' | 'verdict' | 'failedSteps' | 'rto' | 'rpoSeconds' | 'commonPoint'
>;

/** When this process last set each plan's gauges: a retried attempt of an older run must not overwrite a newer one. */
const lastSet = new Map<string, number>();

/** Sets the last run's verdict, RTO against its target, RPO and skew of the common point, and failed steps. */
export function recordPlan({
  name,
  finishedAt,
  verdict,
  failedSteps,
  rto,
  rpoSeconds,
  commonPoint,
}: PlanMeasures): void {
  const finished = Date.parse(finishedAt);
  const before = lastSet.get(name);
  if (before !== undefined && before > finished) return;
  lastSet.set(name, finished);

  const plan = { plan: name };
  const seconds = (metric: string, description: string, value: number | undefined) =>
    // NaN when the run has no such figure (no common point): the previous run's must not linger.
    metricMeter.createGauge(metric, 'float', 's', description).set(value ?? Number.NaN, plan);
  seconds(RunbookMetric.planRto, 'RTO of the last recovery plan run', rto.seconds);
  seconds(RunbookMetric.planRtoTarget, 'RTO target of the recovery plan', rto.targetSeconds);
  seconds(RunbookMetric.planRpo, "Age of the last recovery plan run's common point at its start", rpoSeconds);
  seconds(RunbookMetric.planSkew, "Skew of the last recovery plan run's common point", commonPoint?.skewSeconds);
  metricMeter
    .createGauge(RunbookMetric.planFailedSteps, 'int', '1', 'Steps of the last recovery plan run that failed')
    .set(failedSteps.length, plan);
  const verdictGauge = metricMeter.createGauge(
    RunbookMetric.planVerdict,
    'int',
    '1',
    'Verdict of the last recovery plan run',
  );
  for (const v of VERDICTS) verdictGauge.set(v === verdict ? 1 : 0, { ...plan, verdict: v });
  seconds(RunbookMetric.planLastRun, 'When the last recovery plan run finished (Unix time)', finished / 1000);
}
