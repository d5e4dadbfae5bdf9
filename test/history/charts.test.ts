// The trend charts: one point per drill with its data, the targets dashed, and every value escaped.
import { renderPostureChart, renderTrendChart, type PostureEntry, type ResourceTrend } from '../../history';

const point = (day: string, rto: number | undefined, target = 600) => ({
  file: `drill-${day}`,
  drill: 'nightly',
  finishedAt: `${day}T03:00:00.000Z`,
  rtoSeconds: rto,
  rpoSeconds: 3600,
  rtoTargetSeconds: target,
  rpoTargetSeconds: 7200,
  rtoMet: rto === undefined ? undefined : rto <= target,
  rpoMet: true,
  verdict: 'PASS' as const,
});

const trend: ResourceTrend = {
  resourceId: 'r-1',
  resourceName: '<script>alert(1)</script>',
  resourceType: 'AWS_RDS',
  points: [point('2026-01-01', 100), point('2026-02-01', undefined), point('2026-03-01', 900)],
  drillCount: 3,
  lastDrilledAt: '2026-03-01T03:00:00.000Z',
  lastVerdict: 'PASS',
};

const points = (svg: string) =>
  [
    ...svg.matchAll(
      /<circle class="point" data-series="([^"]*)" data-index="(\d+)" data-value="([^"]*)"[^>]*data-met="([^"]*)"/g,
    ),
  ].map((m) => [m[1], Number(m[2]), Number(m[3]), m[4]]);

test('a resource RTO chart: a point per measured drill, a gap where none, the target dashed, names escaped', () => {
  const svg = renderTrendChart(trend, 'rto');
  expect(points(svg)).toEqual([
    ['rto', 0, 100, 'true'],
    ['rto', 2, 900, 'false'],
  ]);
  expect(svg).toContain('data-series="rto" data-missing="1"');
  expect(svg).toMatch(
    /<g class="series target" data-series="rto-target" data-missing="0"><path d="M[^"]+" [^>]*stroke-dasharray="6 4"/,
  );
  expect(svg).not.toContain('<script>');
  expect(svg).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  expect(svg).toContain('data-file="drill-2026-03-01"');
});

test('posture charts: one point per report and series, by dimension, values escaped', () => {
  const entry = (asOf: string, aws: number, evil: number): PostureEntry => ({
    base: `posture-${asOf}`,
    asOf,
    asOfMs: Date.parse(asOf),
    unprotected: {
      total: aws + evil,
      byProvider: { AWS: aws, '"><img src=x>': evil },
      byType: {},
      byEnvironment: {},
    },
    stale: { total: 0, byProvider: {}, byType: {}, byEnvironment: {} },
    listed: [],
  });
  const reports = [entry('2026-01-01T00:00:00.000Z', 3, 1), entry('2026-01-02T00:00:00.000Z', 2, 0)];
  const byProvider = renderPostureChart(reports, 'unprotected', 'provider');
  const series = [
    ...byProvider.matchAll(/<circle class="point" data-series="([^"]*)" data-index="(\d+)" data-value="(\d+)"/g),
  ].map((m) => [m[1], Number(m[2]), Number(m[3])]);
  expect(series).toEqual([
    ['AWS', 0, 3],
    ['AWS', 1, 2],
    ['&quot;&gt;&lt;img src=x&gt;', 0, 1],
    ['&quot;&gt;&lt;img src=x&gt;', 1, 0],
  ]);
  expect(byProvider).not.toContain('<img');
  const total = renderPostureChart(reports, 'unprotected', 'total');
  expect([...total.matchAll(/<circle class="point"/g)]).toHaveLength(2);
  expect(total).toContain('data-chart="posture-unprotected-total"');
});
