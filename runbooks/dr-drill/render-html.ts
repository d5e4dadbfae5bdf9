import { escapeHtml as esc } from '../../runtime/escape-html';
import { duration, renderChart } from './render-chart';
import { checkText, type DrillReport, type DrillResourceResult } from './report';

/** Which restore point a resource's RPO was measured against, in words (shared by the Markdown and the page). */
export function rpoNote(r: DrillResourceResult): string {
  if (r.rpoPoint) return `snapshot ${r.rpoPoint.snapshotId} at ${r.rpoPoint.pointInTime}, the newest before the drill`;
  if (r.rpoMet === false && r.rpoSeconds === undefined) return 'no restorable snapshot before the drill began';
  if (r.snapshotPointInTime) return `the drilled snapshot at ${r.snapshotPointInTime}`;
  return 'n/a';
}

const seconds = (s: number | undefined) =>
  s === undefined ? 'n/a' : s < 120 ? `${Math.round(s)} s` : `${duration(s)} (${Math.round(s)} s)`;
const met = (ok: boolean | undefined) => (ok === undefined ? '' : ok ? ' met' : ' MISSED');

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1a1a1a; margin: 24px auto; max-width: 1100px; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 8px; } h2 { font-size: 17px; margin: 28px 0 8px; }
.verdict { display: inline-block; font-size: 18px; font-weight: 700; padding: 6px 14px; border-radius: 6px; color: #fff; }
.verdict.pass { background: #2e7d32; } .verdict.fail { background: #c62828; }
dl.summary { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 12px 0; }
dl.summary dt { color: #555; } dl.summary dd { margin: 0; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 5px 7px; text-align: left; vertical-align: top; }
th { background: #f3f4f6; } tr.fail td { background: #fdecea; } tr.fail td.verdict-cell { color: #c62828; font-weight: 700; }
td.missed { color: #c62828; font-weight: 700; } td.not-run { color: #b26a00; font-weight: 700; } .note { color: #555; }
svg.chart { font: 12px system-ui, sans-serif; max-width: 100%; height: auto; border: 1px solid #eee; }
`;

/** A self-contained page (inline CSS and SVG, no scripts, nothing fetched): summary, chart, table, failures. */
export function renderHtml(report: DrillReport): string {
  const s = report.summary;
  const verdict = `${s.verdict}: ${s.passed} of ${s.total} resources passed`;
  const failures = report.resources.filter((r) => r.verdict === 'FAIL');
  const facts: [string, string][] = [
    ['Drill started', report.startedAt],
    ['Drill finished', report.finishedAt],
    ['Workflow', `${report.workflowId} (run ${report.runId})`],
    ['Targets', `RPO ${seconds(report.targets.rpoSeconds)}, RTO ${seconds(report.targets.rtoSeconds)}`],
    ['Worst RPO', seconds(s.worstRpoSeconds)],
    ['Worst RTO', seconds(s.worstRtoSeconds)],
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(`Disaster-recovery drill ${report.name}: ${s.verdict}`)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Disaster-recovery drill: ${esc(report.name)}</h1>
<p class="verdict ${s.verdict === 'PASS' ? 'pass' : 'fail'}" id="verdict">${esc(verdict)}</p>
<dl class="summary">
${facts.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('\n')}
</dl>
<p class="note">RPO is the data-loss window the drill demonstrates: the drill's start minus the point in time of the
newest snapshot taken before the drill began. RTO is the time from the restore job's creation to its end.</p>
<h2>RPO and RTO per resource</h2>
${renderChart(report)}
<h2>Resources</h2>
<table id="resources">
<thead><tr>${COLUMNS.map((c) => `<th>${esc(c)}</th>`).join('')}</tr></thead>
<tbody>
${report.resources.map(row).join('\n')}
</tbody>
</table>
${failures.length === 0 ? '' : `<h2>Failures</h2>\n<ul id="failures">\n${failures.map((r) => `<li><strong>${esc(r.resourceName)}</strong>: ${esc(r.reasons.join('; '))}</li>`).join('\n')}\n</ul>`}
</body>
</html>
`;
}

const COLUMNS = [
  'Resource',
  'Type',
  'Verdict',
  'RPO',
  'RPO measured against',
  'RTO',
  'Check',
  'Backup job',
  'Restore job',
];

function row(r: DrillResourceResult): string {
  const check = checkText(r.check);
  const cells: [string, string?][] = [
    [r.resourceName],
    [r.resourceType],
    [r.verdict, 'verdict-cell'],
    [
      r.rpoSeconds === undefined && r.rpoMet === false ? 'MISSED' : `${seconds(r.rpoSeconds)}${met(r.rpoMet)}`,
      r.rpoMet === false ? 'missed' : undefined,
    ],
    [rpoNote(r)],
    [`${seconds(r.rtoSeconds)}${met(r.rtoMet)}`, r.rtoMet === false ? 'missed' : undefined],
    [check, r.check?.status === 'failed' ? 'missed' : r.check?.status === 'notRun' ? 'not-run' : undefined],
    [r.backupJobId ?? (r.snapshotReused ? 'reused snapshot' : 'n/a')],
    [r.restoreJobId ?? 'n/a'],
  ];
  const tds = cells.map(([text, cls]) => `<td${cls ? ` class="${cls}"` : ''}>${esc(text)}</td>`).join('');
  return `<tr class="${r.verdict === 'PASS' ? 'pass' : 'fail'}" data-resource-id="${esc(r.resourceId)}">${tds}</tr>`;
}
