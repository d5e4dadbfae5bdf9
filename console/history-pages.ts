import {
  coverageOf,
  renderPostureChart,
  renderTrendChart,
  trendsOf,
  type DrillEntry,
  type ExportEntry,
  type History,
  type PostureDimension,
} from '../history';
import { markup, trusted, type Html } from './html';
import { time } from './layout';

// The pages read from the output folder's history (history/): drills, posture and exports. The charts come from
// history/ as SVG text whose every value it escaped itself; everything else goes through `markup`.

const seconds = (s: number | undefined): string => {
  if (s === undefined) return '–';
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86400).toFixed(1)} d`;
};

const SEAL_TEXT: Record<DrillEntry['seal']['status'], string> = {
  verified: 'verified',
  chainFailed: 'chain broken',
  failed: 'FAILED',
  unsealed: 'unsealed',
};

function sealCell(d: DrillEntry): Html {
  const problems = d.seal.problems.map((p) => `${p.kind} ${p.report}: ${p.detail}`).join('; ');
  const cls = d.seal.status === 'verified' ? 'verdict-PASS' : d.seal.status === 'unsealed' ? 'muted' : 'verdict-FAIL';
  return markup`<span class="${cls}">${SEAL_TEXT[d.seal.status]}</span>${problems ? markup`<br><span class="muted">${problems}</span>` : ''}`;
}

export interface DrillsView {
  history: History;
  periodDays: number;
  lastN: number;
  now?: Date;
}

export function drillsBody({ history, periodDays, lastN, now = new Date() }: DrillsView): Html {
  const { drills } = history.drills;
  const keys =
    history.drills.keySource === 'given'
      ? markup`Seals checked against the keys given (${history.drills.keyIds.join(', ')}).`
      : markup`Seals checked against the public keys beside the reports (${history.drills.keyIds.join(', ') || 'none'}): a quick check, not an audit; give the key history for one.`;
  const rows = drills.map(
    (d) => markup`<tr>
<td><code>${d.workflowId}</code><br><span class="muted">${d.name}</span></td>
<td>${time(d.finishedAt)}</td>
<td class="verdict-${d.verdict}">${d.verdict}</td>
<td class="num">${d.passed}/${d.total}</td>
<td class="num">${seconds(d.worstRpoSeconds)} <span class="muted">/ ${seconds(d.targets.rpoSeconds)}</span></td>
<td class="num">${seconds(d.worstRtoSeconds)} <span class="muted">/ ${seconds(d.targets.rtoSeconds)}</span></td>
<td>${sealCell(d)}</td>
</tr>`,
  );
  const cov = coverageOf(history, { now, periodDays, lastN });
  const known = cov.neverDrilled.length + cov.notWithinPeriod.length + cov.drilledWithinPeriod;
  const trends = trendsOf(history, lastN);
  const charts = trends.map(
    (
      t,
    ) => markup`<section class="trend"><h3>${t.resourceName} <span class="muted">${t.resourceType}, ${t.drillCount} drill${t.drillCount === 1 ? '' : 's'}, last ${t.lastVerdict}</span></h3>
${trusted(renderTrendChart(t, 'rto'))}
${trusted(renderTrendChart(t, 'rpo'))}</section>`,
  );
  const skipped = history.drills.skipped.length
    ? markup`<p class="muted">${history.drills.skipped.length} file(s) skipped: ${history.drills.skipped.map((s) => `${s.file} ${s.reason}`).join('; ')}</p>`
    : '';
  return markup`<p class="muted">${drills.length} drill report${drills.length === 1 ? '' : 's'} in the output folder, newest first. ${keys}</p>
${skipped}
<table>
<thead><tr><th scope="col">Drill</th><th scope="col">Finished</th><th scope="col">Verdict</th><th scope="col">Passed</th><th scope="col">Worst RPO / target</th><th scope="col">Worst RTO / target</th><th scope="col">Seal</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
<h2>RTO and RPO over the last ${lastN} drills, per resource</h2>
${charts}
<h2>Not drilled within ${periodDays} days</h2>
<form method="get" action="/drills"><label>Period in days <input name="period" type="number" min="1" max="3650" value="${periodDays}"></label> <button type="submit">Show</button></form>
${
  cov.notWithinPeriod.length === 0 && cov.neverDrilled.length === 0
    ? markup`<p>Every known resource was drilled since ${time(cov.since)}.</p>`
    : markup`<p>${cov.neverDrilled.length + cov.notWithinPeriod.length} of ${known} known resources: ${cov.neverDrilled.length} never drilled, ${cov.notWithinPeriod.length} last drilled before ${time(cov.since)}.</p>
<table><thead><tr><th scope="col">Resource</th><th scope="col">Type</th><th scope="col">Last drilled</th></tr></thead><tbody>
${cov.neverDrilled.map((r) => markup`<tr><td>${r.resourceName ?? r.resourceId}</td><td>${r.resourceType ?? ''}</td><td>never</td></tr>`)}
${cov.notWithinPeriod.map((t) => markup`<tr><td>${t.resourceName}</td><td>${t.resourceType}</td><td>${time(t.lastDrilledAt)}</td></tr>`)}
</tbody></table>`
}
<p class="muted">Known resources: those the drills name${cov.knownFrom === 'posture-lists' ? ' and those the newest posture report lists' : ' and the inventory'}.</p>`;
}

const DIMENSIONS: PostureDimension[] = ['total', 'provider', 'type', 'environment'];

export function postureBody(history: History): Html {
  const reports = history.posture;
  if (reports.length === 0) return markup`<p>No posture report in the output folder yet.</p>`;
  const latest = reports.at(-1);
  const charts = (['unprotected', 'stale'] as const).flatMap((list) =>
    DIMENSIONS.map((d) => trusted(renderPostureChart(reports, list, d))),
  );
  return markup`<p class="muted">${reports.length} posture report${reports.length === 1 ? '' : 's'}; the newest, as of ${time(latest?.asOf)}: ${latest?.unprotected.total ?? 0} unprotected, ${latest?.stale.total ?? 0} stale.</p>
${charts}`;
}

export function exportsBody(exports: readonly ExportEntry[]): Html {
  if (exports.length === 0) return markup`<p>No query or cost export in the output folder yet.</p>`;
  const rows = exports.map(
    (e) =>
      markup`<tr><td>${e.kind}</td><td><code>${e.file}</code></td><td class="num">${e.rows}</td><td class="num">${e.bytes}</td><td><code>${e.sha256}</code></td><td>${time(e.writtenAt)}</td></tr>`,
  );
  return markup`<p class="muted">The finished exports in the output folder, newest first.</p>
<table>
<thead><tr><th scope="col">Kind</th><th scope="col">File</th><th scope="col">Rows</th><th scope="col">Bytes</th><th scope="col">sha256</th><th scope="col">Written</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`;
}
