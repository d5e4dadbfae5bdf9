import { markdownText, renderMarkdown } from './render-markdown';
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

test('text from outside is inert: one line, Markdown punctuation escaped, HTML as entities', () => {
  expect(markdownText('a\nb\r\nc\u2028d')).toBe('a b c d');
  expect(markdownText('x|y *z* _w_ `c` [l](u) ~s~ \\')).toBe('x\\|y \\*z\\* \\_w\\_ \\`c\\` \\[l\\](u) \\~s\\~ \\\\');
  expect(markdownText('<script>alert(1)</script> & co')).toBe('&lt;script&gt;alert(1)&lt;/script&gt; &amp; co');
  expect(markdownText('vault-1 2026-11-25T01:00:00Z')).toBe('vault-1 2026-11-25T01:00:00Z');
});

test('a newline in an error message keeps the table whole, and HTML in a name never passes through', () => {
  const md = renderMarkdown(report);
  const lines = md.split('\n');
  const table = lines.filter((l) => l.startsWith('|'));
  // Header, rule and one row per resource; every row has the header's ten cells.
  expect(table).toHaveLength(3);
  const cellsOf = (line: string) => line.split(/(?<!\\)\|/).length - 2;
  expect(table.map(cellsOf)).toEqual([10, 10, 10]);
  expect(md).not.toMatch(/<(img|b|script)/);
  expect(md).toContain('&lt;img src=x onerror=alert(1)&gt; orders\\|db');
  expect(lines[0]).toBe('# Disaster-recovery drill: nightly &lt;b&gt;drill&lt;/b&gt;');
  // The failure list keeps one item per failed resource, whatever its reasons hold.
  const failures = lines.slice(lines.indexOf('## Failures') + 2).filter(Boolean);
  expect(failures).toEqual([
    '- &lt;img src=x onerror=alert(1)&gt; orders\\|db: restore failed: disk full \\| injected \\| row \\|; \\*bold\\* \\[link\\](http://evil.example)',
  ]);
});
