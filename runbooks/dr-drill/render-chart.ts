import { escapeHtml as esc } from '../../runtime/escape-html';
import type { DrillReport, DrillResourceResult } from './report';

/** Seconds for people: exact below two minutes, then minutes, hours or days with one decimal. */
export function duration(s: number): string {
  if (s < 120) return `${Math.round(s)} s`;
  if (s < 7200) return `${(s / 60).toFixed(1)} min`;
  if (s < 2 * 86400) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86400).toFixed(1)} d`;
}

interface Metric {
  key: 'rpo' | 'rto';
  title: string;
  target: number;
  value: (r: DrillResourceResult) => number | undefined;
  met: (r: DrillResourceResult) => boolean | undefined;
  color: string;
  /** Why a resource has no bar. */
  missing: (r: DrillResourceResult) => string;
}

const WIDTH = 960;
const LABEL_W = 230;
const PLOT_W = 470;
const ROW_H = 26;
const MISSED = '#c62828';

const truncate = (text: string, max = 30) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Bars of RPO and RTO per resource, one panel each (their scales differ by orders), with each target as a line. */
export function renderChart(report: DrillReport): string {
  const metrics: Metric[] = [
    {
      key: 'rpo',
      title: 'RPO: data-loss window (drill start minus the newest prior snapshot)',
      target: report.targets.rpoSeconds,
      value: (r) => r.rpoSeconds,
      met: (r) => r.rpoMet,
      color: '#1565c0',
      missing: (r) => (r.rpoMet === false ? '✗ no prior snapshot' : 'not measured'),
    },
    {
      key: 'rto',
      title: 'RTO: restore time (restore job created to ended)',
      target: report.targets.rtoSeconds,
      value: (r) => r.rtoSeconds,
      met: (r) => r.rtoMet,
      color: '#2e7d32',
      missing: () => 'no restore finished',
    },
  ];
  const legendH = 34;
  const panelH = (n: number) => 48 + n * ROW_H + 10;
  const n = report.resources.length;
  const height = legendH + metrics.length * panelH(n);
  const panels = metrics.map((m, i) => panel(m, report.resources, legendH + i * panelH(n)));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}">`,
    `<title>RPO and RTO per resource against their targets</title>`,
    legend(metrics),
    ...panels,
    '</svg>',
  ].join('\n');
}

function legend(metrics: Metric[]): string {
  const items = [
    ...metrics.map((m) => ({
      swatch: `<rect width="14" height="14" fill="${m.color}"/>`,
      text: `${m.key.toUpperCase()} met`,
    })),
    { swatch: `<rect width="14" height="14" fill="${MISSED}"/>`, text: 'missed (✗)' },
    {
      swatch: '<line x1="7" y1="-2" x2="7" y2="16" stroke="#111" stroke-width="2" stroke-dasharray="4 3"/>',
      text: 'target',
    },
  ];
  const parts = items.map(
    (item, i) =>
      `<g class="legend-item" transform="translate(${LABEL_W + i * 130},8)">${item.swatch}<text x="20" y="12">${esc(item.text)}</text></g>`,
  );
  return `<g class="legend">${parts.join('')}</g>`;
}

function panel(m: Metric, resources: DrillResourceResult[], top: number): string {
  const values = resources.flatMap((r) => {
    const v = m.value(r);
    return v === undefined ? [] : [v];
  });
  const scale = Math.max(m.target, ...values) * 1.08 || 1;
  const x = (v: number) => LABEL_W + (v / scale) * PLOT_W;
  const plotTop = top + 40;
  const plotBottom = plotTop + resources.length * ROW_H;
  const rows = resources.map((r, i) => {
    const y = plotTop + i * ROW_H;
    const value = m.value(r);
    const missed = m.met(r) === false;
    const fill = missed ? MISSED : m.color;
    const width = value === undefined ? 0 : Math.max(value > 0 ? 1 : 0, x(value) - LABEL_W);
    const text =
      value === undefined ? m.missing(r) : `${duration(value)}${missed ? ' ✗ missed' : m.met(r) ? ' ✓' : ''}`;
    return [
      `<g class="bar-row${missed ? ' missed' : ''}" data-metric="${m.key}" data-resource-id="${esc(r.resourceId)}">`,
      `<text class="name" x="${LABEL_W - 8}" y="${y + 17}" text-anchor="end"${missed ? ` fill="${MISSED}" font-weight="bold"` : ''}>${esc(truncate(r.resourceName))}<title>${esc(r.resourceName)}</title></text>`,
      `<rect class="bar ${m.key}${missed ? ' missed' : ' met'}" x="${LABEL_W}" y="${y + 4}" width="${width.toFixed(1)}" height="${ROW_H - 8}" fill="${fill}"/>`,
      `<text class="value" x="${LABEL_W + PLOT_W + 12}" y="${y + 17}"${missed ? ` fill="${MISSED}" font-weight="bold"` : ''}>${esc(text)}</text>`,
      '</g>',
    ].join('');
  });
  const tx = x(m.target).toFixed(1);
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
