// The pack's index.html: the period's summary, every drill and every recovery plan run with its seal's check, and the
// trend charts. One self-contained page: inline CSS and SVG, no script, nothing fetched, every value escaped.
import { escapeHtml as esc, isolateHtml } from '../runtime/escape-html';
import { renderPostureChart, renderTrendChart, type PostureDimension } from './charts';
import type { DrillEntry } from './drill-index';
import { formatSeconds } from './line-chart';
import type { Verification } from './pack';
import type { PackPeriod } from './pack-period';
import type { PlanEntry } from './plan-index';
import type { PostureEntry } from './posture';
import { resourceTrends } from './trends';

/** Resources charted at most; the drills' table lists every report. */
export const PACK_CHART_RESOURCES = 40;

export interface PackPage {
  period: PackPeriod;
  createdAt: Date;
  /** Newest first. */
  drills: DrillEntry[];
  /** The recovery plan runs of the period, newest first. */
  plans: PlanEntry[];
  verification: Verification;
  /** Oldest first. */
  posture: PostureEntry[];
  /** The pack holds controls/ (--by-control): the page links its overview. */
  byControl?: boolean;
}

const DIMENSIONS: readonly PostureDimension[] = ['total', 'provider', 'type', 'environment'];

const STYLE =
  'body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:1100px}table{border-collapse:collapse;' +
  'margin-bottom:1em}th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left}th{background:#f3f3f3}' +
  '.FAIL,.failed,.chainFailed,.unsealed,.missed{color:#b71c1c;font-weight:bold}.PARTIAL{color:#e65100}' +
  '.PASS,.verified,.met{color:#1b5e20}' +
  'figure{margin:0 0 1.5em}';

// Cell text in `<bdi>` when it could reorder its neighbours (runtime/escape-html.ts).
const cell = (text: string, cls = '') => `<td${cls ? ` class="${esc(cls)}"` : ''}>${isolateHtml(text)}</td>`;
const seconds = (s: number | undefined) => (s === undefined ? 'not measured' : formatSeconds(s));

export function renderPackPage(page: PackPage): string {
  const { drills, plans, verification } = page;
  const count = (f: (d: DrillEntry) => boolean) => drills.filter(f).length;
  const verdicts = ['PASS', 'PARTIAL', 'FAIL'].map((v) => `${count((d) => d.verdict === v)} ${v}`).join(', ');
  const seals = ['verified', 'chainFailed', 'failed', 'unsealed']
    .map((s) => `${count((d) => d.seal.status === s)} ${s}`)
    .join(', ');
  const keys =
    verification.keySource === 'given'
      ? 'the public keys given when the pack was made'
      : 'the public keys found beside the reports (not obtained out of band)';
  const summary = [
    `<table id="summary"><tbody>`,
    `<tr><th>period</th>${cell(`${page.period.from} to ${page.period.to}`)}</tr>`,
    `<tr><th>pack made</th>${cell(page.createdAt.toISOString())}</tr>`,
    `<tr><th>drill reports</th>${cell(String(drills.length))}</tr>`,
    `<tr><th>verdicts</th>${cell(verdicts)}</tr>`,
    `<tr><th>seals (checked when the pack was made)</th>${cell(seals)}</tr>`,
    `<tr><th>recovery plan runs</th>${cell(planSummary(plans))}</tr>`,
    `<tr><th>checked against</th>${cell(`${keys}: ${verification.keyIds.join(', ') || 'none'}`)}</tr>`,
    `</tbody></table>`,
  ].join('\n');

  const rows = drills.map(
    (d) =>
      `<tr data-file="${esc(d.file)}">${cell(d.finishedAt)}${cell(d.name)}${cell(d.verdict, d.verdict)}` +
      `${cell(`${d.passed}/${d.total}`)}${cell(`${seconds(d.worstRpoSeconds)} (target ${formatSeconds(d.targets.rpoSeconds)})`)}` +
      `${cell(`${seconds(d.worstRtoSeconds)} (target ${formatSeconds(d.targets.rtoSeconds)})`)}` +
      `${cell(d.seal.status, d.seal.status)}<td><a href="drill-reports/${esc(encodeURIComponent(d.file))}.html">report</a></td></tr>`,
  );
  const table = drills.length
    ? `<table id="drills"><thead><tr><th>finished</th><th>drill</th><th>verdict</th><th>passed</th><th>worst RPO</th><th>worst RTO</th><th>seal</th><th></th></tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table>`
    : '<p>No drill report finished in this period.</p>';

  const planRows = plans.map(
    (p) =>
      `<tr data-file="${esc(p.file)}">${cell(p.finishedAt)}${cell(p.name)}${cell(p.mode)}${cell(p.verdict, p.verdict)}` +
      `${cell(`${formatSeconds(p.rto.seconds)} against ${formatSeconds(p.rto.targetSeconds)}`)}` +
      `${cell(p.rto.met ? 'met' : 'MISSED', p.rto.met ? 'met' : 'missed')}` +
      `${cell(p.failedSteps.map((s) => s.id).join(', '))}${cell(p.seal.status, p.seal.status)}` +
      `<td><a href="plan-reports/${esc(encodeURIComponent(p.file))}.html">report</a></td></tr>`,
  );
  const planTable = plans.length
    ? '<table id="plans"><thead><tr><th>finished</th><th>plan</th><th>mode</th><th>verdict</th><th>RTO</th>' +
      `<th>target</th><th>failed steps</th><th>seal</th><th></th></tr></thead><tbody>\n${planRows.join('\n')}\n</tbody></table>`
    : '<p>No recovery plan run finished in this period.</p>';

  const problems = verification.chains.flatMap((c) => c.problems.map((p) => ({ chain: c.chain, ...p })));
  const problemList = problems.length
    ? `<ul id="problems">${problems.map((p) => `<li>${isolateHtml(p.chain)}: ${esc(p.kind)} ${isolateHtml(p.report)}: ${isolateHtml(p.detail)}</li>`).join('')}</ul>`
    : '<p>Every chain of the period verified.</p>';

  const trends = resourceTrends(drills, Number.MAX_SAFE_INTEGER);
  const charted = trends.slice(0, PACK_CHART_RESOURCES);
  const charts = charted.map(
    (t) =>
      `<section class="resource" data-resource-id="${esc(t.resourceId)}"><h3>${isolateHtml(t.resourceName)} <small>${isolateHtml(t.resourceType)}, ${isolateHtml(t.resourceId)}</small></h3>` +
      `<figure>${renderTrendChart(t, 'rto')}</figure><figure>${renderTrendChart(t, 'rpo')}</figure></section>`,
  );
  const more =
    trends.length > charted.length
      ? `<p>${trends.length - charted.length} more resources were drilled; their figures are in the reports.</p>`
      : '';
  const posture = page.posture.length
    ? DIMENSIONS.flatMap((dim) =>
        (['unprotected', 'stale'] as const).map(
          (list) => `<figure>${renderPostureChart(page.posture, list, dim)}</figure>`,
        ),
      ).join('\n')
    : '<p>No posture report in this period.</p>';

  const title = `Evidence pack: ${page.period.from} to ${page.period.to}`;
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<title>${esc(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<h1>${esc(title)}</h1>`,
    '<section><h2>Summary</h2>',
    summary,
    '<p>Check the pack with <code>runbooks evidence verify &lt;pack.tar.gz&gt; --public-key &lt;key history&gt;</code>: it checks every file against manifest.json and every report against its seal.</p>',
    '</section>',
    ...(page.byControl
      ? [
          '<section><h2>By control</h2>\n<p><a href="controls/index.html">Each control of the catalogue</a>: what it asks, its period, the drills that satisfy it and its gaps.</p>\n</section>',
        ]
      : []),
    `<section><h2>Drills</h2>\n${table}\n</section>`,
    `<section><h2>Recovery plans</h2>\n${planTable}\n</section>`,
    `<section><h2>Chains</h2>\n${problemList}\n</section>`,
    `<section><h2>RTO and RPO per resource</h2>\n${charts.join('\n') || '<p>No resource was drilled in this period.</p>'}\n${more}</section>`,
    `<section><h2>Posture</h2>\n${posture}\n</section>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** The plan runs by verdict, and how many met their RTO target. */
function planSummary(plans: readonly PlanEntry[]): string {
  if (plans.length === 0) return '0';
  const count = (f: (p: PlanEntry) => boolean) => plans.filter(f).length;
  const verdicts = ['PASS', 'FAIL'].map((v) => `${count((p) => p.verdict === v)} ${v}`).join(', ');
  return `${plans.length}: ${verdicts}; RTO target met in ${count((p) => p.rto.met)}`;
}
