// The console in a real headless Chromium, on a real dev server, simulator and worker: two drills of one resource with
// sealed reports, a posture report, a query and a cost export, and a restore waiting for its approvals. Every page
// renders what those runs left, the charts hold one point per drill and per posture report, the Approvals page's
// button nudges the run, and axe-core finds no serious or critical accessibility violation on any page.
// CONSOLE_SCREENSHOTS=<folder> saves a screenshot of each page there (docs/ holds the ones the docs show).
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { Page } from 'playwright-core';
import type { InventoryResource } from '../../api';
import type { RunningConsole } from '../../console/serve-command';
import { approvalGatedRestore, costExport, postureReport, queryExport } from '../../runbooks/workflows';
import { launchChromium, type Chromium } from './chromium';
import {
  bucketDestination,
  consoleOf,
  drillOfOne,
  eventually,
  nudgesOf,
  queryExportInput,
  queryTarget,
  restoreSuite,
  seededVmWithSnapshot,
  waitingRequestId,
} from './helpers';

// Plans and Coverage last: checked by axe, no screenshot (no plan runs here).
const PAGES = ['runs', 'approvals', 'drills', 'posture', 'exports', 'plans', 'coverage'] as const;
const DRILLS = 2;
const SCREENSHOT_MAX_HEIGHT = 2_400;
const AXE = require.resolve('axe-core/axe.min.js');

const { fx, target } = restoreSuite({ outcomes: {} });
let web: RunningConsole;
let chrome: Chromium;

beforeAll(async () => {
  chrome = await launchChromium({ bypassCSP: true });
  web = await consoleOf(fx);
}, 120_000);
afterAll(async () => {
  // Chromium first: the console's close waits for the connections it keeps alive.
  await chrome?.close();
  await web?.close();
});

/** What the runs of the first test left, for the tests after it. */
const runs = {
  resource: undefined as InventoryResource | undefined,
  drillIds: [] as string[],
  waiting: undefined as WorkflowHandle | undefined,
  exportSha256: [] as string[],
};

async function open(path: string): Promise<Page> {
  const page = await chrome.context.newPage();
  const response = await page.goto(`${web.url}${path}`);
  expect(response?.status()).toBe(200);
  return page;
}

test('real runs: two drills of one resource, a posture report, a query and a cost export, a waiting restore', async () => {
  const resource = seededVmWithSnapshot(fx);
  runs.resource = resource;
  for (let i = 0; i < DRILLS; i++) {
    const { handle } = await drillOfOne(fx, resource.id, 'browser');
    runs.drillIds.push(handle.workflowId);
  }

  const db = await queryTarget(fx, 'events');
  const [posture, query, cost] = await Promise.all([
    fx.env.client.workflow.execute(postureReport, {
      taskQueue: fx.worker.taskQueue,
      workflowId: `posture-report-${randomUUID()}`,
      args: [{ maxSnapshotAgeHours: 72, pageSize: 40 }],
    }),
    fx.env.client.workflow.execute(queryExport, {
      taskQueue: fx.worker.taskQueue,
      workflowId: `query-export-${randomUUID()}`,
      args: [{ ...queryExportInput(db, 'SELECT id, name FROM customers ORDER BY id'), fileName: 'browser.csv' }],
    }),
    fx.env.client.workflow.execute(costExport, {
      taskQueue: fx.worker.taskQueue,
      workflowId: `cost-export-${randomUUID()}`,
      args: [{ window: 'previous-day', options: { groupBy: 'CLOUD_PROVIDER' } }],
    }),
  ]);
  expect(posture.resources).toBeGreaterThan(0);
  runs.exportSha256 = [query.export.sha256, cost.export.sha256];

  await fx.control.addPolicy({ requiredApprovals: 2, approvalWindowHours: 24, executionWindowHours: 6 });
  runs.waiting = await fx.env.client.workflow.start(approvalGatedRestore, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `console-browser-${randomUUID()}`,
    args: [{ ...target, kind: 'bucket', destination: bucketDestination('restored-objects', 'browser/') }],
  });
  await waitingRequestId(runs.waiting);
});

test('every page renders the runs, with one chart point per drill and per posture report', async () => {
  const waiting = runs.waiting?.workflowId ?? '(no waiting restore)';
  // Visibility catches up with the search attributes shortly after they are set.
  const runsPage = await eventually('the waiting restore on the Runs page', async () => {
    const page = await open('/runs');
    if ((await page.locator('tr', { hasText: waiting }).count()) === 1) return page;
    await page.close();
    return undefined;
  });
  await expect(runsPage.locator('tr', { hasText: waiting }).innerText()).resolves.toContain('waiting for approval');
  for (const id of runs.drillIds) await expect(runsPage.locator('tr', { hasText: id }).count()).resolves.toBe(1);

  const approvals = await open('/approvals');
  const row = approvals.locator('tr', { hasText: waiting });
  await expect(row.innerText()).resolves.toContain('0/2 approvals');
  await expect(row.getByRole('button', { name: `Nudge ${waiting}` }).count()).resolves.toBe(1);

  const drills = await open('/drills');
  for (const id of runs.drillIds) {
    const drill = drills.locator('tr', { hasText: id });
    await expect(drill.count()).resolves.toBe(1);
    await expect(drill.innerText()).resolves.toContain('verified');
  }
  const trend = drills.locator('section.trend', {
    has: drills.locator('h3', { hasText: runs.resource?.resourceName ?? '(no resource)' }),
  });
  await expect(trend.count()).resolves.toBe(1);
  for (const metric of ['rto', 'rpo']) {
    const chart = trend.locator(`svg[data-chart="${metric}-trend"]`);
    await expect(chart.locator(`circle.point[data-series="${metric}"]`).count()).resolves.toBe(DRILLS);
    // The target is a dashed line, without points.
    await expect(chart.locator(`g.series.target[data-series="${metric}-target"] path`).count()).resolves.toBe(1);
  }

  const posture = await open('/posture');
  for (const list of ['unprotected', 'stale']) {
    const chart = posture.locator(`svg[data-chart="posture-${list}-total"]`);
    // One posture report: one point on each line.
    const lines = await chart.locator('g.series').count();
    expect(lines).toBeGreaterThan(0);
    await expect(chart.locator('circle.point').count()).resolves.toBe(lines);
  }

  const exports = await open('/exports');
  const text = await exports.locator('main').innerText();
  for (const sha of runs.exportSha256) expect(text).toContain(sha);

  const shots = process.env.CONSOLE_SCREENSHOTS;
  const pages = [runsPage, approvals, drills, posture, exports];
  if (shots) {
    for (const [i, name] of PAGES.entries()) {
      const page = pages[i];
      if (!page) continue;
      // The whole page, up to a height that keeps the docs' images small (the Drills page lists every resource).
      const height = Number(await page.evaluate<unknown>('document.documentElement.scrollHeight'));
      const width = page.viewportSize()?.width ?? 1280;
      const clip = { x: 0, y: 0, width, height: Math.min(height, SCREENSHOT_MAX_HEIGHT) };
      await page.screenshot({ path: join(shots, `console-${name}.png`), fullPage: true, clip });
    }
  }
  await Promise.all(pages.map((p) => p.close()));
});

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: number;
}

test('axe-core finds no serious or critical violation on any page', async () => {
  const found: string[] = [];
  for (const name of PAGES) {
    const page = await open(`/${name}`);
    await page.addScriptTag({ path: AXE });
    const violations = await page.evaluate<Violation[]>(
      'axe.run(document).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length })))',
    );
    for (const v of violations.filter((x) => x.impact === 'serious' || x.impact === 'critical')) {
      found.push(`/${name}: ${v.id} (${v.impact}, ${v.nodes} elements): ${v.help}`);
    }
    await page.close();
  }
  expect(found).toEqual([]);
});

test("the Approvals page's Nudge button sends the run one nudge signal", async () => {
  const handle = runs.waiting;
  if (!handle) throw new Error('no waiting restore');
  expect(await nudgesOf(handle)).toBe(0);
  const page = await open('/approvals');
  const [posted] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST'),
    page.getByRole('button', { name: `Nudge ${handle.workflowId}` }).click(),
  ]);
  const origin = await posted.request().headerValue('origin');
  expect([posted.status(), origin, posted.status() === 303 ? '' : await posted.text()]).toEqual([303, web.url, '']);
  await page.waitForURL(/\/approvals\?nudged=/);
  await eventually("the nudge in the run's history", async () => (await nudgesOf(handle)) === 1);
  await page.close();
  await handle.terminate('the test is over');
});
