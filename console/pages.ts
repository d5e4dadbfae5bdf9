import { DEFAULT_PERIOD_DAYS, DEFAULT_TREND_DRILLS, type History } from '../history';
import { approvalsBody } from './approvals-page';
import { BY_CONTROL_QUERY, drillsByControlBody } from './controls-page';
import type { ConsoleData } from './data';
import { COVERAGE_PATH, coverageBody } from './coverage-page';
import { drillsBody, exportsBody, postureBody } from './history-pages';
import { markup, type Html } from './html';
import type { NavItem } from './layout';
import { plansBody } from './plans-page';
import { runsBody } from './runs-page';

/**
 * The console's pages, in the order of the navigation. The server serves each at its path (GET), the navigation links
 * each, and test/console/security.test.ts checks each: a page added here is served, linked and held to the auth tests.
 */

/** What the server hands a page for one request. */
export interface PageInput {
  /** Temporal: the runs and the restores waiting for approval (console/data.ts). */
  data: ConsoleData;
  /** The output folder's history (history/HistoryIndex), read at each request. */
  history: { read(): Promise<History> };
  /** The query string as Fastify parses it: a name given twice is an array. */
  query: Readonly<Record<string, unknown>>;
  /** The CSRF token of who asks, for a form that posts. */
  csrf: string;
  namespace: string;
  /** The Temporal Web UI, to link each run to. */
  temporalUiUrl?: string;
  /** Rows per page. */
  limit: number;
}

export interface ConsolePage extends NavItem {
  /** The page's <title> and heading. */
  title: string;
  body: (input: PageInput) => Promise<Html>;
}

/** The one notice the approvals page shows after a nudge: fixed text, nothing from the URL. */
export const NUDGED_NOTICE = 'Nudged: it looks at its request now.';

export const PAGES: readonly ConsolePage[] = [
  {
    path: '/runs',
    label: 'Runs',
    title: 'Runs',
    body: async ({ data, limit, namespace, temporalUiUrl }) =>
      runsBody({ runs: await data.runs(limit), namespace, uiBaseUrl: temporalUiUrl }),
  },
  {
    path: '/approvals',
    label: 'Approvals',
    title: 'Approvals',
    body: async ({ data, limit, query, csrf }) => {
      const waiting = await data.approvals(limit);
      // A flag, not a text: a link someone sends cannot make the page say anything of theirs.
      const notice = query.nudged === '1' ? markup`${NUDGED_NOTICE}` : undefined;
      return approvalsBody({ waiting, csrf, notice });
    },
  },
  {
    path: '/drills',
    label: 'Drills',
    title: 'Drills',
    body: async ({ history, query }) => {
      // `?by=control`: the same reports, by control of the catalogue (console/controls-page.ts).
      if (query.by === BY_CONTROL_QUERY) return drillsByControlBody({ history: await history.read() });
      const periodDays = whole(query.period, 1, 3650) ?? DEFAULT_PERIOD_DAYS;
      const lastN = whole(query.last, 1, 100) ?? DEFAULT_TREND_DRILLS;
      return drillsBody({ history: await history.read(), periodDays, lastN });
    },
  },
  {
    path: COVERAGE_PATH,
    label: 'Coverage',
    title: 'Coverage and readiness',
    // `?within=90d&drill=&state=&type=&sort=&order=`: values the folder does not hold are ignored (console/coverage-page.ts).
    body: async ({ history, query }) => coverageBody({ history: await history.read(), query }),
  },
  {
    path: '/plans',
    label: 'Plans',
    title: 'Plans',
    // `?plan=<name>&verdict=PASS|FAIL`: values the folder does not hold are ignored (console/plans-page.ts).
    body: async ({ history, query }) =>
      plansBody({ index: (await history.read()).plans, plan: query.plan, verdict: query.verdict }),
  },
  {
    path: '/posture',
    label: 'Posture',
    title: 'Posture',
    body: async ({ history }) => postureBody(await history.read()),
  },
  {
    path: '/exports',
    label: 'Exports',
    title: 'Exports',
    body: async ({ history }) => exportsBody((await history.read()).exports),
  },
];

/** A whole number from a query string within [min, max], or undefined for anything else (an array included). */
function whole(value: unknown, min: number, max: number): number | undefined {
  const n = typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : NaN;
  return n >= min && n <= max ? n : undefined;
}
