import { escapeHtml as esc, isolateHtml, isolatePlain } from '../../runtime/escape-html';
import { CHART_MAX_ROWS, renderChart } from './render-chart';
import type { DrillReport, DrillResourceResult, DrillVerdict } from './report';
import { countsByType, notPassedHeading, othersNote, WORST_SHOWN, worstFirst, type TypeCounts } from './report-scale';
import {
  backupJobText,
  NEWEST_BEFORE_MEANS,
  NEWEST_BEFORE_TITLE,
  RPO_MEANS,
  RTO_MEANS,
  newestBeforeText,
  pointText,
  readingOrder,
  restoreJobText,
  rotationText,
  rpoText,
  rtoText,
  seconds,
  validationFailed,
  validationText,
  verdictLine,
} from './report-text';

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1a1a1a; margin: 24px auto; max-width: 1280px; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 8px; } h2 { font-size: 17px; margin: 28px 0 8px; }
.verdict { display: inline-block; font-size: 18px; font-weight: 700; padding: 6px 14px; border-radius: 6px; color: #fff; }
.verdict.pass { background: #2e7d32; } .verdict.partial { background: #b26a00; } .verdict.fail { background: #c62828; }
table.totals { width: auto; margin: 12px 0; } table.totals td { font-size: 18px; font-weight: 700; text-align: right; min-width: 70px; }
dl.summary { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 12px 0; }
dl.summary dt { color: #555; } dl.summary dd { margin: 0; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 5px 7px; text-align: left; vertical-align: top; }
th { background: #f3f4f6; } td { overflow-wrap: anywhere; }
tr.fail td { background: #fdecea; } tr.fail td.verdict-cell { color: #c62828; font-weight: 700; }
tr.partial td { background: #fff4e0; } tr.partial td.verdict-cell { color: #b26a00; font-weight: 700; }
td.missed { color: #c62828; font-weight: 700; } td.not-run { color: #b26a00; font-weight: 700; } .note { color: #555; }
svg.chart { font: 12px system-ui, sans-serif; max-width: 100%; height: auto; border: 1px solid #eee; }
`;

const verdictClass = (v: DrillVerdict) => v.toLowerCase();

/**
 * A self-contained page (inline CSS and SVG, no scripts, nothing fetched). It opens on the news, for a drill of
 * hundreds of resources as for one: the verdict and the totals, then what did not pass and why, then the chart and the
 * full table, both with the resources that did not pass first.
 */
export function renderHtml(report: DrillReport): string {
  const s = report.summary;
  const notPassed = readingOrder(report.resources).filter((r) => r.verdict !== 'PASS');
  const totals: [string, number | undefined][] = [
    ['Resources', s.total],
    ['Passed', s.passed],
    ['Partial', s.partial],
    ['Failed', s.failed],
  ];
  // Rendered HTML: each value from the run is isolated from the text around it (runtime/escape-html.ts).
  const facts: [string, string][] = [
    ['Drill started', isolateHtml(report.startedAt)],
    ['Drill finished', isolateHtml(report.finishedAt)],
    ['Workflow', `${isolateHtml(report.workflowId)} (run ${isolateHtml(report.runId)})`],
    ['Targets', esc(`RPO ${seconds(report.targets.rpoSeconds)}, RTO ${seconds(report.targets.rtoSeconds)}`)],
    ['Worst RPO', esc(seconds(s.worstRpoSeconds))],
    ['Worst RTO', esc(seconds(s.worstRtoSeconds))],
    ...(report.rotation ? [['Rotation', isolateHtml(rotationText(report.rotation))] as [string, string]] : []),
    ['Report schema', esc(report.schemaVersion === undefined ? 'n/a' : `version ${report.schemaVersion}`)],
  ];
  const shownTotals = totals.filter(([, n]) => n !== undefined);
  const capped = report.resources.length > CHART_MAX_ROWS;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Disaster-recovery drill ${isolatePlain(report.name)}: ${esc(s.verdict)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Disaster-recovery drill: ${isolateHtml(report.name)}</h1>
<p class="verdict ${verdictClass(s.verdict)}" id="verdict">${esc(verdictLine(report))}</p>
<table class="totals" id="totals">
<thead><tr>${shownTotals.map(([k]) => `<th>${esc(k)}</th>`).join('')}</tr></thead>
<tbody><tr>${shownTotals.map(([k, n]) => `<td data-total="${esc(k.toLowerCase())}">${n ?? ''}</td>`).join('')}</tr></tbody>
</table>
<p class="note">PASS only when every resource passed. PARTIAL: a backup or restore that ended partial; it is not
counted as passed.</p>
<dl class="summary">
${facts.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v}</dd>`).join('\n')}
</dl>
${byTypeSection(countsByType(report.resources))}${notPassedSection(notPassed, report)}
<ul class="note" id="definitions">
${[RPO_MEANS, RTO_MEANS, `${NEWEST_BEFORE_TITLE}: ${NEWEST_BEFORE_MEANS}`].map((d) => `<li>${esc(d)}</li>`).join('\n')}
</ul>
<h2>RPO and RTO per resource</h2>
${capped ? `<p class="note" id="chart-note">${esc(`The chart shows ${CHART_MAX_ROWS} of ${report.resources.length} resources, those that did not pass first; the table lists them all.`)}</p>\n` : ''}${renderChart(report)}
<h2>Resources</h2>
<table id="resources">
<thead><tr>${COLUMNS.map((c) => `<th>${esc(c)}</th>`).join('')}</tr></thead>
<tbody>
${readingOrder(report.resources).map(row).join('\n')}
</tbody>
</table>
</body>
</html>
`;
}

function byTypeSection(counts: TypeCounts[]): string {
  if (counts.length === 0) return '';
  const head = ['Type', 'Resources', 'Passed', 'Partial', 'Failed'].map((c) => `<th>${c}</th>`).join('');
  const rows = counts.map(
    (c) =>
      `<tr><td>${isolateHtml(c.resourceType)}</td><td>${c.total}</td><td>${c.passed}</td><td>${c.partial}</td><td>${c.failed}</td></tr>`,
  );
  return `<h2>By resource type</h2>\n<table id="by-type">\n<thead><tr>${head}</tr></thead>\n<tbody>\n${rows.join('\n')}\n</tbody>\n</table>\n`;
}

function notPassedSection(notPassed: DrillResourceResult[], report: DrillReport): string {
  if (notPassed.length === 0) return '';
  const resources = notPassed.length > WORST_SHOWN ? worstFirst(report).slice(0, WORST_SHOWN) : notPassed;
  const others = othersNote(notPassed.length);
  const items = resources.map(
    (r) =>
      `<li class="${verdictClass(r.verdict)}"><strong>${esc(r.verdict)} ${isolateHtml(r.resourceName)}</strong> (${isolateHtml(r.resourceType)}): ${r.reasons.map(isolateHtml).join('; ') || 'no reason given'}</li>`,
  );
  const note = others ? `\n<p class="note">${esc(others)}</p>` : '';
  return `<h2>${esc(notPassedHeading(notPassed.length))}</h2>\n<ul id="not-passed">\n${items.join('\n')}\n</ul>${note}`;
}

export const COLUMNS = [
  'Resource',
  'Type',
  'Verdict',
  'Recovery point restored',
  'RPO',
  NEWEST_BEFORE_TITLE,
  'RTO (restore + validation)',
  'Validation',
  'Backup job',
  'Restore job',
];

function row(r: DrillResourceResult): string {
  const cells: [string, string?][] = [
    [r.resourceName],
    [r.resourceType],
    [r.verdict, 'verdict-cell'],
    [pointText(r)],
    [rpoText(r), r.rpoMet === false ? 'missed' : undefined],
    [newestBeforeText(r)],
    [rtoText(r), r.rtoMet === false ? 'missed' : undefined],
    [validationText(r), validationFailed(r) ? 'missed' : r.check?.status === 'notRun' ? 'not-run' : undefined],
    [backupJobText(r)],
    [restoreJobText(r)],
  ];
  const tds = cells.map(([text, cls]) => `<td${cls ? ` class="${cls}"` : ''}>${isolateHtml(text)}</td>`).join('');
  return `<tr class="${verdictClass(r.verdict)}" data-resource-id="${esc(r.resourceId)}">${tds}</tr>`;
}
