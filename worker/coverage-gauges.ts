// Gauges of each drill's coverage and readiness, from the output folder's sealed drill reports: the resources in its
// scope, how many are overdue, never drilled and never passed, and its readiness score. The same figures as
// `runbooks coverage --drill <name>` and `runbooks evidence score` (history/coverage.ts, history/readiness.ts).
//
// Why here, read every few minutes, and not by the drill's report activity beside its other gauges
// (runbooks/dr-drill/metrics.ts):
// - A resource becomes overdue because time passes, not because a drill runs. A gauge set when a report is sealed
//   would keep its last value when the drill stops running (its schedule paused or broken), and the alert on overdue
//   resources would never fire for exactly the drill that most needs it. Read from the folder on a timer, the count
//   grows as the period runs out, whether or not anything runs.
// - The figures come from the history (every report of the drill, each seal checked), which lives above the runbooks
//   (history/ reads what runbooks/ write): the worker reads it as the console and the CLI do, with a DrillReader whose
//   cache checks again only the chains whose files changed, so a look costs a directory listing when nothing did.
// - Labels: the drill's name only, never a resource ID; the overdue resources are named by the console's Coverage
//   page and `runbooks coverage --drill <name>`. A drill whose reports are gone is set back to 0 rather than kept.
import { Runtime } from '@temporalio/worker';
import type { MetricGauge, MetricMeter } from '@temporalio/common';
import { RunbookMetric } from '../contracts';
import { coverageByResource, DEFAULT_COVERAGE_DAYS, rotationOf } from '../history/coverage';
import type { DrillEntry, DrillReader } from '../history/drill-index';
import { readinessOf } from '../history/readiness';

/** Read this often: a period runs out by the day, and a look is cheap when no report changed. */
export const COVERAGE_GAUGES_INTERVAL_MS = 5 * 60_000;

export interface DrillCoverageFigures {
  drill: string;
  inScope: number;
  overdue: number;
  neverDrilled: number;
  neverPassed: number;
  readinessScore: number;
}

/**
 * Per drill name (sorted), its coverage counts and readiness score at `now`, as `runbooks coverage --drill` says: over
 * a rotating drill's own period and recorded scope (those never drilled included), `withinDays` for the others.
 */
export function coverageFigures(drills: readonly DrillEntry[], now: Date, defaultDays: number): DrillCoverageFigures[] {
  const names = [...new Set(drills.map((d) => d.name))].sort();
  return names.map((drill) => {
    const withinDays = rotationOf(drills, drill)?.withinDays ?? defaultDays;
    const { counts } = coverageByResource(drills, { now, withinDays, drill });
    const score = readinessOf(
      drills.filter((d) => d.name === drill),
      { now, withinDays, name: drill },
    );
    return {
      drill,
      inScope: counts.inScope,
      overdue: counts.overdue,
      neverDrilled: counts.neverDrilled,
      neverPassed: counts.neverPassed,
      readinessScore: score.score,
    };
  });
}

type Gauges = Record<'inScope' | 'overdue' | 'neverDrilled' | 'neverPassed' | 'readinessScore', MetricGauge>;

/** Sets the gauges of each drill of `figures`, and 0 for the drills of `before` that are not in it any more. */
export class CoverageGauges {
  private gauges?: Gauges;
  private readonly seen = new Set<string>();

  constructor(private readonly meter: () => MetricMeter = () => Runtime.instance().metricMeter) {}

  private gaugesOf(): Gauges {
    if (!this.gauges) {
      const m = this.meter();
      const gauge = (name: string, type: 'int' | 'float', description: string) =>
        m.createGauge(name, type, '1', description);
      this.gauges = {
        inScope: gauge(RunbookMetric.coverageResources, 'int', "Resources in a drill's scope"),
        overdue: gauge(RunbookMetric.coverageOverdue, 'int', "Resources of a drill's scope overdue for a drill"),
        neverDrilled: gauge(RunbookMetric.coverageNeverDrilled, 'int', "Resources of a drill's scope never drilled"),
        neverPassed: gauge(
          RunbookMetric.coverageNeverPassed,
          'int',
          "Resources of a drill's scope drilled but never with a verified PASS",
        ),
        readinessScore: gauge(RunbookMetric.readinessScore, 'float', "Readiness score of a drill's scope, 0-100"),
      };
    }
    return this.gauges;
  }

  set(figures: readonly DrillCoverageFigures[]): void {
    const g = this.gaugesOf();
    const now = new Set(figures.map((f) => f.drill));
    const gone = [...this.seen].filter((d) => !now.has(d));
    const zero = (drill: string): DrillCoverageFigures => ({
      drill,
      inScope: 0,
      overdue: 0,
      neverDrilled: 0,
      neverPassed: 0,
      readinessScore: 0,
    });
    for (const f of [...figures, ...gone.map(zero)]) {
      const labels = { drill: f.drill };
      g.inScope.set(f.inScope, labels);
      g.overdue.set(f.overdue, labels);
      g.neverDrilled.set(f.neverDrilled, labels);
      g.neverPassed.set(f.neverPassed, labels);
      g.readinessScore.set(f.readinessScore, labels);
      this.seen.add(f.drill);
    }
    for (const d of gone) this.seen.delete(d);
  }
}

export interface CoverageGaugesOptions {
  /** The worker's one reader of the output folder: its cache is what makes a look cheap. */
  reader: DrillReader;
  /** The period a resource must pass within (90 days, as `runbooks coverage`). */
  withinDays?: number;
  intervalMs?: number;
  /** Whether to go on: the worker still runs. */
  running: () => boolean;
  now?: () => Date;
  gauges?: CoverageGauges;
}

/** Reads the drill reports now and every interval while `running()`; a failed read waits for the next. */
export function watchCoverage(options: CoverageGaugesOptions): { look: () => Promise<void> } {
  const gauges = options.gauges ?? new CoverageGauges();
  const now = options.now ?? (() => new Date());
  const look = async () => {
    try {
      const index = await options.reader.read();
      gauges.set(coverageFigures(index.drills, now(), options.withinDays ?? DEFAULT_COVERAGE_DAYS));
    } catch (err) {
      Runtime.instance().logger.debug('could not read the drill reports for the coverage gauges', {
        error: String(err),
      });
    }
  };
  const timer = setInterval(() => {
    if (options.running()) void look();
    else clearInterval(timer);
  }, options.intervalMs ?? COVERAGE_GAUGES_INTERVAL_MS).unref();
  void look();
  return { look };
}
