// A recovery plan's report as a page: the Markdown's content (./render-markdown.ts says it in the same words) and a
// Gantt of the steps as inline SVG. Self-contained, and fit for a strict CSP: no script, nothing fetched.
import { escapeHtml as esc, isolateHtml, isolatePlain } from '../../runtime/escape-html';
import { PLAN_PHASES, type CommonPoint, type PlanPhase, type PlanReport, type PlanStepResult } from './contract';
import {
  countsText,
  criticalPathText,
  failureReason,
  humanDuration,
  isoUtc,
  modeText,
  partsSum,
  resourceLabel,
  rpoText,
  RPO_MEANS,
  rtoLine,
  RTO_MEANS,
  rtoPhaseParts,
  rtoStepParts,
  secondsBetween,
  skewText,
  targetText,
  cleanPointTexts,
  skippedSteps,
  STEP_COLUMNS,
  stepCells,
  sumMismatch,
  type RtoPart,
} from './render-markdown';

/** The page forbids itself every script and every fetch: a value that got past escaping still could not run. */
const CSP = "default-src 'none'; style-src 'unsafe-inline'";

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1a1a1a; margin: 24px auto; max-width: 1280px; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 8px; } h2 { font-size: 17px; margin: 28px 0 8px; } h3 { font-size: 15px; margin: 16px 0 6px; }
.verdict { display: inline-block; font-size: 18px; font-weight: 700; padding: 6px 14px; border-radius: 6px; color: #fff; }
.verdict.pass { background: #2e7d32; } .verdict.fail { background: #c62828; }
dl.summary { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 12px 0; }
dl.summary dt { color: #555; } dl.summary dd { margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; font-size: 13px; } table.parts { width: auto; min-width: 320px; }
th, td { border: 1px solid #ddd; padding: 5px 7px; text-align: left; vertical-align: top; }
th { background: #f3f4f6; } td { overflow-wrap: anywhere; } td ul { margin: 0; padding-left: 16px; }
tr.sum td { font-weight: 700; } td.num { text-align: right; }
tr.failed td { background: #fdecea; } tr.failed td.status { color: #c62828; font-weight: 700; }
tr.skipped td { color: #666; background: #f7f7f7; } .missed { color: #c62828; font-weight: 700; } .note { color: #555; }
ul.failed li { color: #c62828; }
svg.gantt { font: 12px system-ui, sans-serif; max-width: 100%; height: auto; border: 1px solid #eee; }
`;

/** The Gantt's geometry, for the tests that check its x positions. */
export const GANTT = { width: 960, labelWidth: 190, plotWidth: 690, rowHeight: 24, top: 76 } as const;

export const PHASE_COLORS: Record<PlanPhase, string> = {
  approval: '#8e24aa',
  restore: '#1565c0',
  validate: '#2e7d32',
  manual: '#ef6c00',
  wait: '#78909c',
};
const FAILED = '#c62828';
const SKIPPED = '#757575';
const CRITICAL_BAND = '#fff3c4';

const truncate = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const num = (n: number) => n.toFixed(2);

/** Verdict and failures first, then the RTO and its parts, the timeline, the common point, and every step. */
export function renderPlanHtml(report: PlanReport): string {
  const facts: [string, string][] = [
    ['Mode', esc(modeText(report))],
    ['RTO', `<span${report.rto.met ? '' : ' class="missed"'}>${esc(rtoLine(report))}</span>`],
    ['Critical path', isolateHtml(criticalPathText(report))],
    ['RPO', esc(rpoText(report))],
    ['Started', isolateHtml(isoUtc(report.startedAt))],
    ['Finished', isolateHtml(isoUtc(report.finishedAt))],
    ['Plan sha256', `<code>${isolateHtml(report.planSha256)}</code>`],
    ['Workflow', `${isolateHtml(report.workflowId)} (run ${isolateHtml(report.runId)})`],
    ['Report schema', esc(`version ${report.schemaVersion}`)],
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(CSP)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Recovery plan ${isolatePlain(report.name)} (${isolatePlain(report.mode)}): ${esc(report.verdict)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Recovery plan: ${isolateHtml(report.name)} (${isolateHtml(report.mode)})</h1>
<p class="verdict ${report.verdict === 'PASS' ? 'pass' : 'fail'}" id="verdict">${esc(`${report.verdict}: ${countsText(report)}`)}</p>
${failedSection(report)}<dl class="summary">
${facts.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v}</dd>`).join('\n')}
</dl>
<ul class="note" id="definitions">
${[RTO_MEANS, RPO_MEANS].map((d) => `<li>${esc(d)}</li>`).join('\n')}
</ul>
<h2>RTO</h2>
<p id="rto">${esc(rtoLine(report))}, on the critical path ${isolateHtml(criticalPathText(report))}.</p>
${partsTable('rto-by-phase', 'By phase on the critical path', 'Phase', rtoPhaseParts(report), report.rto.seconds)}
${partsTable('rto-by-step', 'By step on the critical path', 'Step', rtoStepParts(report), report.rto.seconds)}
<h2>Timeline</h2>
<p class="note">${esc(`From the plan's start (${isoUtc(report.startedAt)}) to its finish (${isoUtc(report.finishedAt)}), one row per step in plan order; the critical path's steps are highlighted.`)}</p>
${renderGantt(report)}
${commonPointSection(report)}
<h2>Steps</h2>
<table id="steps">
<thead><tr>${STEP_COLUMNS.map((c) => `<th>${esc(c)}</th>`).join('')}</tr></thead>
<tbody>
${report.steps.map(stepRow).join('\n')}
</tbody>
</table>
</body>
</html>
`;
}

function failedSection(report: PlanReport): string {
  if (report.verdict !== 'FAIL') return '';
  const items = report.failedSteps.map(
    (id) => `<li><strong>${isolateHtml(id)}</strong>: ${isolateHtml(failureReason(report, id))}</li>`,
  );
  const skipped = skippedSteps(report);
  const note =
    skipped.length === 0
      ? ''
      : `<p class="note" id="skipped">Skipped, as their dependencies did not pass: ${skipped.map(isolateHtml).join(', ')}.</p>\n`;
  return `<h2>Failed steps</h2>\n<ul class="failed" id="failed-steps">\n${items.join('\n') || '<li>none named: see the steps below</li>'}\n</ul>\n${note}`;
}

function partsTable(id: string, title: string, first: string, parts: RtoPart[], whole: number): string {
  const rows = parts.map(
    (p) =>
      `<tr><td>${isolateHtml(p.label)}</td><td>${esc(humanDuration(p.seconds))}</td><td class="num">${Math.round(p.seconds)}</td></tr>`,
  );
  const sum = partsSum(parts);
  rows.push(
    `<tr class="sum"><td>Sum</td><td>${esc(humanDuration(sum))}</td><td class="num" data-sum="${Math.round(sum)}">${Math.round(sum)}</td></tr>`,
  );
  const mismatch = sumMismatch(parts, whole);
  return [
    `<h3>${esc(title)}</h3>`,
    `<table class="parts" id="${id}">`,
    `<thead><tr><th>${esc(first)}</th><th>Time</th><th>Seconds</th></tr></thead>`,
    `<tbody>\n${rows.join('\n')}\n</tbody>`,
    '</table>',
    ...(mismatch ? [`<p class="missed">${esc(mismatch)}</p>`] : []),
  ].join('\n');
}

function commonPointSection(report: PlanReport): string {
  const cp: CommonPoint | undefined = report.commonPoint;
  if (!cp) return '<h2>Common point in time</h2>\n<p>None: the plan restored nothing.</p>';
  const facts: [string, string][] = [
    ['Target', isolateHtml(targetText(cp))],
    ['Common point', isolateHtml(isoUtc(cp.at))],
    ['Skew', `<span${cp.skewSeconds > cp.maxSkewSeconds ? ' class="missed"' : ''}>${esc(skewText(cp))}</span>`],
    ['RPO', esc(rpoText(report))],
    ...cleanPointTexts(cp).map((line): [string, string] => ['Clean point', isolateHtml(line)]),
  ];
  const rows = cp.resources.map((r) => {
    const cells = [resourceLabel(report, r.stepId, r.resourceId), r.stepId, r.snapshotId, isoUtc(r.pointInTime)];
    return `<tr data-resource-id="${esc(r.resourceId)}">${cells.map((c) => `<td>${isolateHtml(c)}</td>`).join('')}</tr>`;
  });
  return `<h2>Common point in time</h2>
<dl class="summary" id="common-point">
${facts.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v}</dd>`).join('\n')}
</dl>
<table id="common-point-resources">
<thead><tr><th>Resource</th><th>Step</th><th>Snapshot</th><th>Point in time</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`;
}

function stepRow(step: PlanStepResult): string {
  const { cells, details } = stepCells(step);
  const tds = cells.map((text, i) => {
    const column = STEP_COLUMNS[i];
    if (column === 'Details') {
      const items = details.map((d) => `<li>${isolateHtml(d)}</li>`).join('');
      return `<td>${items ? `<ul>${items}</ul>` : '—'}</td>`;
    }
    return `<td${column === 'Status' ? ' class="status"' : ''}>${isolateHtml(text)}</td>`;
  });
  return `<tr class="${esc(step.status)}" data-step-id="${esc(step.id)}">${tds.join('')}</tr>`;
}

/** Where the timeline puts a moment: seconds since the plan's start, scaled, and kept within the plot. */
interface Scale {
  start: number;
  total: number;
  x: (seconds: number) => number;
  at: (time: string | undefined) => number | undefined;
}

function scaleOf(report: PlanReport): Scale {
  const start = Date.parse(report.startedAt);
  const finish = Date.parse(report.finishedAt);
  // A plan with no length (or unreadable times) still gets an axis: one second long.
  const total = finish > start ? (finish - start) / 1000 : 1;
  const x = (seconds: number) => GANTT.labelWidth + (Math.min(Math.max(seconds, 0), total) / total) * GANTT.plotWidth;
  return { start, total, x, at: (time) => secondsBetween(report.startedAt, time) };
}

/**
 * One row per step in plan order over the plan's start to its finish: each phase a coloured segment within the
 * step's outline, a failed step in red, a skipped one said so; the critical path's rows on a band; lines at the RTO
 * and at its target when they fall in range.
 */
export function renderGantt(report: PlanReport): string {
  const scale = scaleOf(report);
  const critical = new Set(report.rto.criticalPath);
  const { width, top, rowHeight } = GANTT;
  const bottom = top + report.steps.length * rowHeight;
  const height = bottom + 24;
  const rows = report.steps.map((s, i) => ganttRow(s, top + i * rowHeight, critical.has(s.id), scale));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="gantt" id="timeline" role="img" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">`,
    `<title>${isolatePlain(`Timeline of recovery plan ${report.name}: one row per step`)}</title>`,
    legend(),
    axis(scale, top, bottom),
    ...rows,
    ...markers(report, scale, top, bottom),
    '</svg>',
  ].join('\n');
}

function legend(): string {
  const items = [
    ...PLAN_PHASES.map((p) => ({ swatch: `<rect width="14" height="14" fill="${PHASE_COLORS[p]}"/>`, text: p })),
    { swatch: `<rect width="14" height="14" fill="none" stroke="${FAILED}" stroke-width="2"/>`, text: 'failed ✗' },
    { swatch: `<rect width="14" height="14" fill="#eee"/>`, text: 'skipped' },
    { swatch: `<rect width="14" height="14" fill="${CRITICAL_BAND}" stroke="#e0c060"/>`, text: 'critical path' },
    {
      swatch: '<line x1="7" y1="-2" x2="7" y2="16" stroke="#111" stroke-width="2" stroke-dasharray="4 3"/>',
      text: 'RTO target',
    },
    { swatch: '<line x1="7" y1="-2" x2="7" y2="16" stroke="#111" stroke-width="2"/>', text: 'RTO' },
  ];
  let x = 12;
  const parts = items.map((item) => {
    const g = `<g class="legend-item" transform="translate(${x},8)">${item.swatch}<text x="20" y="12">${esc(item.text)}</text></g>`;
    x += 36 + item.text.length * 7;
    return g;
  });
  return `<g class="legend">${parts.join('')}</g>`;
}

function axis(scale: Scale, top: number, bottom: number): string {
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const x = num(scale.x(f * scale.total));
    const label = f === 0 ? 'start' : `+${humanDuration(f * scale.total)}`;
    const anchor = f === 0 ? 'start' : f === 1 ? 'end' : 'middle';
    return `<line class="tick" x1="${x}" y1="${top - 4}" x2="${x}" y2="${bottom}" stroke="#e5e5e5"/><text class="tick-label" x="${x}" y="${top - 8}" text-anchor="${anchor}" fill="#555">${esc(label)}</text>`;
  });
  return `<g class="axis">${ticks.join('')}</g>`;
}

function ganttRow(step: PlanStepResult, y: number, critical: boolean, scale: Scale): string {
  const { width, labelWidth, rowHeight } = GANTT;
  const failed = step.status === 'failed';
  const skipped = step.status === 'skipped';
  const classes = ['gantt-row', step.status, ...(critical ? ['critical'] : [])].join(' ');
  const labelStyle = failed
    ? ` fill="${FAILED}" font-weight="bold"`
    : skipped
      ? ` fill="${SKIPPED}" font-style="italic"`
      : critical
        ? ' font-weight="bold"'
        : '';
  const mark = failed ? '✗ ' : '';
  const parts = [`<g class="${classes}" data-step-id="${esc(step.id)}" data-status="${esc(step.status)}">`];
  if (critical) {
    parts.push(
      `<rect class="critical-band" x="0" y="${y}" width="${width}" height="${rowHeight}" fill="${CRITICAL_BAND}"/>`,
    );
  }
  parts.push(
    `<text class="step-label" x="${labelWidth - 8}" y="${y + 16}" text-anchor="end"${labelStyle}>${isolatePlain(mark + truncate(step.id, 26))}<title>${isolatePlain(`${step.id}: ${step.kind}, ${step.status}`)}</title></text>`,
  );
  if (skipped) {
    const reason = step.reason ?? '';
    const note = /^skipped\b/i.test(reason) ? reason : `skipped${reason ? `: ${reason}` : ''}`;
    parts.push(
      `<text class="skipped-note" x="${labelWidth + 6}" y="${y + 16}" fill="${SKIPPED}" font-style="italic">${isolatePlain(truncate(note, 90))}</text>`,
    );
  }
  const from = scale.at(step.startedAt);
  const to = scale.at(step.endedAt);
  if (from !== undefined && to !== undefined) {
    const x0 = scale.x(from);
    const outline = failed ? `stroke="${FAILED}" stroke-width="2"` : 'stroke="#9e9e9e"';
    parts.push(
      `<rect class="span" x="${num(x0)}" y="${y + 3}" width="${num(Math.max(scale.x(to) - x0, 0))}" height="${rowHeight - 6}" fill="none" ${outline}/>`,
    );
    if (failed) {
      parts.push(
        `<text class="failed-mark" x="${num(scale.x(to) + 6)}" y="${y + 16}" fill="${FAILED}" font-weight="bold">✗ failed</text>`,
      );
    }
  }
  for (const p of step.phases) {
    const a = scale.at(p.startedAt);
    const b = scale.at(p.endedAt);
    if (a === undefined || b === undefined) continue;
    const x0 = scale.x(a);
    // A phase of a few seconds in a plan of hours stays visible.
    const w = Math.max(scale.x(b) - x0, b > a ? 1 : 0);
    const title = `${p.phase} ${humanDuration(b - a)}: ${isoUtc(p.startedAt)} to ${isoUtc(p.endedAt)}`;
    parts.push(
      `<rect class="segment phase-${esc(p.phase)}" data-phase="${esc(p.phase)}" x="${num(x0)}" y="${y + 6}" width="${num(w)}" height="${rowHeight - 12}" fill="${PHASE_COLORS[p.phase] ?? SKIPPED}"><title>${isolatePlain(title)}</title></rect>`,
    );
  }
  parts.push('</g>');
  return parts.join('');
}

/** The RTO, and its target when the plan ran that long: lines across every row. */
function markers(report: PlanReport, scale: Scale, top: number, bottom: number): string[] {
  const lines: string[] = [];
  const line = (cls: string, seconds: number, dash: string, label: string, labelY: number) => {
    const x = scale.x(seconds);
    const anchor = x > GANTT.labelWidth + GANTT.plotWidth * 0.85 ? 'end' : 'middle';
    lines.push(
      `<g class="${cls}"><line x1="${num(x)}" y1="${top - 4}" x2="${num(x)}" y2="${bottom + 2}" stroke="#111" stroke-width="2"${dash}/><text x="${num(x)}" y="${labelY}" text-anchor="${anchor}">${esc(label)}</text></g>`,
    );
  };
  const { seconds, targetSeconds } = report.rto;
  if (seconds >= 0 && seconds <= scale.total) line('rto', seconds, '', `RTO ${humanDuration(seconds)}`, top - 26);
  if (targetSeconds >= 0 && targetSeconds <= scale.total) {
    line('target', targetSeconds, ' stroke-dasharray="4 3"', `RTO target ${humanDuration(targetSeconds)}`, bottom + 16);
  }
  return lines;
}
