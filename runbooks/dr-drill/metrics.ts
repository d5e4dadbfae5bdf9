// A drill's metrics, set by the activity that writes its report, once the report is sealed.
//
// Why there, and why gauges only:
// - The activity is never replayed, and it runs once the evidence exists: a dashboard shows what a report says. The
//   workflow-side meter drops what a replayed task records, so a worker restart after the drill's last workflow task
//   would lose the figures; and a re-executed workflow task (a task that failed or timed out) records them again.
// - An activity can run twice too (a retried attempt, or one whose completion was lost). A gauge set twice to the
//   same value is the same series: nothing here can be doubled. A counter of runs could, so the last run's verdict is
//   a gauge; how many runs ended is already counted, by runbook, in `runbooks_runs_finished_total`.
// - Labels: the drill's name (the team's choice) and the resource type (the service's own, bounded set); never a
//   resource ID. Per-resource figures stay in the report.
import { metricMeter } from '@temporalio/activity';
import { RunbookMetric } from '../../contracts';
import type { DrillReport, DrillVerdict } from './report';

const VERDICTS: readonly DrillVerdict[] = ['PASS', 'PARTIAL', 'FAIL'];

export type DrillMeasures = Pick<DrillReport, 'name' | 'finishedAt' | 'resources' | 'summary' | 'targets'>;

/**
 * What this process last set per drill. Gauges keep their last value and cannot be removed: a resource type drilled
 * before and not in this run is set back to 0, and a retried attempt of an older run does not overwrite a newer one.
 */
const lastSet = new Map<string, { finishedAt: number; types: Set<string> }>();

/** Sets the last run's counts by verdict, its worst RPO and RTO next to their targets, and its overall verdict. */
export function recordDrill({ name, finishedAt, resources, summary, targets }: DrillMeasures): void {
  const finished = Date.parse(finishedAt);
  const before = lastSet.get(name);
  if (before && before.finishedAt > finished) return;
  const types = new Set([...(before?.types ?? []), ...resources.map((r) => r.resourceType)]);
  lastSet.set(name, { finishedAt: finished, types });

  const drill = { drill: name };
  const count = metricMeter.createGauge(RunbookMetric.drillResources, 'int', '1', 'Resources of the last drill run');
  for (const resourceType of types) {
    for (const verdict of VERDICTS) {
      const n = resources.filter((r) => r.resourceType === resourceType && r.verdict === verdict).length;
      count.set(n, { ...drill, verdict, resource_type: resourceType });
    }
  }
  const seconds = (metric: string, description: string, value: number | undefined) =>
    // NaN when no resource of the run has the figure (none was restored): the previous run's must not linger.
    metricMeter.createGauge(metric, 'float', 's', description).set(value ?? Number.NaN, drill);
  seconds(RunbookMetric.drillWorstRpo, 'Worst recovery point age of the last drill run', summary.worstRpoSeconds);
  seconds(RunbookMetric.drillRpoTarget, 'RPO target of the last drill run', targets.rpoSeconds);
  seconds(RunbookMetric.drillWorstRto, 'Worst recovery time of the last drill run', summary.worstRtoSeconds);
  seconds(RunbookMetric.drillRtoTarget, 'RTO target of the last drill run', targets.rtoSeconds);
  // A clean point's age is its resource's RPO; how far it lay behind the newest says how much the damage cost.
  const clean = resources.filter((r) => r.recoveryPoint?.selection === 'latest-clean');
  const worst = (values: (number | undefined)[]) => {
    const known = values.filter((v): v is number => v !== undefined);
    return known.length === 0 ? undefined : Math.max(...known);
  };
  seconds(
    RunbookMetric.drillCleanPointAge,
    'Age of the oldest clean point the last drill run restored',
    worst(clean.map((r) => r.rpoSeconds)),
  );
  seconds(
    RunbookMetric.drillCleanPointBehind,
    'How far the last drill run restored a clean point behind the newest point of its window',
    worst(clean.map((r) => r.recoveryPoint?.clean?.behindNewest.seconds)),
  );
  const verdictGauge = metricMeter.createGauge(RunbookMetric.drillVerdict, 'int', '1', 'Verdict of the last drill run');
  for (const verdict of VERDICTS) verdictGauge.set(verdict === summary.verdict ? 1 : 0, { ...drill, verdict });
  seconds(RunbookMetric.drillLastRun, 'When the last drill run finished (Unix time)', finished / 1000);
}
