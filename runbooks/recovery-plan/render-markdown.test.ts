import { failedPlan, passedPlan } from '../../test/helpers/plan-reports';
import { humanDuration, isoUtc, renderPlanMarkdown, STEP_COLUMNS } from './render-markdown';

/** The cells of a table row, split on pipes that are not escaped. */
const cellsOf = (line: string) =>
  line
    .split(/(?<!\\)\|/)
    .slice(1, -1)
    .map((c) => c.trim());

/** The rows of the table under `heading`, header and separator left out. */
function tableUnder(md: string, heading: string): string[][] {
  const lines = md.split('\n');
  const from = lines.indexOf(heading);
  expect(from).toBeGreaterThanOrEqual(0);
  const start = lines.findIndex((l, i) => i > from && l.startsWith('|'));
  const rows: string[] = [];
  for (let i = start; i < lines.length && lines[i]?.startsWith('|'); i++) rows.push(lines[i] ?? '');
  return rows.slice(2).map(cellsOf);
}

describe('humanDuration and isoUtc', () => {
  test.each([
    [45, '45 s'],
    [125, '2 min 05 s'],
    [720, '12 min'],
    [3720, '1 h 02 min'],
    [90_000, '1 d 01 h'],
    [undefined, 'n/a'],
  ])('%s s reads %s', (s, text) => expect(humanDuration(s)).toBe(text));

  test('times read in UTC, whatever offset they were written with', () => {
    expect(isoUtc('2026-11-29T03:00:00+01:00')).toBe('2026-11-29T02:00:00Z');
    expect(isoUtc('2026-11-29T02:00:00.250Z')).toBe('2026-11-29T02:00:00.250Z');
    expect(isoUtc('not a time')).toBe('not a time');
  });
});

describe('a plan that passed', () => {
  const md = renderPlanMarkdown(passedPlan);

  test('the title names the plan, its mode and its verdict; no failed steps are listed', () => {
    expect(md.split('\n')[0]).toBe('# Recovery plan payments (drill): PASS');
    expect(md).toContain('**PASS**: 0 failed, 0 skipped, 8 passed of 8 steps.');
    expect(md).not.toContain('## Failed steps');
  });

  test('the RTO is read against its target, with its critical path', () => {
    expect(md).toContain('- RTO: 1 h 15 min (4500 s) against a target of 1 h 30 min (5400 s): met');
    expect(md).toContain('- Critical path: database → database-check → bucket → vm-web → settle → dns → app-check');
  });

  test.each([
    [
      '### By phase on the critical path',
      ['approval', 'restore', 'validate', 'manual', 'wait', 'waiting between steps'],
    ],
    [
      '### By step on the critical path',
      ['database', 'database-check', 'bucket', 'vm-web', 'settle', 'dns', 'app-check', 'waiting between steps'],
    ],
  ])('%s: the parts sum to the whole, and the sum line says so', (heading, labels) => {
    const rows = tableUnder(md, heading);
    const parts = rows.slice(0, -1);
    expect(parts.map((r) => r[0])).toEqual(labels);
    expect(parts.reduce((sum, r) => sum + Number(r[2]), 0)).toBe(4500);
    expect(rows[rows.length - 1]).toEqual(['**Sum**', '**1 h 15 min**', '**4500**']);
    expect(md).not.toContain('The parts sum to');
  });

  test('the common point, its skew against the bound, and each resource restored from it', () => {
    expect(md).toContain('- Common point: 2026-11-29T01:30:00Z');
    expect(md).toContain(
      '- Skew: 12 min between the oldest and the newest point chosen, within the bound of 1 h 00 min',
    );
    expect(md).toContain('- RPO: 42 min (2520 s)');
    expect(tableUnder(md, '## Common point in time')).toContainEqual([
      'web-1 (AWS\\_EC2, res-web)',
      'vm-web',
      'snap-res-web',
      '2026-11-29T01:18:00Z',
    ]);
  });

  test('every step in plan order, with its restores, its confirmation and its phases', () => {
    const rows = tableUnder(md, '## Steps');
    expect(rows.map((r) => r[0])).toEqual(passedPlan.steps.map((s) => s.id));
    for (const row of rows) expect(row).toHaveLength(STEP_COLUMNS.length);
    const bucket = rows[2] ?? [];
    expect(bucket.slice(1, 8)).toEqual([
      'restore',
      'passed',
      'database-check',
      '2026-11-29T02:22:00Z',
      '2026-11-29T02:47:00Z',
      '25 min',
      'approval 10 min, restore 15 min',
    ]);
    expect(bucket[8]).toContain('restore job job-res-bucket succeeded');
    expect(rows[6]?.[8]).toContain('confirmed by oncall-lead: payments.example.com now points');
    expect(rows[6]?.[8]).toContain('own target 10 min: met');
  });

  test('the plan that ran and the run that ran it', () => {
    expect(md).toContain(`- Plan sha256: ${passedPlan.planSha256}`);
    expect(md).toContain(`- Workflow: plan-payments-drill-2026-11-29 (run ${passedPlan.runId})`);
  });
});

describe('a plan that failed', () => {
  const md = renderPlanMarkdown(failedPlan);

  test('the failed step is named at the top with its reason, and what it skipped', () => {
    expect(md.split('\n')[0]).toBe('# Recovery plan payments (drill): FAIL');
    const failed = md.indexOf('## Failed steps');
    expect(failed).toBeGreaterThan(0);
    expect(failed).toBeLessThan(md.indexOf('- RTO:'));
    expect(md).toContain('- **vm-api**: restore job failed:');
    expect(md).toContain('Skipped, as their dependencies did not pass: settle, dns, app-check.');
    expect(md).toContain('MISSED');
  });

  test('a hostile reason stays in its cell, as text', () => {
    expect(md).not.toContain('<script>');
    expect(md).toContain('&lt;script&gt;alert(1)&lt;/script&gt; \\| disk full \\| injected \\| row \\|');
    const rows = tableUnder(md, '## Steps');
    expect(rows).toHaveLength(failedPlan.steps.length);
    for (const row of rows) expect(row).toHaveLength(STEP_COLUMNS.length);
    expect(rows.map((r) => r[2])).toEqual([
      'passed',
      'passed',
      'passed',
      'passed',
      'FAILED',
      'SKIPPED',
      'SKIPPED',
      'SKIPPED',
    ]);
    expect(rows[5]?.[9]).toBe('skipped: vm-api failed');
  });

  test('its RTO parts still sum to the whole', () => {
    const rows = tableUnder(md, '### By phase on the critical path');
    expect(rows.map((r) => r[0])).toEqual(['approval', 'restore', 'validate', 'waiting between steps', '**Sum**']);
    expect(rows[rows.length - 1]?.[2]).toBe('**3900**');
  });

  test('parts that do not add up are said not to', () => {
    const wrong = { ...failedPlan, rto: { ...failedPlan.rto, seconds: 4000 } };
    expect(renderPlanMarkdown(wrong)).toContain("The parts sum to 3900 s, not the RTO's 4000 s.");
  });
});
