// The drill's evidence as an auditor meets it: JSON valid against its published schema, Markdown, and the HTML page
// rendered by a real headless Chromium; RPO measured on the recovery point restored; every run of a drill kept, sealed
// and verifiable, a rerun under the same workflow ID included.
import { randomUUID } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Ajv from 'ajv';
import type { BrowserContext } from 'playwright-core';
import { drDrill } from '../../runbooks/workflows';
import { DrDrillInput, drDrillContract } from '../../runbooks/dr-drill/contract';
import type { DrillReport } from '../../runbooks/dr-drill/report';
import schema from '../../runbooks/dr-drill/drill-report.schema.json';
import type { InventoryResource } from '../../api';
import { DEFAULT_EVIDENCE_KEY_FILE, loadOrCreateEvidenceKey } from '../../runtime/evidence-key';
import { Seal, SEAL_SUFFIX, sealSha256 } from '../../runtime/evidence-seal';
import { runCliFromSource } from '../helpers/cli-from-source';
import {
  bucketDestination,
  eventually,
  nudge,
  setupE2E,
  teardownE2E,
  wireResourceType,
  type E2E,
  drillVaultAndAccount,
} from './helpers';
import { launchChromium, type Chromium } from './chromium';

let fx: E2E;
let chrome: Chromium;
let browser: BrowserContext;
let profile: string;
let vaultId: string;
let restoreAccountId: string;
const validate = new Ajv({ allErrors: true, strict: true }).compile<DrillReport>(schema);

beforeAll(async () => {
  [fx, chrome] = await Promise.all([setupE2E(), launchChromium()]);
  browser = chrome.context;
  profile = chrome.profile;
  const { vault, account } = drillVaultAndAccount(fx);
  vaultId = vault.id;
  restoreAccountId = account.id;
}, 120_000);

afterAll(async () => {
  await chrome?.close();
  await teardownE2E(fx);
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

function drillInput(ids: string[], rpoSeconds: number, more: Partial<DrDrillInput> = {}): DrDrillInput {
  return {
    name: `evidence-${randomUUID().slice(0, 8)}`,
    resources: { ids },
    vaultId,
    restoreAccountId,
    destination: bucketDestination('dr-drill-restores', 'evidence/'),
    targets: { rpoSeconds, rtoSeconds: 600 },
    retentionDays: 3,
    parallelism: 3,
    ...more,
  };
}

/** Runs a drill to its end under `workflowId`; returns its result, its report and its run ID. */
async function run(input: DrDrillInput, workflowId = `drill-${input.name}`) {
  const handle = await fx.env.client.workflow.start(drDrill, {
    taskQueue: fx.worker.taskQueue,
    workflowId,
    args: [input],
  });
  const timer = setInterval(() => void nudge(handle).catch(() => undefined), 1_000);
  const result = await handle.result().finally(() => clearInterval(timer));
  const report = JSON.parse(await readFile(result.report.json, 'utf8')) as DrillReport;
  return { result, report, runId: handle.firstExecutionRunId };
}

const drill = (ids: string[], rpoSeconds: number, more: Partial<DrDrillInput> = {}) =>
  run(drillInput(ids, rpoSeconds, more));

test('the latest recovery point is restored and RPO measured on it: an old one misses a short target, none is a finding', async () => {
  const recent = take('PA_VM', true);
  const stale = take('PA_OBJECT_STORE', true);
  const never = take('PA_FILE_SYSTEM', false);
  const taken = await backUpNow(recent);
  const { result, report } = await drill([recent.id, stale.id, never.id], 3600);

  expect(validate(report)).toBe(true);
  expect(validate.errors ?? []).toEqual([]);
  expect(report.schemaVersion).toBe(3);
  expect(result.summary).toMatchObject({ total: 3, passed: 1, partial: 0, failed: 2, verdict: 'FAIL' });
  const byId = new Map(report.resources.map((r) => [r.resourceId, r]));
  // Types as the service names them: the report an auditor reads speaks the service's dialect.
  for (const r of [recent, stale, never]) expect(byId.get(r.id)?.resourceType).toBe(wireResourceType(r.resourceType));

  // Backed up a moment before the drill: that snapshot is the one restored, and RPO is its age, under the target.
  const recentRow = byId.get(recent.id);
  expect(recentRow).toMatchObject({
    verdict: 'PASS',
    rpoMet: true,
    recoveryPoint: { snapshotId: taken.id, selection: 'latest', windowDays: 30 },
  });
  expect(recentRow?.backupJobId).toBeUndefined();
  expect(recentRow?.rpoSeconds).toBe((Date.parse(report.startedAt) - Date.parse(taken.pointInTime ?? '')) / 1000);

  // The newest seeded snapshot is a day or more old: restored, and over the one-hour target.
  const staleRow = byId.get(stale.id);
  const newest = snapshotsOf(stale.id)
    .filter((s) => (s.pointInTime ?? '') < report.startedAt)
    .sort((a, b) => (b.pointInTime ?? '').localeCompare(a.pointInTime ?? ''))[0];
  expect(staleRow).toMatchObject({ verdict: 'FAIL', rpoMet: false, rtoMet: true, restoreStatus: 'JOB_COMPLETED' });
  expect(staleRow?.recoveryPoint).toMatchObject({ snapshotId: newest?.id, pointInTime: newest?.pointInTime });
  expect(staleRow?.rpoSeconds).toBeGreaterThan(3600);
  expect(staleRow?.reasons).toEqual([
    `RPO ${Math.round(staleRow?.rpoSeconds ?? 0)} s over target 3600 s (recovery point ${newest?.id} at ${newest?.pointInTime})`,
  ]);

  // Never backed up: nothing to restore. A finding in the report, not an error of the run.
  const neverRow = byId.get(never.id);
  expect(neverRow).toMatchObject({ verdict: 'FAIL', reasons: ['no recovery point in the last 30 days'] });
  expect(neverRow?.recoveryPoint).toBeUndefined();
  expect(neverRow?.restoreJobId).toBeUndefined();

  const markdown = await readFile(result.report.markdown, 'utf8');
  expect(markdown).toContain(`| ${taken.id} at ${taken.pointInTime} (latest in 30 days) |`);
  expect(markdown).toContain(`- FAIL ${never.resourceName}: no recovery point in the last 30 days`);
  // What did not pass comes first: the list of it, and the table's first rows.
  expect(markdown.indexOf('## Not passed')).toBeLessThan(markdown.indexOf('## Resources'));

  const html = result.report.html ?? '';
  expect(html).toMatch(/\.html$/);
  await expectPage(html, report);
});

test('a fresh snapshot is restored with RPO 0, and the newest snapshot before the drill is reported apart', async () => {
  const resource = take('PA_VM', true);
  const { result, report } = await drill([resource.id], 3 * 86400, { recoveryPoint: { select: 'fresh' } });
  expect(validate(report)).toBe(true);
  expect(validate.errors ?? []).toEqual([]);
  expect(result.summary).toMatchObject({ total: 1, passed: 1, verdict: 'PASS' });
  const row = report.resources[0];
  const before = snapshotsOf(resource.id)
    .filter((s) => (s.pointInTime ?? '') < report.startedAt)
    .sort((a, b) => (b.pointInTime ?? '').localeCompare(a.pointInTime ?? ''))[0];
  expect(row).toMatchObject({
    verdict: 'PASS',
    rpoSeconds: 0,
    recoveryPoint: { selection: 'fresh' },
    rpoPoint: { snapshotId: before?.id, pointInTime: before?.pointInTime },
  });
  expect(row?.recoveryPoint?.snapshotId).not.toBe(before?.id);
  expect(row?.newestBeforeDrillSeconds).toBe(
    (Date.parse(report.startedAt) - Date.parse(before?.pointInTime ?? '')) / 1000,
  );
  expect(row?.rtoSeconds).toBe((row?.rtoRestoreSeconds ?? NaN) + (row?.rtoValidationSeconds ?? 0));
  const markdown = await readFile(result.report.markdown, 'utf8');
  expect(markdown).toContain('| Newest snapshot before the drill (not restored) |');
  expect(markdown).toContain(`| ${before?.id} at ${before?.pointInTime}, `);
  await expectPage(result.report.html ?? '', report);
});

test('two runs of one drill on one day: both reports kept, both sealed, the second linked to the first, and both verify', async () => {
  const resource = take('PA_VM', true);
  const input = drillInput([resource.id], 3 * 86400);
  // The workflow ID a drill gets by default: one per name and day. Temporal takes it again once the first run closed.
  const workflowId = drDrillContract.defaultId(DrDrillInput.parse(input), { now: new Date(), hash: (t) => t });
  const first = await run(input, workflowId);
  const second = await run(input, workflowId);
  expect(second.runId).not.toBe(first.runId);

  const reports = dirname(first.result.report.json);
  const names = [first, second].map(({ runId }) => `${workflowId}--${runId}`);
  expect([first, second].map(({ result }) => basename(result.report.json, '.json'))).toEqual(names);
  const files = await readdir(reports);
  for (const name of names) {
    for (const ext of ['json', 'md', 'html', 'seal.json']) expect(files).toContain(`${name}.${ext}`);
  }
  // Each report is its own run's, and the first was not written over.
  expect([first.report.runId, second.report.runId]).toEqual([first.runId, second.runId]);
  expect(JSON.parse(await readFile(join(reports, `${names[0]}.json`), 'utf8'))).toEqual(first.report);
  for (const { report } of [first, second]) expect(validate(report)).toBe(true);

  const [one, two] = await Promise.all(
    names.map(async (name) => Seal.parse(JSON.parse(await readFile(join(reports, `${name}${SEAL_SUFFIX}`), 'utf8')))),
  );
  expect(one).toMatchObject({ chain: input.name, sequence: 1, previousSha256: null, workflowId, runId: first.runId });
  expect(two).toMatchObject({ chain: input.name, sequence: 2, workflowId, runId: second.runId });
  expect(two?.previousSha256).toBe(one && sealSha256(one));

  const key = await loadOrCreateEvidenceKey(join(fx.outputDir, DEFAULT_EVIDENCE_KEY_FILE));
  const publicKey = join(profile, 'auditor-copy.pem');
  await writeFile(publicKey, key.publicKeyPem);
  const verified = runCliFromSource(['evidence', 'verify', reports, '--public-key', publicKey]);
  expect(verified.stderr).toBe('');
  expect(verified.stdout).toContain(`chain ${input.name}: ok, 2 reports: ${names.join(', ')}`);
  expect(verified.status).toBe(0);
});

test('the schema refuses a report that misses a field or carries an unknown verdict', () => {
  const report = {
    schemaVersion: 3,
    name: 'x',
    workflowId: 'w',
    runId: 'r',
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:01:00.000Z',
    targets: { rpoSeconds: 60, rtoSeconds: 60 },
    resources: [{ resourceId: 'a', resourceName: 'a', resourceType: 'PA_VM', snapshotReused: false, reasons: [] }],
    summary: { total: 1, passed: 0, partial: 0, failed: 1, verdict: 'FAIL' },
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
      `${s.verdict}: ${s.passed} passed, ${s.partial ?? 0} partial, ${s.failed} failed of ${s.total}`,
    );
    await expect(page.locator('#totals td').allInnerTexts()).resolves.toEqual(
      [s.total, s.passed, s.partial, s.failed].map(String),
    );
    const headers = await page.locator('#resources thead th').allInnerTexts();
    const rows = page.locator('#resources tbody tr');
    await expect(rows.count()).resolves.toBe(report.resources.length);
    // Rows that did not pass come first.
    const order = await Promise.all((await rows.all()).map((row) => row.getAttribute('class')));
    const rank = (c: string | null) => ['fail', 'partial', 'pass'].indexOf(c ?? '');
    expect(order.map(rank)).toEqual([...order.map(rank)].sort((a, b) => a - b));
    for (const r of report.resources) {
      const row = page.locator(`#resources tbody tr[data-resource-id="${r.resourceId}"]`);
      const texts = await row.locator('td').allInnerTexts();
      const cell = (header: string) => texts[headers.indexOf(header)] ?? `(no column ${header})`;
      expect([cell('Resource'), cell('Type'), cell('Verdict')]).toEqual([r.resourceName, r.resourceType, r.verdict]);
      expect(cell('Recovery point restored')).toContain(r.recoveryPoint?.snapshotId ?? 'none restored');
      expect(cell('RPO')).toContain(r.rpoSeconds === undefined ? 'n/a' : `${Math.round(r.rpoSeconds)} s`);
      expect(cell('Newest snapshot before the drill (not restored)')).toContain(r.rpoPoint?.snapshotId ?? '—');
      const rto = cell('RTO (restore + validation)');
      expect(rto).toContain(r.rtoSeconds === undefined ? 'n/a' : `${Math.round(r.rtoSeconds)} s`);
      if (r.rtoRestoreSeconds !== undefined) expect(rto).toContain(`= restore ${Math.round(r.rtoRestoreSeconds)} s`);
      await expect(row.getAttribute('class')).resolves.toBe(r.verdict.toLowerCase());
      for (const metric of ['rpo', 'rto'] as const) {
        const met = metric === 'rpo' ? r.rpoMet : r.rtoMet;
        const bar = page.locator(`svg.chart g.bar-row[data-metric="${metric}"][data-resource-id="${r.resourceId}"]`);
        await expect(bar.locator('rect.bar').count()).resolves.toBeGreaterThan(0);
        await expect(bar.getAttribute('class')).resolves.toBe(met === false ? 'bar-row missed' : 'bar-row');
        if (met === false) await expect(bar.locator('text.value').textContent()).resolves.toMatch(/✗/);
      }
    }
    for (const metric of ['rpo', 'rto'] as const) {
      await expect(page.locator(`svg.chart g.bar-row[data-metric="${metric}"]`).count()).resolves.toBe(
        report.resources.length,
      );
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
