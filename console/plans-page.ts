import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { PlanEntry, PlanIndex, SealCheck } from '../history';
import { renderGantt } from '../runbooks/recovery-plan/render-html';
import { criticalPathText, humanDuration } from '../runbooks/recovery-plan/render-markdown';
import { readRegularFile } from '../runtime/evidence-names';
import { markup, trusted, type Html } from './html';
import { time } from './layout';

// The Plans page: every recovery plan run of the output folder (history/plan-index.ts), grouped by plan, the newest
// run of each with its timeline. The timeline is the report page's own Gantt (runbooks/recovery-plan/render-html.ts),
// SVG text whose every value that renderer escaped itself, styled by attributes only, as the console's CSP wants.
// Everything else goes through `markup`. Each run links to its own report files, served by name only.

/** Where a run's report files are served: `<route>/<base>.<html|md|json>`, for the reports the page lists only. */
export const PLAN_REPORT_ROUTE = '/plans/report';

const EXTENSIONS = { html: 'text/html', md: 'text/plain', json: 'application/json' } as const;
type Extension = keyof typeof EXTENSIONS;
const isExtension = (text: string | undefined): text is Extension => text !== undefined && text in EXTENSIONS;

const reportHref = (d: PlanEntry, ext: Extension) => `${PLAN_REPORT_ROUTE}/${encodeURIComponent(`${d.file}.${ext}`)}`;

const SEAL_TEXT: Record<SealCheck['status'], string> = {
  verified: 'verified',
  chainFailed: 'chain broken',
  failed: 'FAILED',
  unsealed: 'unsealed',
};

function sealCell(seal: SealCheck): Html {
  const problems = seal.problems.map((p) => `${p.kind} ${p.report}: ${p.detail}`).join('; ');
  const cls = seal.status === 'verified' ? 'verdict-PASS' : seal.status === 'unsealed' ? 'muted' : 'verdict-FAIL';
  return markup`<span class="${cls}">${SEAL_TEXT[seal.status]}</span>${problems ? markup`<br><span class="muted">${problems}</span>` : ''}`;
}

function rtoCell(d: PlanEntry): Html {
  const { seconds, targetSeconds, met } = d.rto;
  return markup`${humanDuration(seconds)} <span class="muted">/ ${humanDuration(targetSeconds)}</span><br><span class="verdict-${met ? 'PASS' : 'FAIL'}">${met ? 'met' : 'MISSED'}</span>`;
}

function failedCell(d: PlanEntry): Html {
  if (d.failedSteps.length === 0) return markup`<span class="muted">none</span>`;
  const items = d.failedSteps.map(
    (s) => markup`<li><code>${s.id}</code>: <span class="verdict-FAIL">${s.reason ?? 'no reason given'}</span></li>`,
  );
  const skipped = d.steps.skipped ? markup`<span class="muted">${d.steps.skipped} skipped after</span>` : '';
  return markup`<ul class="failed-steps">${items}</ul>${skipped}`;
}

function skewCell(d: PlanEntry): Html {
  const cp = d.commonPoint;
  if (!cp) return markup`<span class="muted">none restored</span>`;
  const skew = humanDuration(cp.skewSeconds);
  const over = cp.skewSeconds > cp.maxSkewSeconds;
  return markup`${over ? markup`<span class="verdict-FAIL">${skew} OVER</span>` : skew} <span class="muted">/ ${humanDuration(cp.maxSkewSeconds)}</span><br><span class="muted">at ${time(cp.at)}</span>`;
}

const links = (d: PlanEntry) =>
  markup`<a href="${reportHref(d, 'html')}">report</a> · <a href="${reportHref(d, 'md')}">md</a> · <a href="${reportHref(d, 'json')}">json</a>`;

function runRow(d: PlanEntry): Html {
  const { steps } = d;
  return markup`<tr data-plan-run="${d.file}">
<td><code>${d.workflowId}</code><br><span class="muted">run ${d.runId}</span></td>
<td>${time(d.finishedAt)}<br><span class="muted">from ${time(d.startedAt)}</span></td>
<td>${d.mode}</td>
<td><span class="verdict-${d.verdict}">${d.verdict}</span><br><span class="muted">${steps.passed}/${steps.total} passed</span></td>
<td class="num">${rtoCell(d)}</td>
<td>${criticalPathText(d.report)}</td>
<td>${failedCell(d)}</td>
<td class="num">${skewCell(d)}</td>
<td>${sealCell(d.seal)}</td>
<td>${links(d)}</td>
</tr>`;
}

const COLUMNS = [
  'Run',
  'Finished',
  'Mode',
  'Verdict',
  'RTO / target',
  'Critical path',
  'Failed steps',
  'Skew / bound',
  'Seal',
  'Report',
];

function newestLine(d: PlanEntry): Html {
  const rto = markup`RTO ${humanDuration(d.rto.seconds)} against ${humanDuration(d.rto.targetSeconds)} (${d.rto.met ? 'met' : 'MISSED'})`;
  const verdict = markup`<span class="verdict-${d.verdict}">${d.verdict}</span>`;
  return markup`<p>Newest run, finished ${time(d.finishedAt)}: ${verdict}, ${rto} · <a href="${reportHref(d, 'html')}">its report</a></p>`;
}

/** One plan: its newest run's timeline, then its runs, newest first. */
function planSection(runs: PlanEntry[], n: number): Html {
  const [newest] = runs;
  if (!newest) return markup``;
  // Each timeline has an id of its own: several plans share the page.
  const gantt = renderGantt(newest.report).replace('id="timeline"', `id="timeline-${n}"`);
  return markup`<section class="plan">
<h2>${newest.name} <span class="muted">${runs.length} run${runs.length === 1 ? '' : 's'}, last ${newest.verdict}</span></h2>
${newestLine(newest)}
${trusted(gantt)}
<table>
<thead><tr>${COLUMNS.map((c) => markup`<th scope="col">${c}</th>`)}</tr></thead>
<tbody>
${runs.map(runRow)}
</tbody>
</table>
</section>`;
}

export interface PlansView {
  index: PlanIndex;
  /** `?plan=`: one plan's runs; a name the folder does not hold is ignored (nothing of the URL is shown). */
  plan?: unknown;
  /** `?verdict=PASS|FAIL`. */
  verdict?: unknown;
}

export function plansBody({ index, plan, verdict }: PlansView): Html {
  const names = [...new Set(index.plans.map((d) => d.name))].sort((a, b) => a.localeCompare(b));
  const onePlan = typeof plan === 'string' && names.includes(plan) ? plan : undefined;
  const oneVerdict = verdict === 'PASS' || verdict === 'FAIL' ? verdict : undefined;
  const shown = index.plans.filter(
    (d) => (onePlan === undefined || d.name === onePlan) && (oneVerdict === undefined || d.verdict === oneVerdict),
  );
  // Grouped by plan, the plan of the newest run first (the list is newest first).
  const groups = new Map<string, PlanEntry[]>();
  for (const d of shown) groups.set(d.name, [...(groups.get(d.name) ?? []), d]);

  const keys =
    index.keySource === 'given'
      ? markup`Seals checked against the keys given (${index.keyIds.join(', ')}).`
      : markup`Seals checked against the public keys beside the reports (${index.keyIds.join(', ') || 'none'}): a quick check, not an audit; give the key history for one.`;
  const skipped = index.skipped.length
    ? markup`<p class="muted">${index.skipped.length} file(s) skipped: ${index.skipped.map((s) => `${s.file} ${s.reason}`).join('; ')}</p>`
    : '';
  const option = (value: string, label: string, chosen: boolean) =>
    markup`<option value="${value}"${chosen ? trusted(' selected') : ''}>${label}</option>`;
  const filters = markup`<form method="get" action="/plans">
<label>Plan <select name="plan">${option('', 'all', onePlan === undefined)}${names.map((n) => option(n, n, n === onePlan))}</select></label>
<label>Verdict <select name="verdict">${option('', 'any', oneVerdict === undefined)}${(['PASS', 'FAIL'] as const).map((v) => option(v, v, v === oneVerdict))}</select></label>
<button type="submit">Show</button></form>`;
  const count = index.plans.length;
  const intro = markup`<p class="muted">${count} recovery plan report${count === 1 ? '' : 's'} of ${names.length} plan${names.length === 1 ? '' : 's'} in the output folder, newest first, grouped by plan; the newest run of each with its timeline. ${keys}</p>
${skipped}`;
  if (count === 0) return markup`${intro}<p>No recovery plan report in the output folder yet.</p>`;
  const sections = [...groups.values()].map((runs, i) => planSection(runs, i + 1));
  return markup`${intro}
${filters}
${sections.length ? sections : markup`<p>No run matches.</p>`}`;
}

/** A report file the page links to, with the type and policy it is served with. */
export interface PlanReportFile {
  contentType: string;
  body: Buffer;
  /** For the HTML page: its own inline stylesheets by their hashes, sandboxed, no script. */
  csp?: string;
}

/**
 * The file `name` (`<base>.<html|md|json>`) of a report the index lists, read as a regular file (never a symlink);
 * undefined for any other name, which never reaches the file system: a path outside plan-reports/ cannot be named.
 */
export async function planReportFile(index: PlanIndex, name: string): Promise<PlanReportFile | undefined> {
  const match = /^(.+)\.(html|md|json)$/.exec(name);
  const ext = match?.[2];
  const entry = index.plans.find((d) => d.file === match?.[1]);
  if (!entry || !isExtension(ext)) return undefined;
  const path = ext === 'html' ? entry.htmlPath : join(index.dir, `${entry.file}.${ext}`);
  const body = await readRegularFile(path).catch(() => undefined);
  if (!body) return undefined;
  const contentType = `${EXTENSIONS[ext]}; charset=utf-8`;
  return ext === 'html' ? { contentType, body, csp: reportPolicy(body.toString('utf8')) } : { contentType, body };
}

/** The report page's policy: its own `<style>` elements by hash (its CSP meta tag allows them), nothing else. */
function reportPolicy(html: string): string {
  const hashes = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map(
    (m) =>
      `'sha256-${createHash('sha256')
        .update(m[1] ?? '')
        .digest('base64')}'`,
  );
  return (
    `default-src 'none'; style-src ${hashes.join(' ') || "'none'"}; img-src data:; form-action 'none'; ` +
    "frame-ancestors 'none'; base-uri 'none'; sandbox"
  );
}
