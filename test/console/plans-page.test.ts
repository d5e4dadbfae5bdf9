// The Plans page over recovery plan reports written and sealed by the runbook's own activity, through the console's
// routes over real HTTP: runs grouped by plan, newest first, with verdict, mode, RTO against its target, critical
// path, failed steps with their reasons, the common point's skew and the seal; the newest run of each plan with its
// timeline; a hostile plan name and reason escaped; a file that is not a report skipped with a note; each run's report
// files served by name, and nothing else (no path outside plan-reports/, no file the page does not list, no symlink).
import { mkdtemp, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { FastifyInstance } from 'fastify';
import { planReportFile } from '../../console/plans-page';
import { ConsoleGuard } from '../../console/security';
import { buildConsole } from '../../console/server';
import { HistoryIndex } from '../../history';
import { PlanReader } from '../../history/plan-index';
import { recoveryPlanActivities } from '../../runbooks/recovery-plan/activities';
import type { PlanReport, PlanReportPaths } from '../../runbooks/recovery-plan/contract';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { loadOrCreateEvidenceKey, type EvidenceKey } from '../../runtime/evidence-key';
import { failedPlan, HOSTILE_REASON, passedPlan } from '../helpers/plan-reports';
import { listen, type Client } from './listen';

const HOSTILE_NAME = 'pay<script>alert("plan")</script>\u202e';
const data = { runs: async () => [], approvals: async () => [], nudge: async () => undefined };
// writePlanReport only writes files: it never calls the service.
const noService = new Proxy(
  {},
  {
    get: () => {
      throw new Error('writePlanReport called the service');
    },
  },
) as ActivityDeps['client'];

const env = new MockActivityEnvironment();

/** Writes and seals one run's report with the runbook's own activity; returns its files' base name. */
async function writePlan(outputDir: string, key: EvidenceKey, report: PlanReport): Promise<string> {
  const { schemaVersion: _version, ...rest } = report;
  const activities = recoveryPlanActivities({ outputDir, evidenceKey: key, client: noService });
  const write = (input: { report: typeof rest }) => activities.writePlanReport(input);
  const paths: PlanReportPaths = await env.run(write, { report: rest });
  return basename(paths.html, '.html');
}

let root: string;
let app: FastifyInstance;
let ask: Client;
const files = { passed: '', failed: '', hostile: '' };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'console-plans-'));
  const key = await loadOrCreateEvidenceKey(join(root, 'evidence-signing-key.pem'));
  files.failed = await writePlan(root, key, failedPlan);
  files.passed = await writePlan(root, key, passedPlan);
  files.hostile = await writePlan(root, key, { ...failedPlan, name: HOSTILE_NAME, runId: 'run-hostile' });
  await writeFile(join(root, 'plan-reports', 'plan-broken--run-x.json'), '{ "schemaVersion": 1, "name": ');
  await writeFile(join(root, 'secret.html'), '<p>not a report</p>');
  app = buildConsole({
    data,
    guard: new ConsoleGuard({}),
    history: new HistoryIndex({ outputDir: root }),
    namespace: 'default',
  });
  ask = await listen(app);
});

afterAll(async () => {
  await app?.close();
  await rm(root, { recursive: true, force: true });
});

async function page(url = '/plans'): Promise<string> {
  const res = await ask({ url });
  expect(res.statusCode).toBe(200);
  return res.body;
}

/** Each plan's section: its heading's text and its rows, each row's cells as text. */
function sections(html: string): { heading: string; rows: string[][]; html: string }[] {
  const text = (s: string) =>
    s
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
  return [...html.matchAll(/<section class="plan">([\s\S]*?)<\/section>/g)].map(([, body = '']) => ({
    heading: text(/<h2>([\s\S]*?)<\/h2>/.exec(body)?.[1] ?? ''),
    rows: [...body.matchAll(/<tr data-plan-run[^>]*>([\s\S]*?)<\/tr>/g)].map(([, row = '']) =>
      [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map(([, cell = '']) => text(cell)),
    ),
    html: body,
  }));
}

test('lists every run, grouped by plan, newest first, with its figures and its seal verified', async () => {
  const found = sections(await page());
  expect(found.map((s) => s.heading)).toEqual([
    expect.stringMatching(/^payments 2 runs, last PASS$/),
    expect.stringMatching(/^pay.*alert.*1 run, last FAIL$/),
  ]);
  const [payments] = found;
  const [newest, older] = payments?.rows ?? [];
  expect(newest).toEqual([
    `plan-payments-drill-2026-11-29 run ${passedPlan.runId}`,
    '2026-11-29 03:15:10Z from 2026-11-29 02:00:00Z',
    'drill',
    'PASS 8/8 passed',
    '1 h 15 min / 1 h 30 min met',
    'database → database-check → bucket → vm-web → settle → dns → app-check',
    'none',
    '12 min / 1 h 00 min at 2026-11-29 01:30:00Z',
    'verified',
    'report · md · json',
  ]);
  expect(older?.slice(2, 5)).toEqual(['drill', 'FAIL 4/8 passed', '1 h 05 min / 1 h 00 min MISSED']);
  expect(older?.[8]).toBe('verified');
});

test('a FAIL run names its failed steps with their reasons; the timeline is the newest run of each plan', async () => {
  const [payments, hostile] = sections(await page());
  const failedRow = payments?.rows[1] ?? [];
  expect(failedRow[6]).toMatch(/^vm-api : restore job failed: &lt;script&gt;/);
  expect(failedRow[6]).toContain('3 skipped after');
  // One timeline per plan, of its newest run: payments passed every step, the other plan lost vm-api.
  expect(payments?.html.match(/<svg [^>]*class="gantt"/g)).toHaveLength(1);
  expect(payments?.html).toMatch(/<g class="gantt-row passed critical" data-step-id="app-check"/);
  expect(payments?.html).not.toContain('data-status="failed"');
  expect(hostile?.html).toMatch(/<svg [^>]*id="timeline-2"/);
  expect(hostile?.html).toContain('data-step-id="vm-api" data-status="failed"');
});

test('a hostile plan name and reason are escaped and isolated; no style attribute reaches the page', async () => {
  const html = await page();
  expect(html).not.toContain('<script>');
  expect(html).not.toContain(HOSTILE_REASON);
  expect(html).toContain('pay&lt;script&gt;alert(&quot;plan&quot;)&lt;/script&gt;');
  expect(html).toContain('restore job failed: &lt;script&gt;alert(1)&lt;/script&gt;');
  // The name holds U+202E: inside <bdi>, it cannot reorder the heading around it.
  expect(html).toMatch(/<h2><bdi>pay&lt;script&gt;/);
  // The console's CSP refuses style attributes: the timeline is styled by presentation attributes.
  expect(html).not.toMatch(/\sstyle=/);
});

test('a file that is not a readable report is left out with a note; the others are listed', async () => {
  const html = await page();
  expect(html).toContain('1 file(s) skipped: plan-broken--run-x is not JSON');
  expect(html).toContain('3 recovery plan reports of 2 plans');
});

test('filters by plan and verdict; a plan the folder does not hold is ignored, never echoed', async () => {
  const onePlan = sections(await page('/plans?plan=payments'));
  expect(onePlan.map((s) => s.rows.length)).toEqual([2]);
  const failed = sections(await page('/plans?verdict=FAIL'));
  expect(failed.flatMap((s) => s.rows.map((r) => r[3]?.slice(0, 4)))).toEqual(['FAIL', 'FAIL']);
  const unknown = await page(`/plans?plan=${encodeURIComponent('<b>nope</b>')}`);
  expect(sections(unknown)).toHaveLength(2);
  expect(unknown).not.toContain('nope');
});

test("each run links to its own report files, served with the report's own styles and no script", async () => {
  const html = await page();
  for (const file of Object.values(files)) {
    for (const ext of ['html', 'md', 'json']) expect(html).toContain(`href="/plans/report/${file}.${ext}"`);
  }
  const report = await ask({ url: `/plans/report/${files.failed}.html` });
  expect(report.statusCode).toBe(200);
  expect(report.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(report.body).toBe(await readFile(join(root, 'plan-reports', `${files.failed}.html`), 'utf8'));
  const csp = String(report.headers['content-security-policy']);
  expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[\w+/=]+'; /);
  expect(csp).toContain('sandbox');
  expect(csp).not.toMatch(/script-src|unsafe-inline|unsafe-eval/);
  expect(report.headers['x-content-type-options']).toBe('nosniff');
  const md = await ask({ url: `/plans/report/${files.failed}.md` });
  expect([md.statusCode, md.headers['content-type']]).toEqual([200, 'text/plain; charset=utf-8']);
  const json = await ask({ url: `/plans/report/${files.failed}.json` });
  expect([json.statusCode, json.headers['content-type']]).toEqual([200, 'application/json; charset=utf-8']);
  expect((JSON.parse(json.body) as PlanReport).runId).toBe(failedPlan.runId);
});

test('the file route refuses a path outside plan-reports/ and any file the page does not list', async () => {
  for (const url of [
    '/plans/report/..%2Fsecret.html',
    '/plans/report/..%2Fevidence-signing-key.pem',
    '/plans/report/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd',
    `/plans/report/..%2Fplan-reports%2F${files.passed}.html`,
    `/plans/report/${encodeURIComponent(join(root, 'secret.html'))}`,
    '/plans/report/evidence-public-key.pem',
    `/plans/report/${files.passed}.seal.json`,
    `/plans/report/${files.passed}`,
    '/plans/report/plan-broken--run-x.json',
  ]) {
    const res = await ask({ url });
    expect({ url, status: res.statusCode }).toEqual({ url, status: 404 });
    expect(res.body).toContain('No such report file of a plan run.');
    expect(res.body).not.toContain('not a report');
    expect(res.body).not.toContain('PRIVATE KEY');
  }
});

test('with a token, the report files need it as the pages do', async () => {
  const guarded = buildConsole({
    data,
    guard: new ConsoleGuard({ token: 'a-console-token-of-32-characters' }),
    history: new HistoryIndex({ outputDir: root }),
    namespace: 'default',
  });
  const asks = await listen(guarded);
  try {
    const url = `/plans/report/${files.passed}.html`;
    expect((await asks({ url })).statusCode).toBe(401);
    const bearer = { authorization: 'Bearer a-console-token-of-32-characters' };
    expect((await asks({ url, headers: bearer })).statusCode).toBe(200);
  } finally {
    await guarded.close();
  }
});

test('a report edited after its seal shows FAILED; its HTML swapped for a symlink is never followed', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'console-plans-edit-'));
  try {
    const key = await loadOrCreateEvidenceKey(join(dir, 'evidence-signing-key.pem'));
    const file = await writePlan(dir, key, passedPlan);
    const reader = new PlanReader({ outputDir: dir });
    expect((await reader.read()).plans.map((d) => d.seal.status)).toEqual(['verified']);
    // Nothing changed: the seals are not verified again.
    await reader.read();
    expect(reader.lastVerified).toBe(false);
    const md = join(dir, 'plan-reports', `${file}.md`);
    await writeFile(md, `${await readFile(md, 'utf8')}\nRTO met, trust me.\n`);
    const [edited] = (await reader.read()).plans;
    expect(reader.lastVerified).toBe(true);
    expect(edited?.seal.status).toBe('failed');
    expect(edited?.seal.problems.map((p) => p.detail).join()).toContain(`${file}.md does not match its seal`);

    const html = join(dir, 'plan-reports', `${file}.html`);
    await unlink(html);
    await writeFile(join(dir, 'outside.html'), '<p>outside</p>');
    await symlink(join(dir, 'outside.html'), html);
    const index = await reader.read();
    expect(await planReportFile(index, `${file}.html`)).toBeUndefined();
    expect((await planReportFile(index, `${file}.json`))?.contentType).toBe('application/json; charset=utf-8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
