import { failedPlan, HOSTILE_DETAIL, passedPlan, PLAN_START } from '../../test/helpers/plan-reports';
import type { PlanReport } from './contract';
import { GANTT, renderGantt, renderPlanHtml } from './render-html';

interface Row {
  stepId: string;
  status: string;
  classes: string[];
  body: string;
}

function ganttRows(svg: string): Row[] {
  const pattern = /<g class="(gantt-row[^"]*)" data-step-id="([^"]+)" data-status="([^"]+)">(.*?)<\/g>/g;
  return [...svg.matchAll(pattern)].map((m) => ({
    classes: (m[1] ?? '').split(' '),
    stepId: m[2] ?? '',
    status: m[3] ?? '',
    body: m[4] ?? '',
  }));
}

const segmentsOf = (row: Row) =>
  [
    ...row.body.matchAll(
      /<rect class="segment phase-\w+" data-phase="(\w+)" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/g,
    ),
  ].map((m) => ({ phase: m[1], x: Number(m[2]), width: Number(m[3]) }));

/** Where a moment `seconds` into a plan of `total` seconds falls on the plot. */
const xAt = (seconds: number, total: number) => GANTT.labelWidth + (seconds / total) * GANTT.plotWidth;
const offset = (time: string | undefined) => (Date.parse(time ?? '') - Date.parse(PLAN_START)) / 1000;
const planSeconds = (r: PlanReport) => offset(r.finishedAt);

describe('the page', () => {
  const html = renderPlanHtml(passedPlan);

  test('names the plan in its title and says its verdict', () => {
    expect(html).toContain('<title>Recovery plan payments (drill): PASS</title>');
    expect(html).toContain('<p class="verdict pass" id="verdict">PASS: 0 failed, 0 skipped, 8 passed of 8 steps</p>');
    expect(html).not.toContain('id="failed-steps"');
  });

  test('is self-contained and runs no script: nothing fetched, a CSP that forbids both', () => {
    expect(html).not.toMatch(/<script|<link|<img|<iframe|\ssrc=|\shref=|url\(|@import/i);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;;`);
  });

  test('the RTO against its target, its critical path and parts that sum to it', () => {
    expect(html).toContain('1 h 15 min (4500 s) against a target of 1 h 30 min (5400 s): met');
    expect(html).toContain('database → database-check → bucket → vm-web → settle → dns → app-check');
    for (const id of ['rto-by-phase', 'rto-by-step']) {
      const table = html.slice(html.indexOf(`id="${id}"`), html.indexOf('</table>', html.indexOf(`id="${id}"`)));
      const seconds = [...table.matchAll(/<td class="num">(\d+)<\/td>/g)].map((m) => Number(m[1]));
      expect(seconds.reduce((a, b) => a + b, 0)).toBe(4500);
      expect(table).toContain('data-sum="4500"');
    }
  });

  test('the common point with its skew against the bound', () => {
    expect(html).toContain('12 min between the oldest and the newest point chosen, within the bound of 1 h 00 min');
    expect(html).toMatch(/<tr data-resource-id="res-api"><td>api-1 \(AWS_EC2, res-api\)<\/td><td>vm-api<\/td>/);
  });

  test('the steps table has a row per step in plan order, restores with their jobs', () => {
    const ids = [...html.matchAll(/<tr class="\w+" data-step-id="([^"]+)">/g)].map((m) => m[1]);
    expect(ids).toEqual(passedPlan.steps.map((s) => s.id));
    expect(html).toContain('restore job job-res-bucket succeeded');
    expect(html).toContain('confirmed by oncall-lead');
  });
});

describe('the Gantt', () => {
  const svg = renderGantt(passedPlan);
  const rows = ganttRows(svg);
  const total = planSeconds(passedPlan);

  test('one row per step, in plan order', () => {
    expect(rows.map((r) => r.stepId)).toEqual(passedPlan.steps.map((s) => s.id));
  });

  test("a segment per phase, placed in proportion to the plan's start and finish", () => {
    for (const [i, step] of passedPlan.steps.entries()) {
      const segments = segmentsOf(rows[i] as Row);
      expect(segments.map((s) => s.phase)).toEqual(step.phases.map((p) => p.phase));
      for (const [j, p] of step.phases.entries()) {
        const segment = segments[j];
        expect(segment?.x).toBeCloseTo(xAt(offset(p.startedAt), total), 1);
        expect(segment?.width).toBeCloseTo(xAt(offset(p.endedAt), total) - xAt(offset(p.startedAt), total), 1);
      }
    }
    // The bucket's approval, then its restore; the database restore starts at the plot's left edge.
    expect(segmentsOf(rows[2] as Row).map((s) => s.phase)).toEqual(['approval', 'restore']);
    expect(segmentsOf(rows[0] as Row)[0]?.x).toBe(GANTT.labelWidth);
  });

  test("the critical path's steps are highlighted, and no other", () => {
    const highlighted = rows.filter((r) => r.classes.includes('critical')).map((r) => r.stepId);
    expect(highlighted).toEqual(passedPlan.rto.criticalPath);
    expect(rows.find((r) => r.stepId === 'vm-api')?.body).not.toContain('critical-band');
  });

  test('a legend names every phase; the RTO is drawn, its target past the finish is not', () => {
    for (const phase of ['approval', 'restore', 'validate', 'manual', 'wait'])
      expect(svg).toContain(`>${phase}</text>`);
    expect(svg).toContain('<g class="rto">');
    expect(svg).toMatch(new RegExp(`<g class="rto"><line x1="${xAt(4500, total).toFixed(2)}"`));
    expect(svg).not.toContain('<g class="target">');
  });
});

describe('a plan that failed', () => {
  const html = renderPlanHtml(failedPlan);
  const rows = ganttRows(renderGantt(failedPlan));

  test('names the failed step at the top and what it skipped', () => {
    expect(html).toContain('<title>Recovery plan payments (drill): FAIL</title>');
    const failed = html.indexOf('id="failed-steps"');
    expect(failed).toBeGreaterThan(0);
    expect(failed).toBeLessThan(html.indexOf('<h2>RTO</h2>'));
    expect(html).toContain('<li><strong>vm-api</strong>: restore job failed:');
    expect(html).toContain('Skipped, as their dependencies did not pass: settle, dns, app-check.');
    expect(html).toContain('<span class="missed">1 h 05 min (3900 s) against a target of 1 h 00 min (3600 s): MISSED');
  });

  test('marks the failed step, and shows the skipped ones as skipped, without segments', () => {
    const vmApi = rows.find((r) => r.stepId === 'vm-api');
    expect(vmApi?.classes).toContain('failed');
    expect(vmApi?.body).toContain('✗ failed');
    for (const id of ['settle', 'dns', 'app-check']) {
      const row = rows.find((r) => r.stepId === id) as Row;
      expect(row.classes).toContain('skipped');
      expect(row.body).toContain('skipped: vm-api failed');
      expect(segmentsOf(row)).toHaveLength(0);
    }
    expect(rows).toHaveLength(failedPlan.steps.length);
  });

  test('draws the RTO target where it falls, within the plan', () => {
    const x = xAt(failedPlan.rto.targetSeconds, planSeconds(failedPlan));
    expect(html).toMatch(new RegExp(`<g class="target"><line x1="${x.toFixed(2)}"`));
    expect(html).toContain('RTO target 1 h 00 min');
  });

  test('escapes what the run wrote: reasons and details are text, never markup', () => {
    expect(html).not.toContain('<script>');
    expect(html).not.toContain(HOSTILE_DETAIL);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; | disk full');
    expect(html).toContain('&quot;&gt;&lt;img src=x onerror=alert(2)&gt;');
  });

  test('a hostile name stays text in the title, the headings and the SVG', () => {
    const hostile = { ...failedPlan, name: '</title><script>x</script>' };
    const page = renderPlanHtml(hostile);
    expect(page).not.toContain('<script>');
    expect(page).toContain('<title>Recovery plan &lt;/title&gt;&lt;script&gt;x&lt;/script&gt; (drill): FAIL</title>');
  });
});
