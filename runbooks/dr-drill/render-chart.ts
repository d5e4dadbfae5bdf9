import { escapeHtml as esc, isolatePlain } from '../../runtime/escape-html';
import type { DrillReport, DrillResourceResult } from './report';
import { duration, readingOrder, restoredPoint, rpoOnNewestBefore } from './report-text';

/** At most this many resources are charted (the news first, see `readingOrder`); the table lists them all. */
export const CHART_MAX_ROWS = 40;

/** One stretch of a bar: RTO is drawn as restore then validation, so that the target is read against the whole. */
interface Segment {
  part: 'rpo' | 'restore' | 'validation';
  seconds: number;
}

interface Metric {
  key: 'rpo' | 'rto';
  title: string;
  target: number;
  value: (r: DrillResourceResult) => number | undefined;
  segments: (r: DrillResourceResult) => Segment[];
  met: (r: DrillResourceResult) => boolean | undefined;
  /** Why a resource has no bar. */
  missing: (r: DrillResourceResult) => string;
}

const WIDTH = 960;
const LABEL_W = 230;
const PLOT_W = 470;
const ROW_H = 26;
const MISSED = '#c62828';
const COLORS: Record<Segment['part'], { met: string; missed: string; label: string }> = {
  rpo: { met: '#1565c0', missed: MISSED, label: 'RPO met' },
  restore: { met: '#2e7d32', missed: MISSED, label: 'restore' },
  validation: { met: '#81c784', missed: '#ef9a9a', label: 'validation' },
};

const truncate = (text: string, max = 30) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The resources the chart shows, in its order. */
export function chartedResources(report: DrillReport): DrillResourceResult[] {
  return readingOrder(report.resources).slice(0, CHART_MAX_ROWS);
}

function rtoSegments(r: DrillResourceResult): Segment[] {
  // Reports before the RTO split measured the restore alone.
  if (r.rtoRestoreSeconds === undefined)
    return r.rtoSeconds === undefined ? [] : [{ part: 'restore', seconds: r.rtoSeconds }];
  const parts: Segment[] = [{ part: 'restore', seconds: r.rtoRestoreSeconds }];
  if (r.rtoValidationSeconds !== undefined) parts.push({ part: 'validation', seconds: r.rtoValidationSeconds });
  return parts;
}

/** Bars of RPO and RTO per resource, one panel each (their scales differ by orders), with each target as a line. */
export function renderChart(report: DrillReport): string {
  const metrics: Metric[] = [
    {
      key: 'rpo',
      title: report.resources.some(rpoOnNewestBefore)
        ? 'RPO: drill start minus the newest snapshot before the drill (as measured before version 3)'
        : "RPO: drill start minus the restored recovery point's point in time",
      target: report.targets.rpoSeconds,
      value: (r) => r.rpoSeconds,
      segments: (r) => (r.rpoSeconds === undefined ? [] : [{ part: 'rpo', seconds: r.rpoSeconds }]),
      met: (r) => r.rpoMet,
      missing: (r) =>
        r.rpoMet === false ? '✗ no recovery point' : restoredPoint(r) ? 'not measured' : 'no recovery point restored',
    },
    {
      key: 'rto',
      title: 'RTO: restore requested to service verified (restore + validation)',
      target: report.targets.rtoSeconds,
      value: (r) => r.rtoSeconds,
      segments: rtoSegments,
      met: (r) => r.rtoMet,
      missing: () => 'no restore finished',
    },
  ];
  const resources = chartedResources(report);
  const legendH = 34;
  const panelH = (n: number) => 48 + n * ROW_H + 10;
  const n = resources.length;
  const height = legendH + metrics.length * panelH(n);
  const panels = metrics.map((m, i) => panel(m, resources, legendH + i * panelH(n)));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}">`,
    `<title>RPO and RTO per resource against their targets</title>`,
    legend(),
    ...panels,
    '</svg>',
  ].join('\n');
}

function legend(): string {
  const items = [
    ...Object.values(COLORS).map((c) => ({ swatch: `<rect width="14" height="14" fill="${c.met}"/>`, text: c.label })),
    { swatch: `<rect width="14" height="14" fill="${MISSED}"/>`, text: 'missed (✗)' },
    {
      swatch: '<line x1="7" y1="-2" x2="7" y2="16" stroke="#111" stroke-width="2" stroke-dasharray="4 3"/>',
      text: 'target',
    },
  ];
  const parts = items.map(
    (item, i) =>
      `<g class="legend-item" transform="translate(${LABEL_W + i * 120},8)">${item.swatch}<text x="20" y="12">${esc(item.text)}</text></g>`,
  );
  return `<g class="legend">${parts.join('')}</g>`;
}

function panel(m: Metric, resources: DrillResourceResult[], top: number): string {
  const totals = resources.map((r) => m.segments(r).reduce((sum, s) => sum + s.seconds, 0));
  const scale = Math.max(m.target, ...resources.map((r) => m.value(r) ?? 0), ...totals) * 1.08 || 1;
  const w = (v: number) => (v / scale) * PLOT_W;
  const plotTop = top + 40;
  const plotBottom = plotTop + resources.length * ROW_H;
  const rows = resources.map((r, i) => {
    const y = plotTop + i * ROW_H;
    const value = m.value(r);
    const missed = m.met(r) === false;
    let x = LABEL_W;
    const bars = m.segments(r).map((s) => {
      const width = Math.max(s.seconds > 0 ? 1 : 0, w(s.seconds));
      const fill = missed ? COLORS[s.part].missed : COLORS[s.part].met;
      const part = s.part === m.key ? '' : ` ${s.part}`;
      const rect = `<rect class="bar ${m.key}${part}${missed ? ' missed' : ' met'}" x="${x.toFixed(1)}" y="${y + 4}" width="${width.toFixed(1)}" height="${ROW_H - 8}" fill="${fill}"><title>${esc(`${s.part} ${duration(s.seconds)}`)}</title></rect>`;
      x += width;
      return rect;
    });
    // A row without a value still gets an empty bar, so that every row has one to find.
    if (bars.length === 0) {
      bars.push(`<rect class="bar ${m.key} none" x="${LABEL_W}" y="${y + 4}" width="0" height="${ROW_H - 8}"/>`);
    }
    const text =
      value === undefined ? m.missing(r) : `${duration(value)}${missed ? ' ✗ missed' : m.met(r) ? ' ✓' : ''}`;
    return [
      `<g class="bar-row${missed ? ' missed' : ''}" data-metric="${m.key}" data-resource-id="${esc(r.resourceId)}">`,
      `<text class="name" x="${LABEL_W - 8}" y="${y + 17}" text-anchor="end"${missed ? ` fill="${MISSED}" font-weight="bold"` : ''}>${isolatePlain(truncate(r.resourceName))}<title>${isolatePlain(r.resourceName)}</title></text>`,
      ...bars,
      `<text class="value" x="${LABEL_W + PLOT_W + 12}" y="${y + 17}"${missed ? ` fill="${MISSED}" font-weight="bold"` : ''}>${esc(text)}</text>`,
      '</g>',
    ].join('');
  });
  const tx = (LABEL_W + w(m.target)).toFixed(1);
  return [
    `<g class="panel" data-metric="${m.key}">`,
    `<text class="panel-title" x="12" y="${top + 20}" font-weight="bold">${esc(m.title)}</text>`,
    `<line class="axis" x1="${LABEL_W}" y1="${plotTop - 4}" x2="${LABEL_W}" y2="${plotBottom}" stroke="#999"/>`,
    ...rows,
    `<line class="target ${m.key}" x1="${tx}" y1="${plotTop - 6}" x2="${tx}" y2="${plotBottom + 2}" stroke="#111" stroke-width="2" stroke-dasharray="4 3"/>`,
    `<text class="target-label" x="${tx}" y="${plotTop - 10}" text-anchor="middle">target ${esc(duration(m.target))}</text>`,
    '</g>',
  ].join('\n');
}
