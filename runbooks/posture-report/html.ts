/** A small HTML renderer for the posture report: every text that reaches the page goes through `escapeHtml`. */
import { escapeHtml, isolateHtml } from '../../runtime/escape-html';

/** A cell's text: empty for a missing value; in `<bdi>` when it could reorder its neighbours. */
const cellText = (value: string | number | null | undefined) =>
  isolateHtml(value === null || value === undefined ? '' : String(value));

/** One table row; `header` makes its cells `th`. */
export function tableRow(cells: readonly (string | number | null | undefined)[], header = false): string {
  const tag = header ? 'th' : 'td';
  return `<tr>${cells.map((c) => `<${tag}>${cellText(c)}</${tag}>`).join('')}</tr>\n`;
}

/** A table of already rendered rows (from `tableRow`) under a header row. */
export function table(columns: readonly string[], renderedRows: string, empty: string): string {
  if (renderedRows === '') return `<p class="empty">${escapeHtml(empty)}</p>\n`;
  return `<table>\n<thead>${tableRow(columns, true)}</thead>\n<tbody>\n${renderedRows}</tbody>\n</table>\n`;
}

export function section(title: string, body: string): string {
  return `<section>\n<h2>${escapeHtml(title)}</h2>\n${body}</section>\n`;
}

const STYLE =
  'body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin-bottom:1em}' +
  'th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left}th{background:#f3f3f3}.empty{color:#666}';

/** A whole standalone page: no scripts, no external resources. */
export function page(title: string, body: string): string {
  return (
    `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>${escapeHtml(title)}</title>\n` +
    `<style>${STYLE}</style>\n</head>\n<body>\n<h1>${escapeHtml(title)}</h1>\n${body}</body>\n</html>\n`
  );
}
