import {
  coverageByResource,
  DEFAULT_COVERAGE_DAYS,
  readiness,
  type CoverageState,
  type History,
  type ReadinessScore,
  type ResourceCoverage,
} from '../history';
import { DAY_MS } from '../history/coverage';
import { formatSeconds } from '../history/line-chart';
import { markup, trusted, type Html } from './html';
import { time } from './layout';

// The Coverage page: the readiness score of the estate and of each drill, and every resource in scope with its last
// verified PASS, its recovery point's age, RPO, RTO, next due date and state, overdue first. The figures are those of
// `runbooks evidence score` and `runbooks coverage` for the same folder: the same functions (history/readiness.ts,
// history/coverage.ts) over the same reports, read by the console's DrillReader (its cache). Server-rendered: sorting
// and filtering are query parameters, no script (the console's CSP allows none), and so is paging. Values the folder
// does not hold are ignored, and nothing of the URL is shown but what matched one of them.

export const COVERAGE_PATH = '/coverage';

/**
 * Rows on a page: a screenful an operator still reads and sorts by eye, and a page that renders at once when the estate
 * holds thousands of resources; the filters narrow further.
 */
export const PAGE_SIZE = 100;

/**
 * Overdue resources named above the table. Every one is, while the list is short enough to read: they are what the
 * operator acts on, whatever page is shown. Past that a paragraph of IDs is skimmed, not read: the longest overdue
 * (coverageByResource's order) are named and all of them are one link away, the table filtered to `state=overdue`.
 */
export const OVERDUE_NAMED = 20;

const STATES: readonly CoverageState[] = ['overdue', 'never-drilled', 'never-passed', 'covered'];

/** The columns the table sorts by (`?sort=`), each with its value; `state` is coverageByResource's own order. */
const SORTS = {
  state: undefined,
  resource: (r: ResourceCoverage) => r.resourceId,
  type: (r: ResourceCoverage) => r.resourceType ?? '',
  drill: (r: ResourceCoverage) => drillOf(r) ?? '',
  pass: (r: ResourceCoverage) => (r.lastPass ? Date.parse(r.lastPass.finishedAt) : -Infinity),
  age: (r: ResourceCoverage) => r.verifiedPointAgeSeconds ?? Infinity,
  rpo: (r: ResourceCoverage) => r.lastPass?.rpoSeconds ?? Infinity,
  rto: (r: ResourceCoverage) => r.lastPass?.rtoSeconds ?? Infinity,
  due: (r: ResourceCoverage) => Date.parse(r.nextDue),
} as const;
type SortKey = keyof typeof SORTS;
const isSortKey = (v: unknown): v is SortKey => typeof v === 'string' && Object.hasOwn(SORTS, v);

const COLUMNS: readonly [string, SortKey][] = [
  ['Resource', 'resource'],
  ['Type', 'type'],
  ['Drill', 'drill'],
  ['Last verified PASS', 'pass'],
  ['Recovery point age', 'age'],
  ['RPO / target', 'rpo'],
  ['RTO / target', 'rto'],
  ['Next due', 'due'],
  ['State', 'state'],
];

/** The drill a resource was last proven by, else last drilled by. */
const drillOf = (r: ResourceCoverage) => (r.lastPass ?? r.lastResult)?.drill;

export interface CoverageView {
  history: History;
  /** The query string: `within`, `drill`, `state`, `type`, `sort`, `order`, `page`. */
  query: Readonly<Record<string, unknown>>;
  now?: Date;
}

const UNIT_MS = { d: DAY_MS, h: 3_600_000, m: 60_000, s: 1000 } as const;

/**
 * `?within=`: a duration above 0 as `runbooks coverage --within` takes it (`90d`, `12h`, `1d12h`: days, hours,
 * minutes, seconds, in that order), else the default 90 days. Only a text that matched is shown back.
 */
export function withinOfQuery(value: unknown): { text: string; days: number } {
  const fallback = { text: `${DEFAULT_COVERAGE_DAYS}d`, days: DEFAULT_COVERAGE_DAYS };
  if (typeof value !== 'string' || !/^(?=\d)(\d{1,6}d)?(\d{1,6}h)?(\d{1,6}m)?(\d{1,6}s)?$/.test(value)) return fallback;
  let ms = 0;
  for (const [, n, unit] of value.matchAll(/(\d+)([dhms])/g)) ms += Number(n) * UNIT_MS[unit as keyof typeof UNIT_MS];
  return ms > 0 ? { text: value, days: ms / DAY_MS } : fallback;
}

/** `?page=`: 1-based; what is not a whole number is page 1 and what is past the last page is the last, no error. */
export function pageOfQuery(value: unknown, pageCount: number): number {
  const page = typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : 1;
  return Math.min(Math.max(page, 1), pageCount);
}

/** The pages to link: the first, the last and two either side of the current one, `…` for two or more left out. */
function pagesAround(current: number, pageCount: number): (number | '…')[] {
  const pages: (number | '…')[] = [];
  let last = 0;
  for (let page = 1; page <= pageCount; page++) {
    if (page !== 1 && page !== pageCount && Math.abs(page - current) > 2) continue;
    if (page - last === 2) pages.push(page - 1);
    else if (page - last > 2) pages.push('…');
    pages.push((last = page));
  }
  return pages;
}

/** Previous, the pages around the current one, next, and which rows of how many are shown. */
function pageNav(current: number, pageCount: number, rowCount: number, link: (page: number) => string): Html {
  const pages = pagesAround(current, pageCount).map((page) =>
    page === '…'
      ? markup`<span class="muted">… </span>`
      : markup`<a href="${link(page)}" aria-label="Page ${page}"${page === current ? trusted(' aria-current="page"') : ''}>${page}</a>`,
  );
  const from = (current - 1) * PAGE_SIZE + 1;
  const to = Math.min(current * PAGE_SIZE, rowCount);
  return markup`<nav aria-label="Pages"><p>Rows ${from}–${to} of ${rowCount}</p>
${current > 1 ? markup`<a href="${link(current - 1)}" rel="prev">Previous</a>` : ''}${pages}${current < pageCount ? markup`<a href="${link(current + 1)}" rel="next">Next</a>` : ''}</nav>`;
}

const share = (x: number) => x.toFixed(3);
const seconds = (s: number | undefined) => (s === undefined ? '–' : formatSeconds(s));

function scoreRow(s: ReadinessScore, estate: boolean): Html {
  const i = s.inputs;
  return markup`<tr data-score-scope="${estate ? '' : s.scope}" data-score="${s.score.toFixed(1)}">
<td>${estate ? markup`<strong>estate</strong>` : s.scope}</td>
<td class="num"><strong>${s.score.toFixed(1)}</strong></td>
<td class="num">${i.inScope}</td>
<td class="num">${share(i.coverage)} <span class="muted">(${i.covered})</span></td>
<td class="num">${share(i.passShare)} <span class="muted">(${i.latestPassed})</span></td>
<td class="num">${i.rtoP95Ratio === undefined ? markup`none <span class="muted">(${i.withoutRto} without)</span>` : share(i.rtoP95Ratio)}</td>
<td class="num">${share(i.rtoMargin)}</td>
<td class="num">${share(i.freshness)}</td>
</tr>`;
}

const STATE_CLASS: Record<CoverageState, string> = {
  overdue: 'verdict-FAIL',
  'never-drilled': 'verdict-FAIL',
  'never-passed': 'verdict-FAIL',
  covered: 'verdict-PASS',
};

function resourceRow(r: ResourceCoverage): Html {
  const p = r.lastPass;
  const named = r.resourceName !== undefined && r.resourceName !== r.resourceId;
  const failedLast = r.lastFailed && r.state !== 'never-passed';
  const due = r.state === 'covered' || r.state === 'overdue' ? time(r.nextDue) : markup`now`;
  return markup`<tr data-resource="${r.resourceId}" data-state="${r.state}">
<td><code>${r.resourceId}</code>${named ? markup`<br><span class="muted">${r.resourceName}</span>` : ''}</td>
<td>${r.resourceType ?? '–'}</td>
<td>${drillOf(r) ?? '–'}</td>
<td>${p ? time(p.finishedAt) : markup`<span class="muted">never</span>`}</td>
<td class="num">${seconds(r.verifiedPointAgeSeconds)}</td>
<td class="num">${seconds(p?.rpoSeconds)}${p ? markup` <span class="muted">/ ${seconds(p.rpoTargetSeconds)}</span>` : ''}</td>
<td class="num">${seconds(p?.rtoSeconds)}${p ? markup` <span class="muted">/ ${seconds(p.rtoTargetSeconds)}</span>` : ''}</td>
<td>${due}</td>
<td><span class="${STATE_CLASS[r.state]}">${r.state}</span>${failedLast ? markup`<br><span class="verdict-FAIL">failed last</span>` : ''}</td>
</tr>`;
}

/** One of the query's values when the folder holds it (an array, or anything else, is none). */
const oneOf = <T extends string>(value: unknown, held: readonly T[]): T | undefined => held.find((h) => h === value);

export function coverageBody({ history, query, now = new Date() }: CoverageView): Html {
  const { drills } = history.drills;
  const within = withinOfQuery(query.within);
  const names = [...new Set(drills.map((d) => d.name))].sort((a, b) => a.localeCompare(b));
  const drill = oneOf(query.drill, names);
  const state = oneOf(query.state, STATES);
  const sort: SortKey = isSortKey(query.sort) ? query.sort : 'state';
  const descending = query.order === 'desc';

  // The same calls as `runbooks evidence score` and `runbooks coverage [--drill]`.
  const score = readiness(drills, { now, withinDays: within.days });
  const report = coverageByResource(drills, { now, withinDays: within.days, ...(drill ? { drill } : {}) });
  const types = [...new Set(report.resources.map((r) => r.resourceType ?? ''))]
    .filter((t) => t !== '')
    .sort((a, b) => a.localeCompare(b));
  const type = oneOf(query.type, types);
  const shown = report.resources.filter(
    (r) => (state === undefined || r.state === state) && (type === undefined || r.resourceType === type),
  );
  const by = SORTS[sort];
  if (by) {
    shown.sort((a, b) => {
      const x = by(a);
      const y = by(b);
      return (x < y ? -1 : x > y ? 1 : 0) || a.resourceId.localeCompare(b.resourceId);
    });
  }
  if (descending) shown.reverse();
  const pageCount = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
  const page = pageOfQuery(query.page, pageCount);
  const pageRows = shown.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);

  // Every link keeps the other parameters; only the page links keep the page, so that a new sort or filter (the form
  // has no `page` field) starts at page 1.
  const params = (changes: Record<string, string | undefined>) => {
    const current: Record<string, string | undefined> = {
      within: within.text === `${DEFAULT_COVERAGE_DAYS}d` ? undefined : within.text,
      drill,
      state,
      type,
      sort: sort === 'state' ? undefined : sort,
      order: descending ? 'desc' : undefined,
      ...changes,
    };
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(current)) if (v !== undefined) search.set(k, v);
    const text = search.toString();
    return text ? `${COVERAGE_PATH}?${text}` : COVERAGE_PATH;
  };
  const header = COLUMNS.map(([label, key]) => {
    const active = key === sort;
    const order = active && !descending ? 'desc' : undefined;
    const arrow = active ? (descending ? ' ↓' : ' ↑') : '';
    return markup`<th scope="col"${active ? trusted(' aria-sort="' + (descending ? 'descending' : 'ascending') + '"') : ''}><a href="${params({ sort: key === 'state' ? undefined : key, order })}">${label}</a>${arrow}</th>`;
  });

  const keys =
    history.drills.keySource === 'given'
      ? markup`Seals checked against the keys given (${history.drills.keyIds.join(', ')}).`
      : markup`Seals checked against the public keys beside the reports (${history.drills.keyIds.join(', ') || 'none'}): a quick check, not an audit; give the key history for one.`;
  const skipped = history.drills.skipped.length
    ? markup`<p class="muted">${history.drills.skipped.length} file(s) skipped: ${history.drills.skipped.map((s) => `${s.file} ${s.reason}`).join('; ')}</p>`
    : '';
  const option = (value: string, label: string, chosen: boolean) =>
    markup`<option value="${value}"${chosen ? trusted(' selected') : ''}>${label}</option>`;
  const filters = markup`<form method="get" action="${COVERAGE_PATH}">
<label>Within <input name="within" value="${within.text}" size="6"></label>
<label>Drill <select name="drill">${option('', 'all', drill === undefined)}${names.map((n) => option(n, n, n === drill))}</select></label>
<label>State <select name="state">${option('', 'any', state === undefined)}${STATES.map((s) => option(s, s, s === state))}</select></label>
<label>Type <select name="type">${option('', 'any', type === undefined)}${types.map((t) => option(t, t, t === type))}</select></label>
${sort === 'state' ? '' : markup`<input type="hidden" name="sort" value="${sort}">`}${descending ? trusted('<input type="hidden" name="order" value="desc">') : ''}
<button type="submit">Show</button></form>`;

  const c = report.counts;
  const overdue = report.resources.filter((r) => r.state === 'overdue');
  // The link lifts the type filter as well: the count is of every type.
  const unnamed =
    overdue.length > OVERDUE_NAMED
      ? markup` and ${overdue.length - OVERDUE_NAMED} more: <a href="${params({ state: 'overdue', type: undefined })}">all ${overdue.length} overdue</a>`
      : '';
  const scope = drill === undefined ? 'every resource the reports name' : markup`the resources of drill ${drill}`;
  const command = drill === undefined ? 'runbooks coverage' : `runbooks coverage --drill ${drill}`;
  const intro = markup`<p class="muted">Readiness and coverage within ${within.text} (since ${time(score.since)}), from the ${drills.length} drill report${drills.length === 1 ? '' : 's'} of the output folder: the figures of <code>runbooks evidence score</code> and <code>runbooks coverage</code> for this folder. Only a PASS in a report whose seal and chain verify counts. ${keys}</p>
${skipped}`;
  if (drills.length === 0)
    return markup`${intro}<p>No drill report in the output folder yet: nothing is proven, and the estate scores 0.</p>`;

  return markup`${intro}
<h2>Readiness score</h2>
<table class="scores">
<thead><tr><th scope="col">Scope</th><th scope="col">Score</th><th scope="col">Resources</th><th scope="col">Coverage</th><th scope="col">Pass share</th><th scope="col">RTO p95 / target</th><th scope="col">RTO margin</th><th scope="col">Freshness</th></tr></thead>
<tbody>
${scoreRow(score.estate, true)}
${score.drills.map((s) => scoreRow(s, false))}
</tbody>
</table>
<p class="muted">score = ${score.weights.coverage} × coverage + ${score.weights.passShare} × pass share + ${score.weights.rtoMargin} × RTO margin + ${score.weights.freshness} × freshness (docs/operations/readiness.md)</p>
<h2>Resources</h2>
${
  overdue.length > 0
    ? markup`<p class="notice error">${overdue.length} overdue (no verified PASS since ${time(report.since)}): ${overdue.slice(0, OVERDUE_NAMED).map((r, i) => markup`${i ? ', ' : ''}<code>${r.resourceId}</code>`)}${unnamed}. <code>${command}</code> lists them too.</p>`
    : ''
}
<p>${c.inScope} in scope (${scope}): ${c.covered} covered, ${c.overdue} overdue, ${c.neverDrilled} never drilled, ${c.neverPassed} never passed; ${c.failedLast} failed last.</p>
${filters}
${
  shown.length === 0
    ? markup`<p>No resource matches.</p>`
    : markup`<table class="coverage">
<thead><tr>${header}</tr></thead>
<tbody>
${pageRows.map(resourceRow)}
</tbody>
</table>
${pageCount === 1 ? '' : pageNav(page, pageCount, shown.length, (n) => params({ page: n === 1 ? undefined : String(n) }))}`
}`;
}
