import {
  externalPassed,
  freshTimedOut,
  latestPassed,
  noPoint,
  randomPartial,
  v2Report,
  v3Report,
} from '../../test/helpers/drill-reports';
import { CHART_MAX_ROWS } from './render-chart';
import { renderHtml } from './render-html';
import type { DrillResourceResult } from './report';

/** The table's rows: the row's class, its resource ID and its cells' text, entities left as written. */
function rowsOf(html: string): { cls: string; id: string; cells: string[] }[] {
  const body = html.slice(html.indexOf('<table id="resources">'));
  return [...body.matchAll(/<tr class="([^"]*)" data-resource-id="([^"]*)">(.*?)<\/tr>/g)].map((m) => ({
    cls: m[1] ?? '',
    id: m[2] ?? '',
    cells: [...(m[3] ?? '').matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) => c[1] ?? ''),
  }));
}

const chartRows = (html: string, metric: 'rpo' | 'rto') =>
  [...html.matchAll(new RegExp(`<g class="bar-row[^"]*" data-metric="${metric}" data-resource-id="([^"]*)"`, 'g'))].map(
    (m) => m[1],
  );

test('the page opens on the verdict and the totals, PARTIAL counted apart, then what did not pass', () => {
  const html = renderHtml(v3Report());
  expect(html).toContain('<p class="verdict fail" id="verdict">FAIL: 2 passed, 1 partial, 2 failed of 5</p>');
  expect(html).toMatch(
    /<td data-total="resources">5<\/td><td data-total="passed">2<\/td><td data-total="partial">1<\/td><td data-total="failed">2<\/td>/,
  );
  const order = ['id="verdict"', 'id="totals"', 'id="not-passed"', '<svg', 'id="resources"'].map((s) =>
    html.indexOf(s),
  );
  expect(order.every((at) => at > 0)).toBe(true);
  expect([...order].sort((a, b) => a - b)).toEqual(order);
  expect(html).toContain(
    '<li class="partial"><strong>PARTIAL file-share</strong> (AWS_EFS): restore partial: 3 files skipped</li>',
  );
  const partialOnly = renderHtml(v3Report([latestPassed, randomPartial]));
  expect(partialOnly).toContain(
    '<p class="verdict partial" id="verdict">PARTIAL: 1 passed, 1 partial, 0 failed of 2</p>',
  );
});

test('each row names the point restored, RPO on it, the newest before a fresh drill apart, RTO in parts, the validation', () => {
  const rows = rowsOf(renderHtml(v3Report()));
  expect(rows.map((r) => [r.cls, r.id])).toEqual([
    ['fail', 'r-fresh'],
    ['fail', 'r-none'],
    ['partial', 'r-random'],
    ['pass', 'r-latest'],
    ['pass', 'r-external'],
  ]);
  expect(rows[0]?.cells.slice(2, 8)).toEqual([
    'FAIL',
    'snap-fresh at 2026-11-25T01:00:02.000Z (fresh: taken by the drill)',
    '0 s, target met',
    'snap-before at 2026-11-23T14:00:00.000Z, 35.0 h (126000 s) old',
    '2.0 h (7230 s) = restore 30 s + validation 2.0 h (7200 s), target MISSED',
    'external validation TIMED OUT (no answer by 2026-11-25T03:01:00.000Z)',
  ]);
  expect(rows[2]?.cells[3]).toBe('snap-random at 2026-11-20T01:00:00.000Z (random: 4th newest of 12 in 30 days)');
  expect(rows[2]?.cells[9]).toBe('restore-random (JOB_PARTIAL)');
  expect(rows[3]?.cells.slice(3, 8)).toEqual([
    'snap-latest at 2026-11-23T14:00:00.000Z (latest in 30 days)',
    '35.0 h (126000 s), target met',
    '—',
    '12 s = restore 8 s + validation 4 s, target met',
    'SQL check passed (3 rows; expected rows &gt;= 1)',
  ]);
});

test('text from outside stays text, and the page asks for nothing', () => {
  const html = renderHtml(v3Report());
  expect(html).not.toMatch(/<(script|img|link|iframe)\b/i);
  expect(html).not.toMatch(/\s(src|href)=["']/);
  expect(html).toContain('&lt;img src=x onerror=alert(1)&gt; queue|vm');
  expect(html).toContain(
    'external validation passed: &quot;app answers &lt;script&gt;alert(1)&lt;/script&gt; | *ok*&quot; (answered 2026-11-25T01:07:00.000Z)',
  );
});

test('RTO is drawn as restore then validation, against one target line', () => {
  const html = renderHtml(v3Report());
  const restore = html.match(/<rect class="bar rto restore[^"]*" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/g) ?? [];
  const validation = html.match(/<rect class="bar rto validation[^"]*" x="([\d.]+)"/g) ?? [];
  // Every restored resource has a restore part; the three validated ones a validation part after it.
  expect([restore.length, validation.length]).toEqual([4, 3]);
  const fresh = html.slice(html.indexOf('data-metric="rto" data-resource-id="r-fresh"'));
  const [, rx, rw] = /class="bar rto restore missed" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/.exec(fresh) ?? [];
  const [, vx] = /class="bar rto validation missed" x="([\d.]+)"/.exec(fresh) ?? [];
  expect(Number(vx)).toBeCloseTo(Number(rx) + Number(rw), 1);
  expect(html.match(/<line class="target rto"/g)).toHaveLength(1);
});

test('hundreds of resources: the news first in the table, the chart bounded to the ones that did not pass first', () => {
  const many: DrillResourceResult[] = Array.from({ length: 300 }, (_, i) => ({
    ...latestPassed,
    resourceId: `r-${String(i).padStart(3, '0')}`,
    resourceName: `vm-${i}`,
  }));
  const bad = [noPoint, freshTimedOut, randomPartial];
  const html = renderHtml(v3Report([...many.slice(0, 150), ...bad, ...many.slice(150), externalPassed]));
  expect(html).toContain('FAIL: 301 passed, 1 partial, 2 failed of 304');
  const rows = rowsOf(html);
  expect(rows).toHaveLength(304);
  expect(rows.slice(0, 4).map((r) => r.id)).toEqual(['r-none', 'r-fresh', 'r-random', 'r-000']);
  for (const metric of ['rpo', 'rto'] as const) {
    const charted = chartRows(html, metric);
    expect(charted).toHaveLength(CHART_MAX_ROWS);
    expect(charted.slice(0, 3)).toEqual(['r-none', 'r-fresh', 'r-random']);
  }
  expect(html).toContain(`The chart shows ${CHART_MAX_ROWS} of 304 resources, those that did not pass first`);
  expect(renderHtml(v3Report())).not.toContain('id="chart-note"');
});

test('a version 2 report still renders: RPO labelled as measured on the newest snapshot before the drill', () => {
  const html = renderHtml(v2Report());
  expect(html).toContain('<p class="verdict fail" id="verdict">FAIL: 1 passed, 1 failed of 2</p>');
  expect(html).not.toContain('data-total="partial"');
  const rows = rowsOf(html);
  expect(rows.map((r) => r.id)).toEqual(['r-vm', 'r-db']);
  expect(rows[1]?.cells.slice(3, 7)).toEqual([
    'snap-drill at 2026-11-20T01:00:01.000Z (fresh: taken by the drill)',
    '35.0 h (126000 s), target met; measured on snap-prior, the newest snapshot before the drill, not the one restored',
    'snap-prior at 2026-11-18T14:00:00.000Z, 35.0 h (126000 s) old',
    '9 s (restore only), target met',
  ]);
  expect(html).toContain('RPO: drill start minus the newest snapshot before the drill (as measured before version 3)');
});
