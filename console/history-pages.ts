import {
  coverageOf,
  renderPostureChart,
  renderTrendChart,
  trendsOf,
  type DrillEntry,
  type DrillResourceEntry,
  type ExportEntry,
  type History,
  type PostureDimension,
} from '../history';
import { BY_CONTROL_HREF } from './controls-page';
import { markup, trusted, type Html } from './html';
import { time } from './layout';
import { renderingOf, SEAL_SUFFIX } from '../runtime/evidence-seal';

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

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

type Searched = DrillResourceEntry & { clean: NonNullable<DrillResourceEntry['clean']> };
const searchedIn = (d: DrillEntry): Searched[] => d.resources.filter((r): r is Searched => r.clean !== undefined);

/** How far a clean point is behind the newest of its window: points, and the data they hold as a duration. */
function behind(r: Searched): string {
  const by = r.clean.point?.behindNewest;
  if (!by) return '';
  return by.points === 0
    ? 'the newest point of the window'
    : `${plural(by.points, 'point')} (${seconds(by.seconds)}) behind the newest`;
}

/** One resource's search: its clean point and distance, or the search's verdict when none of the window passed. */
function cleanLine(r: Searched, named: boolean): Html {
  const who = named ? markup`${r.resourceName}: ` : '';
  const point = r.clean.point;
  if (!point) return markup`<span class="verdict-FAIL">${who}${r.clean.verdict}</span>`;
  return markup`${who}<code>${point.snapshotId}</code> at ${time(point.pointInTime)}, clean as of ${r.clean.check.name}, ${behind(r)}`;
}

/**
 * A drill's latest-clean searches: for one resource its line; for more, the worst distance and how many found none,
 * each resource's line folded beneath. Furthest behind first, those with no clean point before them.
 */
function cleanCell(d: DrillEntry): Html {
  const behindBy = (r: Searched) => r.clean.point?.behindNewest ?? { seconds: Infinity, points: Infinity };
  const searched = searchedIn(d).sort(
    (a, b) =>
      Math.sign(behindBy(b).seconds - behindBy(a).seconds || 0) ||
      Math.sign(behindBy(b).points - behindBy(a).points || 0) ||
      a.resourceName.localeCompare(b.resourceName),
  );
  const [first] = searched;
  if (!first) return markup`<span class="muted">–</span>`;
  if (searched.length === 1) return cleanLine(first, false);
  const checks = (rs: Searched[]) => [...new Set(rs.map((r) => r.clean.check.name))].join(', ');
  const found = searched.filter((r) => r.clean.point);
  const none = searched.filter((r) => !r.clean.point);
  const [worst] = found;
  const furthest = worst?.clean.point?.behindNewest.points ? `worst ${behind(worst)}` : 'each the newest of its window';
  const lines = [
    worst ? markup`clean as of ${checks(found)}: ${found.length} of ${searched.length}, ${furthest}` : '',
    none.length
      ? markup`<span class="verdict-FAIL">${none.length} of ${searched.length} with no point clean as of ${checks(none)}</span>`
      : '',
  ].filter((line) => line !== '');
  return markup`${lines.map((line, i) => markup`${i ? markup`<br>` : ''}${line}`)}
<details><summary>per resource</summary>${searched.map((r, i) => markup`${i ? markup`<br>` : ''}${cleanLine(r, true)}`)}</details>`;
}

/** A report whose name hides it (a leading dot): the history does not read it, while verify fails it in its chain. */
interface HiddenReport {
  file: string;
  chain: string;
  problems: DrillEntry['seal']['problems'];
}

/** The base name of a report's file, its seal's or a problem's (which names a file or a base name). */
const reportOf = (name: string) =>
  name.endsWith(SEAL_SUFFIX) ? name.slice(0, -SEAL_SUFFIX.length) : (renderingOf(name)?.base ?? name);

/** The hidden reports the chains name (sealed into one, or failing in one): counted and shown, never left out. */
function hiddenReports(index: History['drills']): HiddenReport[] {
  const listed = new Set(index.drills.map((d) => d.file));
  const found = new Map<string, HiddenReport>();
  for (const chain of index.chains) {
    for (const file of [...chain.reports, ...chain.problems.map((p) => p.report)].map(reportOf)) {
      if (!file.startsWith('.') || listed.has(file) || found.has(file)) continue;
      const problems = chain.problems.filter((p) => reportOf(p.report) === file);
      found.set(file, { file, chain: chain.chain, problems });
    }
  }
  return [...found.values()].sort((a, b) => a.file.localeCompare(b.file));
}

function hiddenRow(h: HiddenReport, cleanColumn: boolean): Html {
  const problems = h.problems.map((p) => `${p.kind} ${p.report}: ${p.detail}`).join('; ');
  return markup`<tr>
<td><code>${h.file}</code><br><span class="muted">${h.chain}</span></td>
<td>–</td>
<td class="verdict-FAIL">not read</td>
<td class="num">–</td>
<td class="num">–</td>
<td class="num">–</td>
${cleanColumn ? markup`<td>–</td>` : ''}
<td><span class="verdict-FAIL">FAILED: hidden name</span>${problems ? markup`<br><span class="muted">${problems}</span>` : ''}</td>
</tr>`;
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
  // Only where a drill restored latest-clean points: the others have nothing to show in it.
  const cleanColumn = drills.some((d) => searchedIn(d).length > 0);
  const rows = drills.map(
    (d) => markup`<tr>
<td><code>${d.workflowId}</code><br><span class="muted">${d.name}</span></td>
<td>${time(d.finishedAt)}</td>
<td class="verdict-${d.verdict}">${d.verdict}</td>
<td class="num">${d.passed}/${d.total}</td>
<td class="num">${seconds(d.worstRpoSeconds)} <span class="muted">/ ${seconds(d.targets.rpoSeconds)}</span></td>
<td class="num">${seconds(d.worstRtoSeconds)} <span class="muted">/ ${seconds(d.targets.rtoSeconds)}</span></td>
${cleanColumn ? markup`<td>${cleanCell(d)}</td>` : ''}
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
  // Reports under a hidden name are sealed into their chain and fail verify: counted and shown, last.
  const hidden = hiddenReports(history.drills);
  const count = drills.length + hidden.length;
  const hiddenNote = hidden.length
    ? `; ${hidden.length} under a hidden name (a leading dot) last: not read, and failing evidence verify`
    : '';
  const skipped = history.drills.skipped.length
    ? markup`<p class="muted">${history.drills.skipped.length} file(s) skipped: ${history.drills.skipped.map((s) => `${s.file} ${s.reason}`).join('; ')}</p>`
    : '';
  return markup`<p>By report · <a href="${BY_CONTROL_HREF}">by control</a>: each control of the catalogue, satisfied or not, its drills and gaps</p>
<p class="muted">${count} drill report${count === 1 ? '' : 's'} in the output folder, newest first${hiddenNote}. ${keys}</p>
${skipped}
<table>
<thead><tr><th scope="col">Drill</th><th scope="col">Finished</th><th scope="col">Verdict</th><th scope="col">Passed</th><th scope="col">Worst RPO / target</th><th scope="col">Worst RTO / target</th>${cleanColumn ? markup`<th scope="col">Clean point</th>` : ''}<th scope="col">Seal</th></tr></thead>
<tbody>
${rows}
${hidden.map((h) => hiddenRow(h, cleanColumn))}
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
