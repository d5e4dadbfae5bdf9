import { v2Report, v3Report } from '../../test/helpers/drill-reports';
import { markdownText, renderMarkdown } from './render-markdown';
import { renderHtml } from './render-html';
import type { DrillReport, DrillResourceResult } from './report';

const failed: DrillResourceResult = {
  resourceId: 'r-1',
  resourceName: '<img src=x onerror=alert(1)> orders|db',
  resourceType: 'DATABASE',
  snapshotReused: false,
  backupJobId: 'job-1',
  restoreJobId: 'restore-1',
  check: {
    query: 'SELECT 1',
    expectation: 'rows >= 1',
    passed: false,
    status: 'failed',
    detail: 'query failed:\nrelation "x" missing',
  },
  verdict: 'FAIL',
  reasons: ['restore failed: disk full\r\n| injected | row |', '*bold* [link](http://evil.example)'],
};

const report: DrillReport = {
  name: 'nightly <b>drill</b>',
  workflowId: 'drill-nightly-2026-11-25',
  runId: 'run-1',
  startedAt: '2026-11-25T01:00:00Z',
  finishedAt: '2026-11-25T01:30:00Z',
  targets: { rpoSeconds: 86_400, rtoSeconds: 3_600 },
  resources: [failed],
  summary: { total: 1, passed: 0, failed: 1, verdict: 'FAIL' },
};

const tableOf = (md: string) => md.split('\n').filter((l) => l.startsWith('|'));
const cellsOf = (line: string) =>
  line
    .split(/(?<!\\)\|/)
    .slice(1, -1)
    .map((c) => c.trim());

test('text from outside is inert: one line, Markdown punctuation escaped, HTML as entities', () => {
  expect(markdownText('a\nb\r\nc\u2028d')).toBe('a b c d');
  expect(markdownText('x|y *z* _w_ `c` [l](u) ~s~ \\')).toBe('x\\|y \\*z\\* \\_w\\_ \\`c\\` \\[l\\](u) \\~s\\~ \\\\');
  expect(markdownText('<script>alert(1)</script> & co')).toBe('&lt;script&gt;alert(1)&lt;/script&gt; &amp; co');
  expect(markdownText('vault-1 2026-11-25T01:00:00Z')).toBe('vault-1 2026-11-25T01:00:00Z');
});

test('a newline in an error message keeps the table whole, and HTML in a name never passes through', () => {
  const md = renderMarkdown(report);
  const lines = md.split('\n');
  const table = tableOf(md);
  // Header, rule and one row per resource; every row has the header's ten cells.
  expect(table).toHaveLength(3);
  expect(table.map((l) => cellsOf(l).length)).toEqual([10, 10, 10]);
  expect(md).not.toMatch(/<(img|b|script)/);
  expect(md).toContain('&lt;img src=x onerror=alert(1)&gt; orders\\|db');
  expect(lines[0]).toBe('# Disaster-recovery drill: nightly &lt;b&gt;drill&lt;/b&gt;');
  // The list of what did not pass keeps one item per resource, whatever its reasons hold.
  const start = lines.indexOf('## Not passed') + 2;
  expect(lines.slice(start, lines.indexOf('', start))).toEqual([
    '- FAIL &lt;img src=x onerror=alert(1)&gt; orders\\|db: restore failed: disk full \\| injected \\| row \\|; \\*bold\\* \\[link\\](http://evil.example)',
  ]);
});

test('a version 3 report: totals first, what did not pass next, then every resource with its point, RPO, RTO parts and validation', () => {
  const md = renderMarkdown(v3Report());
  const lines = md.split('\n');
  expect(lines[2]).toBe('- Verdict: **FAIL** (2 passed, 1 partial, 2 failed of 5)');
  expect(md.indexOf('## Not passed')).toBeLessThan(md.indexOf('## Resources'));
  const start = lines.indexOf('## Not passed') + 2;
  expect(lines.slice(start, lines.indexOf('', start))).toEqual([
    '- FAIL web-vm: validation timed out; RTO 7230 s over target',
    '- FAIL archive-bucket: no recovery point in the last 30 days',
    '- PARTIAL file-share: restore partial: 3 files skipped',
  ]);
  const [header, , ...rows] = tableOf(md);
  expect(cellsOf(header ?? '')).toEqual([
    'Resource',
    'Type',
    'Verdict',
    'Recovery point restored',
    'RPO',
    'Newest snapshot before the drill (not restored)',
    'RTO (restore + validation)',
    'Validation',
    'Backup job',
    'Restore job',
  ]);
  expect(rows.map((r) => cellsOf(r).slice(0, 3))).toEqual([
    ['web-vm', 'AWS\\_EC2', 'FAIL'],
    ['archive-bucket', 'AWS\\_S3', 'FAIL'],
    ['file-share', 'AWS\\_EFS', 'PARTIAL'],
    ['orders-db', 'AWS\\_RDS', 'PASS'],
    ['&lt;img src=x onerror=alert(1)&gt; queue\\|vm', 'AWS\\_EC2', 'PASS'],
  ]);
  expect(cellsOf(rows[0] ?? '').slice(3)).toEqual([
    'snap-fresh at 2026-11-25T01:00:02.000Z (fresh: taken by the drill)',
    '0 s, target met',
    'snap-before at 2026-11-23T14:00:00.000Z, 35.0 h (126000 s) old',
    '2.0 h (7230 s) = restore 30 s + validation 2.0 h (7200 s), target MISSED',
    'external validation TIMED OUT (no answer by 2026-11-25T03:01:00.000Z)',
    'backup-fresh (JOB\\_COMPLETED)',
    'restore-fresh (JOB\\_COMPLETED)',
  ]);
  expect(cellsOf(rows[2] ?? '')[3]).toBe(
    'snap-random at 2026-11-20T01:00:00.000Z (random: 4th newest of 12 in 30 days)',
  );
  expect(cellsOf(rows[3] ?? '').slice(3, 9)).toEqual([
    'snap-latest at 2026-11-23T14:00:00.000Z (latest in 30 days)',
    '35.0 h (126000 s), target met',
    '—',
    '12 s = restore 8 s + validation 4 s, target met',
    'SQL check passed (3 rows; expected rows &gt;= 1)',
    'none: an existing snapshot',
  ]);
  expect(cellsOf(rows[4] ?? '')[7]).toBe(
    'external validation passed: "app answers &lt;script&gt;alert(1)&lt;/script&gt; \\| \\*ok\\*" (answered 2026-11-25T01:07:00.000Z)',
  );
  expect(md).not.toMatch(/<(img|script)/);
});

test('a version 2 report still renders, its RPO labelled as measured on the newest snapshot before the drill', () => {
  const md = renderMarkdown(v2Report());
  expect(md).toContain('- Verdict: **FAIL** (1 passed, 1 failed of 2)');
  const [, , ...rows] = tableOf(md);
  expect(rows.map((r) => cellsOf(r)[0])).toEqual(['never-backed-up', 'orders-db']);
  expect(cellsOf(rows[1] ?? '').slice(3, 7)).toEqual([
    'snap-drill at 2026-11-20T01:00:01.000Z (fresh: taken by the drill)',
    '35.0 h (126000 s), target met; measured on snap-prior, the newest snapshot before the drill, not the one restored',
    'snap-prior at 2026-11-18T14:00:00.000Z, 35.0 h (126000 s) old',
    '9 s (restore only), target met',
  ]);
});

test('a rotating drill says how many of its scope it took and why; the HTML says the same', () => {
  const rotation = {
    scope: 1_200,
    withinDays: 90,
    perRun: 20,
    picked: [
      { resourceId: 'a', reason: 'failed-last' as const },
      ...Array.from({ length: 19 }, (_, i) => ({ resourceId: `n${i}`, reason: 'never-drilled' as const })),
    ],
  };
  const line =
    '20 of a scope of 1,200 (at most 20 a run, every resource within 90 days): 1 failed last, 19 never drilled';
  expect(renderMarkdown({ ...v3Report(), rotation })).toContain(`- Rotation: ${line}`);
  expect(renderHtml({ ...v3Report(), rotation })).toContain(line);
  expect(renderMarkdown(v3Report())).not.toContain('Rotation');
});
