// A small inline SVG line chart: series of points over an ordinal axis (drills, reports), with optional dashed target
// lines. Every text is escaped; every point carries data-* attributes and a title, so that a test can count them.
import { escapeHtml as esc, isolatePlain } from '../runtime/escape-html';

export interface ChartPoint {
  /** The point's value; undefined leaves a gap (the point is listed in `data-missing` of its series instead). */
  value: number | undefined;
  /** The tooltip: what the point is, in words. */
  title: string;
  /** Extra data-* attributes (names without the prefix). */
  data?: Record<string, string>;
}

export interface Series {
  key: string;
  label: string;
  color: string;
  points: ChartPoint[];
  /** A target: drawn dashed, one value per x (a target can change between drills). */
  dashed?: boolean;
}

export interface LineChart {
  /** The chart's accessible name. */
  title: string;
  /** data-chart on the svg. */
  id: string;
  /** One label per x position, oldest first. */
  xLabels: string[];
  series: Series[];
  /** Formats a value on the axis and in titles. */
  format: (value: number) => string;
  height?: number;
}

const WIDTH = 720;
const LEFT = 90;
const RIGHT = 20;
const TOP = 30;
const BOTTOM = 44;
/** The legend's items go in rows of slots this wide, so that none runs past the picture's edge. */
const LEGEND_SLOT = 200;
const LEGEND_PER_ROW = Math.floor((WIDTH - LEFT - RIGHT) / LEGEND_SLOT);
const LEGEND_ROW = 16;
const LEGEND_LABEL_MAX = 30;
const fixed = (n: number) => n.toFixed(1);

/** The chart as one <svg> element. */
export function renderLineChart(chart: LineChart): string {
  const height = chart.height ?? 260;
  const n = chart.xLabels.length;
  const values = chart.series.flatMap((s) => s.points.map((p) => p.value).filter((v): v is number => v !== undefined));
  const max = Math.max(0, ...values) * 1.1 || 1;
  const plotW = WIDTH - LEFT - RIGHT;
  const plotH = height - TOP - BOTTOM;
  const x = (i: number) => LEFT + (n <= 1 ? plotW / 2 : (i / (n - 1)) * plotW);
  const y = (v: number) => TOP + plotH - (v / max) * plotH;

  const ticks = [0, 0.5, 1].map((f) => {
    const v = max * f;
    return `<g class="tick"><line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${fixed(y(v))}" y2="${fixed(y(v))}" stroke="#e0e0e0"/><text x="${LEFT - 6}" y="${fixed(y(v) + 4)}" text-anchor="end" font-size="11">${esc(chart.format(v))}</text></g>`;
  });
  // At most about ten x labels, so that they stay legible; the last ends at the axis' end, inside the picture.
  const every = Math.max(1, Math.ceil(n / 10));
  const xLabels = chart.xLabels.map((label, i) =>
    i % every === 0 || i === n - 1
      ? `<text class="x-label" x="${fixed(x(i))}" y="${height - BOTTOM + 16}" text-anchor="${i === n - 1 && n > 1 ? 'end' : 'middle'}" font-size="11">${esc(label)}</text>`
      : '',
  );
  const series = chart.series.map((s) => {
    const path: string[] = [];
    let pen = false;
    s.points.forEach((p, i) => {
      if (p.value === undefined) {
        pen = false;
        return;
      }
      path.push(`${pen ? 'L' : 'M'}${fixed(x(i))} ${fixed(y(p.value))}`);
      pen = true;
    });
    const line = path.length
      ? `<path d="${path.join(' ')}" fill="none" stroke="${esc(s.color)}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`
      : '';
    const points = s.dashed
      ? ''
      : s.points
          .map((p, i) => {
            if (p.value === undefined) return '';
            const data = Object.entries(p.data ?? {})
              .map(([k, v]) => ` data-${esc(k)}="${esc(v)}"`)
              .join('');
            return `<circle class="point" data-series="${esc(s.key)}" data-index="${i}" data-value="${p.value}"${data} cx="${fixed(x(i))}" cy="${fixed(y(p.value))}" r="4" fill="${esc(s.color)}"><title>${isolatePlain(p.title)}</title></circle>`;
          })
          .join('');
    const missing = s.points.filter((p) => p.value === undefined).length;
    return `<g class="series${s.dashed ? ' target' : ''}" data-series="${esc(s.key)}" data-missing="${missing}">${line}${points}</g>`;
  });
  const legend = chart.series.map((s, i) => {
    const left = LEFT + (i % LEGEND_PER_ROW) * LEGEND_SLOT;
    const top = height - 12 + Math.floor(i / LEGEND_PER_ROW) * LEGEND_ROW;
    const label = s.label.length > LEGEND_LABEL_MAX ? `${s.label.slice(0, LEGEND_LABEL_MAX - 1)}…` : s.label;
    return `<g class="legend-item" transform="translate(${left},${top})"><title>${isolatePlain(s.label)}</title><line x1="0" x2="18" y1="-4" y2="-4" stroke="${esc(s.color)}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/><text x="24" y="0" font-size="11">${isolatePlain(label)}</text></g>`;
  });
  // Rows of legend past the first add to the picture's height, below the plot.
  const full = height + Math.max(0, Math.ceil(chart.series.length / LEGEND_PER_ROW) - 1) * LEGEND_ROW;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart line-chart" data-chart="${esc(chart.id)}" role="img" viewBox="0 0 ${WIDTH} ${full}" width="${WIDTH}" height="${full}">`,
    `<title>${isolatePlain(chart.title)}</title>`,
    `<text x="${LEFT}" y="18" font-weight="bold" font-size="13">${isolatePlain(chart.title)}</text>`,
    ...ticks,
    `<line class="axis" x1="${LEFT}" x2="${LEFT}" y1="${TOP}" y2="${TOP + plotH}" stroke="#999"/>`,
    ...xLabels,
    ...series,
    ...legend,
    '</svg>',
  ].join('\n');
}

/** Seconds as people read a duration: 45 s, 12 min, 3.5 h, 2.1 d. */
export function formatSeconds(seconds: number): string {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  if (seconds < 48 * 3600) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86400).toFixed(1)} d`;
}
