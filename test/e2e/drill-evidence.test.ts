// The drill's evidence as an auditor meets it: JSON valid against its published schema, Markdown, and the HTML page
// rendered by a real headless Chromium; RPO measured against the newest snapshot before the drill began.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Ajv from 'ajv';
import { chromium, type BrowserContext } from 'playwright-core';
import { drDrill } from '../../runbooks/workflows';
import type { DrDrillInput, DrDrillResult } from '../../runbooks/dr-drill/contract';
import type { DrillReport } from '../../runbooks/dr-drill/report';
import schema from '../../runbooks/dr-drill/drill-report.schema.json';
import type { InventoryResource } from '../../api';
import { bucketDestination, eventually, nudge, setupE2E, teardownE2E, wireResourceType, type E2E } from './helpers';

const REPO = resolve(__dirname, '..', '..');
// Chromium's background connections fail on a closed network; these keep it to the page.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let fx: E2E;
let browser: BrowserContext;
let profile: string;
let vaultId: string;
let restoreAccountId: string;
const validate = new Ajv({ allErrors: true, strict: true }).compile<DrillReport>(schema);

beforeAll(async () => {
  const executablePath = execFileSync(process.execPath, [join(REPO, 'scripts', 'ensure-chromium.js')], {
    encoding: 'utf8',
  }).trim();
  profile = await mkdtemp(join(tmpdir(), 'runbooks-chromium-'));
  [fx, browser] = await Promise.all([
    setupE2E(),
    chromium.launchPersistentContext(profile, { executablePath, headless: true, args: CHROMIUM_ARGS }),
  ]);
  const state = fx.sim.ctx.state;
  const vault = Object.values(state.vaults).find((v) => v.name === 'backups-pa-east-1');
  const account = Object.values(state.restoreAccounts).find((a) => a.name === 'restore-pa');
  if (!vault || !account) throw new Error('the seeded simulator has no backups-pa-east-1 vault or restore-pa account');
  vaultId = vault.id;
  restoreAccountId = account.id;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await teardownE2E(fx);
  if (profile) await rm(profile, { recursive: true, force: true });
}, 60_000);

const snapshotsOf = (id: string) => Object.values(fx.sim.ctx.state.snapshots).filter((s) => s.resourceId === id);
const used = new Set<string>();

/** A resource of `type` no test has used, with seeded snapshots or without any. */
function take(type: string, snapshotted: boolean): InventoryResource {
  const found = Object.values(fx.sim.ctx.state.resources)
    .map((r) => r.resource)
    .sort((a, b) => a.id.localeCompare(b.id))
    .find((r) => r.resourceType === type && !used.has(r.id) && snapshotsOf(r.id).length > 0 === snapshotted);
  if (!found) throw new Error(`no unused ${type} resource ${snapshotted ? 'with' : 'without'} snapshots`);
  used.add(found.id);
  return found;
}

/** Backs a resource up now, outside any drill, and returns the snapshot once the job has made it. */
async function backUpNow(resource: InventoryResource) {
  const jobId = await fx.service.takeSnapshot(resource.id, { vaultId, retentionDays: 3 });
  return eventually(`the snapshot of backup job ${jobId}`, async () => {
    await fx.service.getBackupJob(jobId);
    return Object.values(fx.sim.ctx.state.snapshots).find((s) => s.jobId === jobId);
  });
}

async function drill(ids: string[], rpoSeconds: number): Promise<{ result: DrDrillResult; report: DrillReport }> {
  const input: DrDrillInput = {
    name: `evidence-${randomUUID().slice(0, 8)}`,
    resources: { ids },
    vaultId,
    restoreAccountId,
    destination: bucketDestination('dr-drill-restores', 'evidence/'),
    targets: { rpoSeconds, rtoSeconds: 600 },
    retentionDays: 3,
    parallelism: 3,
  };
  const handle = await fx.env.client.workflow.start(drDrill, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `drill-${input.name}`,
    args: [input],
  });
  const timer = setInterval(() => void nudge(handle).catch(() => undefined), 1_000);
  const result = await handle.result().finally(() => clearInterval(timer));
  const report = JSON.parse(await readFile(result.report.json, 'utf8')) as DrillReport;
  return { result, report };
}

test('an RPO target shorter than the age of the newest prior snapshot fails, with the snapshot it was measured against', async () => {
  const fresh = take('PA_VM', true);
  const stale = take('PA_OBJECT_STORE', true);
  const never = take('PA_FILE_SYSTEM', false);
  const recent = await backUpNow(fresh);
  const { result, report } = await drill([fresh.id, stale.id, never.id], 3600);

  expect(validate(report)).toBe(true);
  expect(validate.errors ?? []).toEqual([]);
  expect(report.schemaVersion).toBe(2);
  expect(result.summary).toMatchObject({ total: 3, passed: 1, failed: 2, verdict: 'FAIL' });
  const byId = new Map(report.resources.map((r) => [r.resourceId, r]));
  // Types as the service names them: the report an auditor reads speaks the service's dialect.
  for (const r of [fresh, stale, never]) expect(byId.get(r.id)?.resourceType).toBe(wireResourceType(r.resourceType));

  // Backed up a moment before the drill: that snapshot is the restore point, seconds old.
  const freshRow = byId.get(fresh.id);
  expect(freshRow).toMatchObject({ verdict: 'PASS', rpoMet: true, rpoPoint: { snapshotId: recent.id } });
  expect(freshRow?.rpoSeconds).toBeLessThan(3600);

  // The newest seeded snapshot is a day or more old: over the one-hour target, whatever the drill's own backup.
  const staleRow = byId.get(stale.id);
  const newest = snapshotsOf(stale.id)
    .filter((s) => (s.pointInTime ?? '') < report.startedAt)
    .sort((a, b) => (b.pointInTime ?? '').localeCompare(a.pointInTime ?? ''))[0];
  expect(staleRow).toMatchObject({ verdict: 'FAIL', rpoMet: false, rtoMet: true, restoreStatus: 'JOB_COMPLETED' });
  expect(staleRow?.rpoPoint).toEqual({ snapshotId: newest?.id, pointInTime: newest?.pointInTime });
  expect(staleRow?.rpoSeconds).toBeGreaterThan(3600);
  expect(staleRow?.reasons).toEqual([
    `RPO ${Math.round(staleRow?.rpoSeconds ?? 0)} s over target 3600 s (snapshot ${newest?.id} at ${newest?.pointInTime})`,
  ]);

  // Never backed up before: no restore point, so RPO is missed, yet the drill still measures the restore.
  const neverRow = byId.get(never.id);
  expect(neverRow).toMatchObject({ verdict: 'FAIL', rpoMet: false, rtoMet: true });
  expect(neverRow?.rpoPoint).toBeUndefined();
  expect(neverRow?.rpoSeconds).toBeUndefined();
  expect(neverRow?.reasons).toEqual(['RPO missed: no restorable snapshot before the drill began']);

  const markdown = await readFile(result.report.markdown, 'utf8');
  expect(markdown).toContain(`snapshot ${newest?.id} at ${newest?.pointInTime}, the newest before the drill`);
  expect(markdown).toContain('no restorable snapshot before the drill began');

  const html = result.report.html ?? '';
  expect(html).toMatch(/\.html$/);
  await expectPage(html, report);
});

test('a generous RPO target passes and the report validates against its schema', async () => {
  const resource = take('PA_VM', true);
  const { result, report } = await drill([resource.id], 3 * 86400);
  expect(validate(report)).toBe(true);
  expect(result.summary).toMatchObject({ total: 1, passed: 1, verdict: 'PASS' });
  expect(report.resources[0]).toMatchObject({ rpoMet: true, verdict: 'PASS' });
  expect(report.resources[0]?.rpoPoint?.snapshotId).toBeTruthy();
  await expectPage(result.report.html ?? '', report);
});

test('the schema refuses a report that misses a field or carries an unknown verdict', () => {
  const report = {
    schemaVersion: 2,
    name: 'x',
    workflowId: 'w',
    runId: 'r',
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:01:00.000Z',
    targets: { rpoSeconds: 60, rtoSeconds: 60 },
    resources: [{ resourceId: 'a', resourceName: 'a', resourceType: 'PA_VM', snapshotReused: false, reasons: [] }],
    summary: { total: 1, passed: 0, failed: 1, verdict: 'FAIL' },
  };
  expect(validate(report)).toBe(false);
  expect(validate.errors?.map((e) => e.message)).toContain("must have required property 'verdict'");
  expect(validate({ ...report, resources: [], summary: { ...report.summary, verdict: 'MAYBE' } })).toBe(false);
});

/** Opens the page in Chromium and checks what a person sees against the JSON report. */
async function expectPage(path: string, report: DrillReport): Promise<void> {
  const page = await browser.newPage();
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  try {
    const url = pathToFileURL(path).href;
    await page.goto(url);
    const s = report.summary;
    await expect(page.locator('#verdict').textContent()).resolves.toBe(
      `${s.verdict}: ${s.passed} of ${s.total} resources passed`,
    );
    const rows = page.locator('#resources tbody tr');
    await expect(rows.count()).resolves.toBe(report.resources.length);
    for (const r of report.resources) {
      const cells = await page.locator(`#resources tbody tr[data-resource-id="${r.resourceId}"] td`).allInnerTexts();
      expect(cells.slice(0, 3)).toEqual([r.resourceName, r.resourceType, r.verdict]);
      expect(cells[3]).toContain(r.rpoSeconds === undefined ? 'MISSED' : `${Math.round(r.rpoSeconds)} s`);
      expect(cells[4]).toContain(r.rpoPoint ? r.rpoPoint.snapshotId : 'no restorable snapshot before the drill began');
      expect(cells[5]).toContain(r.rtoSeconds === undefined ? 'n/a' : `${Math.round(r.rtoSeconds)} s`);
      await expect(
        page.locator(`#resources tbody tr[data-resource-id="${r.resourceId}"]`).getAttribute('class'),
      ).resolves.toBe(r.verdict === 'PASS' ? 'pass' : 'fail');
      for (const metric of ['rpo', 'rto'] as const) {
        const met = metric === 'rpo' ? r.rpoMet : r.rtoMet;
        const bar = page.locator(`svg.chart g.bar-row[data-metric="${metric}"][data-resource-id="${r.resourceId}"]`);
        await expect(bar.locator('rect.bar').count()).resolves.toBe(1);
        await expect(bar.getAttribute('class')).resolves.toBe(met === false ? 'bar-row missed' : 'bar-row');
        if (met === false) await expect(bar.locator('text.value').textContent()).resolves.toMatch(/✗/);
      }
    }
    for (const metric of ['rpo', 'rto'] as const) {
      await expect(page.locator(`svg.chart rect.bar.${metric}`).count()).resolves.toBe(report.resources.length);
      await expect(page.locator(`svg.chart line.target.${metric}`).count()).resolves.toBe(1);
    }
    const targets = await page.locator('svg.chart text.target-label').allTextContents();
    expect(targets).toHaveLength(2);
    // Drawn, not merely present: the chart has a size on the page, and no label runs past its edges.
    const box = await page.locator('svg.chart').boundingBox();
    expect(box?.width).toBeGreaterThan(300);
    for (const label of await page.locator('svg.chart text').all()) {
      const edges = await label.boundingBox();
      if (!box || !edges) throw new Error('the chart or one of its labels has no box');
      expect([edges.x >= box.x, edges.x + edges.width <= box.x + box.width]).toEqual([true, true]);
    }
    // Self-contained: the page asked for nothing but itself.
    expect(requests).toEqual([url]);
    const shot = process.env.DRILL_REPORT_SCREENSHOT;
    if (shot && report.summary.verdict === 'FAIL') await page.screenshot({ path: shot, fullPage: true });
  } finally {
    await page.close();
  }
}
