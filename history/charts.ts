// The history's charts: a resource's RTO and RPO over its drills against their targets, and posture counts over time.
import { renderLineChart, formatSeconds, type Series } from './line-chart';
import type { PostureCount, PostureEntry } from './posture';
import type { ResourceTrend, TrendPoint } from './trends';

const RTO_COLOR = '#1565c0';
const RPO_COLOR = '#2e7d32';
const TOTAL_COLOR = '#c62828';
const COLORS = ['#1565c0', '#c62828', '#2e7d32', '#6a1b9a', '#ef6c00', '#00838f', '#5d4037', '#ad1457'];
const TARGET = '#111111';
const day = (iso: string) => iso.slice(0, 10);

/** One chart of a resource's RTO or RPO over its last drills, the target dashed. */
export function renderTrendChart(trend: ResourceTrend, metric: 'rto' | 'rpo'): string {
  const name = metric.toUpperCase();
  const value = (p: TrendPoint) => (metric === 'rto' ? p.rtoSeconds : p.rpoSeconds);
  const target = (p: TrendPoint) => (metric === 'rto' ? p.rtoTargetSeconds : p.rpoTargetSeconds);
  const met = (p: TrendPoint) => (metric === 'rto' ? p.rtoMet : p.rpoMet);
  const measured: Series = {
    key: metric,
    label: name,
    color: metric === 'rto' ? RTO_COLOR : RPO_COLOR,
    points: trend.points.map((p) => {
      const v = value(p);
      const verdict = met(p) === false ? 'missed' : met(p) ? 'met' : 'not judged';
      return {
        value: v,
        title: `${p.drill}, ${p.finishedAt}: ${name} ${v === undefined ? 'not measured' : formatSeconds(v)} (${verdict}; target ${formatSeconds(target(p))})`,
        data: { file: p.file, 'finished-at': p.finishedAt, met: String(met(p) ?? 'unknown') },
      };
    }),
  };
  const targets: Series = {
    key: `${metric}-target`,
    label: `${name} target`,
    color: TARGET,
    dashed: true,
    points: trend.points.map((p) => ({ value: target(p), title: `target ${formatSeconds(target(p))}` })),
  };
  return renderLineChart({
    id: `${metric}-trend`,
    title: `${name} of ${trend.resourceName} over its last ${trend.points.length} drill${trend.points.length === 1 ? '' : 's'}`,
    xLabels: trend.points.map((p) => day(p.finishedAt)),
    series: [measured, targets],
    format: formatSeconds,
  });
}

export type PostureDimension = 'total' | 'provider' | 'type' | 'environment';
type ByField = 'byProvider' | 'byType' | 'byEnvironment';
const BY: Record<Exclude<PostureDimension, 'total'>, ByField> = {
  provider: 'byProvider',
  type: 'byType',
  environment: 'byEnvironment',
};

/** At most this many lines per chart: the values with the highest latest count, the rest summed as "other". */
export const MAX_SERIES = 6;

/**
 * Unprotected or stale resources over the posture reports, one line per provider, type or environment (or the
 * total), in report order.
 */
export function renderPostureChart(
  reports: readonly PostureEntry[],
  list: 'unprotected' | 'stale',
  dimension: PostureDimension,
): string {
  const counts = reports.map((r) => r[list]);
  let series: Series[];
  if (dimension === 'total') {
    series = [
      {
        key: 'total',
        label: list,
        color: TOTAL_COLOR,
        points: counts.map((c, i) => point(reports[i], c.total, list, 'all')),
      },
    ];
  } else {
    const field = BY[dimension];
    // Own keys only: a value named `constructor` absent from a report is 0 there, not Object's constructor.
    const countOf = (c: PostureCount, value: string) => (Object.hasOwn(c[field], value) ? (c[field][value] ?? 0) : 0);
    const latest = counts.at(-1);
    const values = [...new Set(counts.flatMap((c) => Object.keys(c[field])))].sort(
      (a, b) => (latest ? countOf(latest, b) - countOf(latest, a) : 0) || a.localeCompare(b),
    );
    const shown = values.length > MAX_SERIES ? values.slice(0, MAX_SERIES - 1) : values;
    const rest = values.filter((v) => !shown.includes(v));
    series = shown.map((value, i) => ({
      key: value,
      label: value,
      color: COLORS[i % COLORS.length] ?? RTO_COLOR,
      points: counts.map((c, j) => point(reports[j], countOf(c, value), list, value)),
    }));
    if (rest.length > 0) {
      series.push({
        key: '(other)',
        label: `${rest.length} other`,
        color: '#9e9e9e',
        points: counts.map((c, j) =>
          point(
            reports[j],
            rest.reduce((sum, v) => sum + countOf(c, v), 0),
            list,
            '(other)',
          ),
        ),
      });
    }
  }
  return renderLineChart({
    id: `posture-${list}-${dimension}`,
    title: `${list === 'unprotected' ? 'Unprotected' : 'Stale'} resources over time${dimension === 'total' ? '' : ` by ${dimension}`}`,
    xLabels: reports.map((r) => day(r.asOf)),
    series,
    format: (v) => String(Math.round(v)),
  });
}

function point(report: PostureEntry | undefined, value: number, list: string, series: string) {
  return {
    value,
    title: `${report?.asOf ?? ''}: ${value} ${list} (${series})`,
    data: { report: report?.base ?? '', 'as-of': report?.asOf ?? '' },
  };
}
