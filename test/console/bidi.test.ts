// A name holding U+202E (right-to-left override) is shown isolated wherever a page shows it: inside a `<bdi>` in the
// console's pages, the drill report, the posture report and the evidence pack's page; in SVG text and titles (where no
// element can isolate) its bidi controls are dropped and it sits between FSI and PDI.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WaitingApproval } from '../../operator/output-shapes';
import type { ConsoleData, ConsoleRun } from '../../console/data';
import { buildConsole } from '../../console/server';
import { ConsoleGuard } from '../../console/security';
import { HistoryIndex } from '../../history';
import { renderPackPage } from '../../history/pack-html';
import { PlanReader } from '../../history/plan-index';
import { renderHtml } from '../../runbooks/dr-drill/render-html';
import { page, section, table, tableRow } from '../../runbooks/posture-report/html';
import { loadOrCreateEvidenceKey } from '../../runtime/evidence-key';
import { v3Report } from '../helpers/drill-reports';
import { measured, writeDrill, writePlan, writePosture } from '../history/fixtures';
import { listen } from './listen';

const RLO = '\u202e';
const NAME = `invoice${RLO}fdp.exe`;
const VOID = new Set(['br', 'meta', 'input', 'img', 'hr', 'link', 'col', 'source', 'wbr']);

/**
 * Every place the text holding U+202E is rendered: the innermost open element there (attribute values are not
 * rendered, and are skipped with their tags). Fails on a tag soup the pages do not make.
 */
function placesOf(html: string): string[] {
  const stack: string[] = [];
  const places: string[] = [];
  for (const m of html.matchAll(/<(\/?)([a-zA-Z][\w-]*)[^>]*?(\/?)>|[^<]+/g)) {
    const [token, closing, tag, selfClosing] = m;
    if (tag === undefined) {
      if (token.includes(RLO)) places.push(stack.at(-1) ?? '(none)');
      continue;
    }
    const name = tag.toLowerCase();
    if (closing) {
      const at = stack.lastIndexOf(name);
      if (at >= 0) stack.length = at;
    } else if (!selfClosing && !VOID.has(name)) stack.push(name);
  }
  return places;
}

function expectIsolated(html: string, what: string, inTables = true): void {
  const places = placesOf(html);
  expect({ what, shown: places.length > 0 }).toEqual({ what, shown: inTables });
  expect({ what, places: places.filter((p) => p !== 'bdi') }).toEqual({ what, places: [] });
  // SVG text and titles: the override is dropped, the name set between FSI and PDI.
  for (const m of html.matchAll(/<(text|title)\b[^>]*>([^<]*)/g)) {
    expect(m[2]).not.toContain(RLO);
  }
}

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'console-bidi-'));
  const key = await loadOrCreateEvidenceKey(join(root, 'evidence-signing-key.pem'));
  await writeDrill(root, key, {
    runId: 'run-1',
    finishedAt: '2026-11-01T03:00:00.000Z',
    resources: [measured('res-1', 600, 3600, NAME)],
  });
  await writePosture(
    root,
    'posture-1',
    '2026-11-01T00:00:00.000Z',
    [{ id: 'p-1', type: 'VM', provider: 'AWS', env: NAME }],
    [],
  );
  // A recovery plan of that name, in a folder of its own: only the pack's page shows it here.
  await writePlan(join(root, 'plans'), key, { name: NAME, runId: 'run-1', finishedAt: '2026-11-02T03:00:00.000Z' });
});
afterAll(() => rm(root, { recursive: true, force: true }));

test('the console pages show a name with U+202E inside <bdi>', async () => {
  const run: ConsoleRun = {
    workflowId: `restore-${NAME}`,
    runId: 'run-1',
    runbook: 'approvalGatedRestore',
    state: 'RUNNING',
    startTime: '2026-11-26T08:00:00.000Z',
    resource: NAME,
    status: {
      runbook: 'approvalGatedRestore',
      phase: 'waiting for approval',
      ids: {},
      waitingFor: `reviewers of ${NAME}`,
      updatedAt: '2026-11-26T08:00:01.000Z',
    },
  };
  const waiting: WaitingApproval = {
    workflowId: run.workflowId,
    runId: run.runId,
    runbook: run.runbook,
    startedAt: run.startTime,
    requestId: `req-${NAME}`,
    answered: true,
  };
  const data: ConsoleData = { runs: async () => [run], approvals: async () => [waiting], nudge: async () => undefined };
  const app = buildConsole({
    data,
    guard: new ConsoleGuard({}),
    history: new HistoryIndex({ outputDir: root }),
    namespace: 'default',
  });
  const ask = await listen(app);
  try {
    for (const url of ['/runs', '/approvals', '/drills', '/posture']) {
      const res = await ask({ url });
      expect(res.statusCode).toBe(200);
      // The posture page names environments only in its charts.
      expectIsolated(res.body, url, url !== '/posture');
      // Its charts: the override dropped, the text between FSI and PDI.
      if (url === '/drills' || url === '/posture') expect(res.body).toMatch(/\u2068[^\u2069<]*invoicefdp\.exe/);
    }
    // In attributes (the nudge form's hidden field) the ID is as it is: the form must post it back exactly.
    const approvals = (await ask({ url: '/approvals' })).body;
    expect(approvals).toContain(`name="workflowId" value="restore-${NAME}"`);
  } finally {
    await app.close();
  }
});

test('the drill report shows it inside <bdi>, and without the override in its charts and title', () => {
  const report = { ...v3Report([measured('res-1', 600, 3600, NAME)]), name: NAME, workflowId: `drill-${NAME}` };
  const html = renderHtml(report);
  expectIsolated(html, 'drill report');
  expect(/<title>([^<]*)<\/title>/.exec(html)?.[1]).toBe(`Disaster-recovery drill \u2068invoicefdp.exe\u2069: PASS`);
});

test('the posture report shows it inside <bdi>', () => {
  const html = page(
    'Backup posture',
    section('By environment', table(['environment', 'resources'], tableRow([NAME, 1]), '')),
  );
  expectIsolated(html, 'posture report');
  // Right-to-left letters are isolated too; ASCII and accented Latin are as they were.
  expect(tableRow(['\u05de\u05d7\u05e1\u05df', 1])).toBe(
    '<tr><td><bdi>\u05de\u05d7\u05e1\u05df</bdi></td><td>1</td></tr>\n',
  );
  expect(tableRow(['PROD', 'café — 1'])).toBe('<tr><td>PROD</td><td>café — 1</td></tr>\n');
});

test("the evidence pack's page shows it inside <bdi>", async () => {
  const history = await new HistoryIndex({ outputDir: root }).read();
  const plans = (await new PlanReader({ outputDir: join(root, 'plans') }).read()).plans;
  expect(plans.map((p) => p.name)).toEqual([NAME]);
  const html = renderPackPage({
    period: { from: '2026-11-01', to: '2026-11-30', startMs: 0, endMs: Number.MAX_SAFE_INTEGER },
    createdAt: new Date('2026-12-01T00:00:00.000Z'),
    drills: history.drills.drills,
    plans,
    verification: {
      checkedAt: '2026-12-01T00:00:00.000Z',
      keySource: 'folder',
      keyIds: [],
      chains: [{ chain: NAME, reports: [], problems: [{ kind: 'edited', report: NAME, detail: `seal of ${NAME}` }] }],
      drills: [],
      plans: [],
    },
    posture: history.posture,
  });
  expectIsolated(html, 'evidence pack');
});
