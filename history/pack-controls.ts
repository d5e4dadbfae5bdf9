// An evidence pack laid out per control (`evidence pack --by-control`): for each control of the catalogue, a JSON
// file and a page with what it asks, its period, the packed drills that satisfy it (by path and sha256) and the
// resources that lack one, judged by the gate's rule (history/control-evaluation.ts) on the packed drills as of the
// end of the pack's period; and controls/index.html, the overview. Every value on the pages is escaped.
import { escapeHtml as esc, isolateHtml } from '../runtime/escape-html';
import { sha256 } from '../runtime/evidence-seal';
import type { Control } from './controls';
import { controlFileName, evaluateControls, evaluationText, type ControlEvaluation } from './control-evaluation';
import type { DrillEntry } from './drill-index';
import { GATE_STATUS_TEXT, type GateReport, type GateStatus } from './gate';
import type { PackPeriod } from './pack-period';
import type { TarEntry } from './tar';

export const PACK_CONTROLS = 'controls';
export const CONTROL_FILE_FORMAT = 'runbooks-evidence-pack-control/1';
const INDEX = `${PACK_CONTROLS}/index.html`;

/** What the manifest says of the by-control layout: the files under controls/ are these controls', and no others. */
export interface ByControlManifest {
  /** The time each control's period counts back from: the end of the pack's period. */
  asOf: string;
  /** The control IDs, as their files are named. */
  controls: string[];
}

/** A packed report file, by its path in the pack and its sha256. */
export interface PackedFileRef {
  path: string;
  sha256: string;
}

export interface ControlFileDrill {
  /** The report's JSON in the pack, with its sha256: what satisfies the control. */
  report: PackedFileRef;
  /** Its page in the pack. */
  html?: string;
  workflowId: string;
  runId: string;
  finishedAt: string;
  resourceIds: string[];
}

export interface ControlFileGap {
  resourceId: string;
  resourceName?: string;
  status: GateStatus;
  reason?: string;
  /** The packed report its status comes from, when one names it. */
  decidedBy?: PackedFileRef & { finishedAt: string };
  lastVerifiedPass?: PackedFileRef & { finishedAt: string };
}

/** `controls/<control id>.json`. */
export interface ControlFile {
  format: typeof CONTROL_FILE_FORMAT;
  control: Control;
  period: { days: number; basis: 'stated' | 'chosen' | 'given'; since: string; asOf: string; text: string };
  /** `reports`: every resource the packed drills name. */
  scope: 'reports';
  satisfied: boolean;
  reason: string;
  resources: number;
  satisfyingDrills: ControlFileDrill[];
  gaps: ControlFileGap[];
}

export const controlJsonPath = (control: Control) => `${PACK_CONTROLS}/${controlFileName(control)}.json`;
export const controlHtmlPath = (control: Control) => `${PACK_CONTROLS}/${controlFileName(control)}.html`;

/** The files a manifest's by-control layout accounts for: nothing else may be under controls/. */
export function byControlPaths(byControl: ByControlManifest | undefined): Set<string> {
  if (!byControl) return new Set();
  const ids = byControl.controls.filter((id) => typeof id === 'string');
  return new Set([INDEX, ...ids.flatMap((id) => [`${PACK_CONTROLS}/${id}.json`, `${PACK_CONTROLS}/${id}.html`])]);
}

export interface ControlPackInput {
  controls: readonly Control[];
  /** The packed drills (as checked when the pack is made), newest first. */
  drills: readonly DrillEntry[];
  /** The pack's files so far: the reports are linked by their path and sha256 here. */
  entries: readonly TarEntry[];
  period: PackPeriod;
  reportsFolder: string;
}

/** The files of the by-control layout, and what the manifest says of it. */
export function controlPackEntries(input: ControlPackInput): { entries: TarEntry[]; manifest: ByControlManifest } {
  const nowMs = input.period.endMs;
  const digests = new Map(input.entries.map((e) => [e.path, sha256(e.data)]));
  const ref = (file: string): PackedFileRef => {
    const path = `${input.reportsFolder}/${file}.json`;
    return { path, sha256: digests.get(path) ?? '' };
  };
  const linked = (r: GateReport | undefined) => (r ? { ...ref(r.file), finishedAt: r.finishedAt } : undefined);
  const evaluations = evaluateControls(input.controls, input.drills, { nowMs });
  const asOf = new Date(nowMs).toISOString();

  const files: ControlFile[] = evaluations.map((e) => ({
    format: CONTROL_FILE_FORMAT,
    control: e.control,
    period: {
      days: e.period.days,
      basis: e.period.basis,
      since: new Date(e.period.sinceMs).toISOString(),
      asOf,
      text: e.period.text,
    },
    scope: 'reports',
    satisfied: e.satisfied,
    reason: evaluationText(e, 'the packed drills name'),
    resources: e.resources.length,
    satisfyingDrills: e.satisfyingDrills.map((d) => {
      const html = `${input.reportsFolder}/${d.file}.html`;
      return {
        report: ref(d.file),
        ...(digests.has(html) ? { html } : {}),
        workflowId: d.workflowId,
        runId: d.runId,
        finishedAt: d.finishedAt,
        resourceIds: d.resourceIds,
      };
    }),
    gaps: e.gaps.map((g) => {
      const decidedBy = linked(g.decidedBy);
      const lastVerifiedPass = linked(g.lastVerifiedPass);
      return {
        resourceId: g.resourceId,
        ...(g.resourceName === undefined ? {} : { resourceName: g.resourceName }),
        status: g.status,
        ...(g.reason === undefined ? {} : { reason: g.reason }),
        ...(decidedBy ? { decidedBy } : {}),
        ...(lastVerifiedPass ? { lastVerifiedPass } : {}),
      };
    }),
  }));

  const entries: TarEntry[] = [{ path: INDEX, data: Buffer.from(renderIndex(evaluations, input.period, asOf)) }];
  for (const file of files) {
    entries.push({ path: controlJsonPath(file.control), data: Buffer.from(JSON.stringify(file, null, 2) + '\n') });
    entries.push({ path: controlHtmlPath(file.control), data: Buffer.from(renderControl(file, input.period)) });
  }
  return { entries, manifest: { asOf, controls: input.controls.map(controlFileName) } };
}

const STYLE =
  'body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:1100px}table{border-collapse:collapse;' +
  'margin-bottom:1em}th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}' +
  'th{background:#f3f3f3}.not-satisfied{color:#b71c1c;font-weight:bold}.satisfied{color:#1b5e20}code{font-size:.9em}';

const cell = (text: string, cls = '') => `<td${cls ? ` class="${esc(cls)}"` : ''}>${isolateHtml(text)}</td>`;
const state = (satisfied: boolean) => (satisfied ? 'satisfied' : 'not-satisfied');
/** A link from controls/ to a file of the pack. */
const up = (path: string) => `../${path.split('/').map(encodeURIComponent).join('/')}`;

function document(title: string, body: string[]): string {
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
    ...body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

const NOTE =
  '<p>Each control is judged on the drills in this pack alone, by the rule of <code>runbooks evidence gate</code>: ' +
  "satisfied when every resource the packed drills name has a verified PASS within the control's period, counted " +
  'back from the end of the pack. A drill before the start of the pack does not count here: make the pack span the ' +
  "longest period to see it. These pages are summaries, covered by manifest.json; the reports' seals are the " +
  'evidence.</p>';

function renderIndex(evaluations: readonly ControlEvaluation[], period: PackPeriod, asOf: string): string {
  const rows = evaluations.map((e) => {
    const c = e.control;
    const link = `<a href="${esc(encodeURIComponent(controlFileName(c)))}.html">${isolateHtml(c.id)}</a>`;
    return (
      `<tr data-control="${esc(c.id)}"><td>${link}</td>${cell(`${c.framework} ${c.source.clause}`)}${cell(c.title)}` +
      `${cell(e.period.text)}${cell(state(e.satisfied), state(e.satisfied))}` +
      `${cell(String(e.satisfyingDrills.length))}${cell(String(e.gaps.length))}</tr>`
    );
  });
  return document(`Evidence by control: ${period.from} to ${period.to}`, [
    `<p>As of ${esc(asOf)}. <a href="../index.html">The pack's summary</a>.</p>`,
    NOTE,
    '<table id="controls"><thead><tr><th>control</th><th>source</th><th>title</th><th>period</th><th>status</th>' +
      '<th>satisfying drills</th><th>gaps</th></tr></thead><tbody>',
    ...rows,
    '</tbody></table>',
  ]);
}

function renderControl(file: ControlFile, period: PackPeriod): string {
  const c = file.control;
  const drills = file.satisfyingDrills.map(
    (d) =>
      `<tr data-file="${esc(d.report.path)}">${cell(d.finishedAt)}${cell(d.workflowId)}` +
      `<td><a href="${esc(up(d.report.path))}">${isolateHtml(d.report.path)}</a>` +
      `${d.html ? ` (<a href="${esc(up(d.html))}">page</a>)` : ''}</td>` +
      `<td><code>${esc(d.report.sha256)}</code></td>${cell(d.resourceIds.join(', '))}</tr>`,
  );
  const gaps = file.gaps.map(
    (g) =>
      `<tr data-resource-id="${esc(g.resourceId)}">${cell(g.resourceName ?? g.resourceId)}${cell(g.resourceId)}` +
      `${cell(GATE_STATUS_TEXT[g.status], 'not-satisfied')}${cell(g.reason ?? '')}` +
      `<td>${g.decidedBy ? `<a href="${esc(up(g.decidedBy.path))}">${isolateHtml(g.decidedBy.path)}</a>` : ''}</td></tr>`,
  );
  return document(`${c.framework} ${c.source.clause}: ${c.title}`, [
    `<p><a href="index.html">Every control</a> · <a href="../index.html">The pack's summary</a></p>`,
    '<table id="control"><tbody>',
    `<tr><th>ID</th>${cell(c.id)}</tr>`,
    `<tr><th>what it asks</th>${cell(c.asks)}</tr>`,
    `<tr><th>source</th>${cell(c.source.reference)}</tr>`,
    `<tr><th>period</th>${cell(`${file.period.text}: ${c.evidence.within.note}`)}</tr>`,
    `<tr><th>counted</th>${cell(`${file.period.since} to ${file.period.asOf} (pack: ${period.from} to ${period.to})`)}</tr>`,
    `<tr><th>status</th>${cell(state(file.satisfied), state(file.satisfied))}</tr>`,
    `<tr><th>why</th>${cell(file.reason)}</tr>`,
    `<tr><th>review</th>${cell(c.evidence.reviewer ? 'asked for: attach the review of the results, which no report shows' : 'not asked for')}</tr>`,
    `<tr><th>not shown by the reports</th>${cell(c.notShown)}</tr>`,
    '</tbody></table>',
    '<h2>Satisfying drills</h2>',
    drills.length
      ? '<table id="drills"><thead><tr><th>finished</th><th>drill</th><th>report</th><th>sha256</th><th>resources</th></tr></thead><tbody>\n' +
        `${drills.join('\n')}\n</tbody></table>`
      : '<p>No packed drill satisfies it.</p>',
    '<h2>Gaps</h2>',
    gaps.length
      ? '<table id="gaps"><thead><tr><th>resource</th><th>ID</th><th>status</th><th>why</th><th>report</th></tr></thead><tbody>\n' +
        `${gaps.join('\n')}\n</tbody></table>`
      : '<p>None: every resource the packed drills name has a verified PASS within the period.</p>',
    NOTE,
  ]);
}
