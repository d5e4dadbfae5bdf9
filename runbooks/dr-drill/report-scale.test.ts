import { DrDrillInput } from './contract';
import { batchSizeFor, BATCH_HISTORY_BOUND } from './fan-out';
import { renderHtml } from './render-html';
import { renderMarkdown } from './render-markdown';
import type { DrillReport, DrillResourceResult } from './report';
import { countsByType, WORST_SHOWN, worstFirst } from './report-scale';
import { summarize } from './verdicts';

const targets = { rpoSeconds: 3_600, rtoSeconds: 600 };

/** Resource `i` of a drill of thousands: every 10th fails (its RTO grows with i), every 25th is partial. */
function resource(i: number): DrillResourceResult {
  const failed = i % 10 === 0;
  const partial = !failed && i % 25 === 0;
  return {
    resourceId: `r-${i}`,
    resourceName: `resource-${String(i).padStart(4, '0')}`,
    resourceType: i % 3 === 0 ? 'PA_VM' : 'PA_OBJECT_STORE',
    snapshotReused: false,
    restoreJobId: `restore-${i}`,
    rpoSeconds: 60,
    rtoSeconds: failed ? 600 + i : 100,
    verdict: failed ? 'FAIL' : partial ? 'PARTIAL' : 'PASS',
    reasons: failed ? [`RTO ${600 + i} s over target 600 s`] : partial ? ['restore partial: '] : [],
  };
}

function reportOf(count: number): DrillReport {
  const resources = Array.from({ length: count }, (_, i) => resource(i + 1));
  return {
    name: 'estate',
    workflowId: 'drill-estate',
    runId: 'run-1',
    startedAt: '2026-11-25T01:00:00Z',
    finishedAt: '2026-11-25T03:00:00Z',
    targets,
    resources,
    summary: summarize(resources),
  };
}

test('a report of 5,000 resources names the 20 worst first, counts per type, and still lists every resource', () => {
  const report = reportOf(5_000);
  const worst = worstFirst(report);
  // FAIL before PARTIAL, the furthest over the RTO target first.
  expect(worst.slice(0, 3).map((r) => r.resourceId)).toEqual(['r-5000', 'r-4990', 'r-4980']);
  expect(worst.filter((r) => r.verdict === 'FAIL')).toHaveLength(500);
  expect(worst.at(-1)?.verdict).toBe('PARTIAL');

  const markdown = renderMarkdown(report);
  const notPassed = report.summary.failed + (report.summary.partial ?? 0);
  expect(markdown).toContain(`## Worst offenders (${WORST_SHOWN} of ${notPassed} not passed)`);
  const section = markdown.slice(markdown.indexOf('## Worst offenders'), markdown.indexOf('## Resources'));
  expect(section.split('\n').filter((l) => l.startsWith('- '))).toHaveLength(WORST_SHOWN);
  expect(section.indexOf('resource-5000')).toBeLessThan(section.indexOf('resource-4990'));
  expect(markdown).toContain(`The other ${notPassed - WORST_SHOWN} resources that did not pass head the table below`);
  expect(markdown).toContain('## By resource type');
  for (const r of report.resources) expect(markdown).toContain(`restore-${r.resourceId.slice(2)} `);

  const html = renderHtml(report);
  expect(html).toContain(`<h2>Worst offenders (${WORST_SHOWN} of ${notPassed} not passed)</h2>`);
  expect(html).toContain('<table id="by-type">');
  expect(countsByType(report.resources).reduce((n, c) => n + c.total, 0)).toBe(5_000);
});

test('a report of a few resources lists every one not passed, with no per-type counts', () => {
  const markdown = renderMarkdown(reportOf(30));
  expect(markdown).toContain('## Not passed');
  expect(markdown).not.toContain('Worst offenders');
  expect(markdown).not.toContain('## By resource type');
});

test('a batch holds fewer resources the more steps each takes, and never costs more than its bound', () => {
  const base = {
    name: 'sizes',
    resources: { ids: ['a'] },
    vaultId: 'v',
    restoreAccountId: 'a',
    destination: { bucketA: { bucketName: 'b' } },
    targets: { rpoSeconds: 60, rtoSeconds: 60 },
  };
  const latest = batchSizeFor(DrDrillInput.parse(base));
  const fresh = batchSizeFor(DrDrillInput.parse({ ...base, recoveryPoint: { select: 'fresh' } }));
  const heaviest = batchSizeFor(
    DrDrillInput.parse({
      ...base,
      recoveryPoint: { select: 'fresh' },
      reuseRecentSnapshot: true,
      validation: { windowHours: 1 },
      sqlCheck: {
        databaseName: 'db',
        query: 'SELECT 1',
        expectation: 'rows >= 1',
        destination: { bucketA: { bucketName: 'q' } },
      },
    }),
  );
  expect([latest, fresh, heaviest]).toEqual([25, 14, 9]);
  // The events per resource measured fit inside: 16.9 for `latest` (test/e2e/drill-fan-out.test.ts, two lanes a
  // batch), and 52 for `fresh` in slots with workers killed (bench:reliability, kill-worker-in-estate-drill).
  expect(latest * 16.9).toBeLessThan(BATCH_HISTORY_BOUND);
  expect(fresh * 52).toBeLessThan(BATCH_HISTORY_BOUND);
});
