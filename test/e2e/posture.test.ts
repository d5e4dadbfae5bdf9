// postureReport end to end: the report's counts and lists checked against the simulator's own records.
import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { InventoryResource } from '../../api';
import { postureReport } from '../../runbooks/workflows';
import type { PostureReportInput } from '../../runbooks/posture-report/contract';
import { STALE_COLUMNS, UNPROTECTED_COLUMNS } from '../../runbooks/posture-report/activities';
import type { PostureCounts, PostureReportResult } from '../../runbooks/posture-report/report';
import { csvRecord } from '../../runtime/csv';
import { RunbookKindKey, statusQuery } from '../../contracts';
import { PAGES_PER_RUN } from '../../runbooks/posture-report/workflow';
import { expectRefusedInput, setupE2E, teardownE2E, wireProvider, wireResourceType, type E2E } from './helpers';
import { runChain, scheduled } from './run-chain';

let fx: E2E;

beforeAll(async () => {
  fx = await setupE2E();
}, 120_000);

afterAll(() => teardownE2E(fx), 60_000);

const HOUR_MS = 3_600_000;
const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');

function start(input: PostureReportInput, workflowId = `posture-report-${randomUUID()}`) {
  return fx.env.client.workflow.start(postureReport, {
    taskQueue: fx.worker.taskQueue,
    workflowId,
    args: [input],
  });
}

/** The simulator's resources, read from its state rather than through the API the runbook uses. */
function simResources(): InventoryResource[] {
  return Object.values(fx.sim.ctx.state.resources).map((r) => r.resource);
}

/** The newest point in time of each resource's snapshots, from the simulator's state; absent when it has none. */
function newestSnapshotTimes(): Map<string, number> {
  const newest = new Map<string, number>();
  for (const s of Object.values(fx.sim.ctx.state.snapshots)) {
    const t = Date.parse(s.pointInTime ?? s.createdTime);
    if (t > (newest.get(s.resourceId) ?? -Infinity)) newest.set(s.resourceId, t);
  }
  return newest;
}

/** The report's counts, from the state's resources: providers and types as the service's dialect names them. */
function expectedCounts(resources: InventoryResource[]): PostureCounts {
  const counts: PostureCounts = { backupStatus: {}, cloudProvider: {}, resourceType: {}, environment: {} };
  const bump = (m: Record<string, number>, k: string) => (m[k] = (m[k] ?? 0) + 1);
  for (const r of resources) {
    bump(counts.backupStatus, r.backupStatus);
    bump(counts.cloudProvider, wireProvider(r.cloudProvider));
    bump(counts.resourceType, wireResourceType(r.resourceType));
    bump(counts.environment, r.classifications?.environmentDetails?.environment ?? 'ENVIRONMENT_UNSPECIFIED');
  }
  return counts;
}

/** The first column (resource ID) of each data row of a CSV whose fields hold no quotes or line breaks. */
async function idsInCsv(path: string, header: readonly string[]): Promise<string[]> {
  const text = await readFile(path, 'utf8');
  expect(text.startsWith(csvRecord(header))).toBe(true);
  expect(text.endsWith('\r\n')).toBe(true);
  const lines = text.split('\r\n').slice(1, -1);
  for (const line of lines) expect(line.split(',')).toHaveLength(header.length);
  return lines.map((line) => line.split(',')[0] ?? '').sort();
}

async function expectFile(file: PostureReportResult['files']['html']): Promise<string> {
  const text = await readFile(file.path, 'utf8');
  expect(file.sha256).toBe(sha256(text));
  expect(file.bytes).toBe(Buffer.byteLength(text));
  return text;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
  return entries.map(String);
}

type ProviderFilter = NonNullable<PostureReportInput['filters']>['cloudProvider'];

/**
 * A provider filter naming the provider as this file's service does. The input types list the interface's values;
 * the runbook takes the public ones too (docs/service-interface.md §11), which the public run checks.
 */
function providerFilter(stateProvider: string): ProviderFilter {
  return { in: [wireProvider(stateProvider)] } as ProviderFilter;
}

async function simNow(): Promise<number> {
  return Date.parse((await fx.control.state()).now);
}

test('a bad input fails the run as INVALID_INPUT before any call, and writes no file', async () => {
  const cases: [unknown, string][] = [
    [{ maxSnapshotAgeHours: -1 }, 'maxSnapshotAgeHours'],
    [{ maxSnapshotAge: 24 }, "did you mean 'maxSnapshotAgeHours'?"],
    [{ protectedStatuses: ['SAFE'] }, 'protectedStatuses'],
    // A provider no dialect can name (an unknown token-shaped one, such as PROVIDER_Z, is left for the service to judge).
    [{ filters: { cloudProvider: { in: ['Amazon Web Services'] } } }, 'filters.cloudProvider'],
  ];
  for (const [input, text] of cases) {
    const workflowId = `posture-report-bad-${randomUUID()}`;
    const handle = await start(input as PostureReportInput, workflowId);
    await expectRefusedInput(handle, text);
    expect((await filesUnder(fx.outputDir)).filter((f) => f.includes(workflowId))).toEqual([]);
  }
});

test('counts every resource by status, provider, type and environment, and lists the unprotected and stale ones', async () => {
  const before = await simNow();
  // 40 a page: the 220 seeded resources take six pages, each its own activity.
  const handle = await start({ maxSnapshotAgeHours: 72, pageSize: 40 });
  const result = await handle.result();
  const after = await simNow();

  const resources = simResources();
  expect(result.resources).toBe(resources.length);
  expect(result.counts).toEqual(expectedCounts(resources));
  // The service's clock (to the second of its Date header) fixed the cutoff at the start.
  expect(Date.parse(result.asOf)).toBeGreaterThanOrEqual(before - 1_000);
  expect(Date.parse(result.asOf)).toBeLessThanOrEqual(after + 1_000);
  expect(Date.parse(result.asOf) - Date.parse(result.cutoff)).toBe(72 * HOUR_MS);

  const unprotected = resources.filter((r) => r.backupStatus !== 'PROTECTED').map((r) => r.id);
  const newest = newestSnapshotTimes();
  const cutoff = Date.parse(result.cutoff);
  const stale = resources.filter((r) => !((newest.get(r.id) ?? -Infinity) >= cutoff)).map((r) => r.id);
  // Seeded snapshots are at most two days old: only the resources without any are stale at 72 hours.
  expect(stale.sort()).toEqual(
    resources
      .filter((r) => !newest.has(r.id))
      .map((r) => r.id)
      .sort(),
  );
  expect(unprotected.length).toBeGreaterThan(0);
  expect(stale.length).toBeGreaterThan(0);

  expect(result.unprotected).toBe(unprotected.length);
  expect(result.stale).toBe(stale.length);
  expect(await idsInCsv(result.files.unprotectedCsv.path, UNPROTECTED_COLUMNS)).toEqual(unprotected.sort());
  expect(await idsInCsv(result.files.staleCsv.path, STALE_COLUMNS)).toEqual(stale.sort());
  expect(result.files.unprotectedCsv.rows).toBe(unprotected.length);
  expect(result.files.staleCsv.rows).toBe(stale.length);
  await expectFile(result.files.unprotectedCsv);
  await expectFile(result.files.staleCsv);
  const html = await expectFile(result.files.html);
  expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
  for (const id of [...unprotected, ...stale]) expect(html).toContain(id);
  const aws = wireProvider('PROVIDER_A');
  expect(html).toContain(`<td>${aws}</td><td>${result.counts.cloudProvider[aws] ?? -1}</td>`);

  // Only the final files are left: no partial file of the run.
  const dir = join(fx.outputDir, 'posture-reports');
  const base = `${handle.workflowId}--${handle.firstExecutionRunId}`;
  expect((await readdir(dir)).filter((f) => f.startsWith(handle.workflowId)).sort()).toEqual(
    [`${base}-stale.csv`, `${base}-unprotected.csv`, `${base}.html`].sort(),
  );
  // Six pages, six scans: the status shows the whole inventory done.
  const status = await handle.query(statusQuery);
  expect(status.phase).toBe('completed');
  expect(status.progress).toEqual({ done: resources.length, total: resources.length, unit: 'resources' });
  const { events } = await handle.fetchHistory();
  const scans = (events ?? []).filter(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'scanPosturePage',
  );
  expect(scans).toHaveLength(Math.ceil(resources.length / 40));
  expect((await handle.describe()).typedSearchAttributes.get(RunbookKindKey)).toBe('postureReport');
});

test('inventory filters narrow the report, and protectedStatuses widens what counts as protected', async () => {
  const result = await (
    await start({
      maxSnapshotAgeHours: 72,
      filters: { cloudProvider: providerFilter('PROVIDER_B') },
      protectedStatuses: ['PROTECTED', 'ALL_VIOLATIONS_MUTED'],
    })
  ).result();
  const resources = simResources().filter((r) => r.cloudProvider === 'PROVIDER_B');
  expect(result.resources).toBe(resources.length);
  expect(result.counts).toEqual(expectedCounts(resources));
  const unprotected = resources.filter((r) => !['PROTECTED', 'ALL_VIOLATIONS_MUTED'].includes(r.backupStatus));
  expect(await idsInCsv(result.files.unprotectedCsv.path, UNPROTECTED_COLUMNS)).toEqual(
    unprotected.map((r) => r.id).sort(),
  );
});

test('a page whose snapshot call failed is scanned again, and its rows are written once', async () => {
  const resources = simResources();
  const victim = [...resources].sort((a, b) => (a.id < b.id ? -1 : 1))[100];
  if (!victim) throw new Error('the seeded inventory has fewer than 101 resources');
  // One 503 on that resource's snapshot listing: its page fails and Temporal retries it.
  const path = `/v1/projects/${fx.sim.projectId}/resources/${victim.id}/snapshots`;
  expect(await fx.control.faultOnce('503', 'POST', path)).toBe(true);
  const handle = await start({ maxSnapshotAgeHours: 72, pageSize: 40 });
  const result = await handle.result();

  const newest = newestSnapshotTimes();
  const stale = resources.filter((r) => !newest.has(r.id)).map((r) => r.id);
  const unprotected = resources.filter((r) => r.backupStatus !== 'PROTECTED').map((r) => r.id);
  expect(await idsInCsv(result.files.staleCsv.path, STALE_COLUMNS)).toEqual(stale.sort());
  expect(await idsInCsv(result.files.unprotectedCsv.path, UNPROTECTED_COLUMNS)).toEqual(unprotected.sort());
  expect(result.counts).toEqual(expectedCounts(resources));
  const { events } = await handle.fetchHistory();
  const retried = (events ?? []).filter((e) => (e.activityTaskStartedEventAttributes?.attempt ?? 1) > 1);
  expect(retried).toHaveLength(1);
});

test('a resource whose newest snapshot falls behind the age limit (the clock moved on) is listed as stale', async () => {
  // The resources with snapshots, oldest newest snapshot first, and a gap of at least two minutes to cut at.
  const newest = newestSnapshotTimes();
  const resources = simResources().filter((r) => r.cloudProvider === 'PROVIDER_A');
  const dated = resources
    .filter((r) => newest.has(r.id))
    .map((r) => ({ id: r.id, time: newest.get(r.id) ?? 0 }))
    .sort((a, b) => a.time - b.time);
  const cut = dated.findIndex((d, i) => (dated[i + 1]?.time ?? Infinity) - d.time >= 2 * 60_000);
  const last = dated[cut];
  const next = dated[cut + 1];
  if (cut < 0 || !last || !next) throw new Error('no two provider A resources with snapshots two minutes apart');
  const turning = dated.slice(0, cut + 1).map((d) => d.id);
  // Ages are measured from the service's clock: move it so that the cut sits exactly 72 hours back.
  const middle = (last.time + next.time) / 2;
  const seconds = (middle + 72 * HOUR_MS - (await simNow())) / 1000;
  expect(seconds).toBeGreaterThan(0);
  await fx.control.advanceClock(seconds);

  const result = await (
    await start({ maxSnapshotAgeHours: 72, filters: { cloudProvider: providerFilter('PROVIDER_A') } })
  ).result();
  const never = resources.filter((r) => !newest.has(r.id)).map((r) => r.id);
  expect(turning.length).toBeGreaterThanOrEqual(1);
  expect(await idsInCsv(result.files.staleCsv.path, STALE_COLUMNS)).toEqual([...never, ...turning].sort());
  expect(result.stale).toBe(never.length + turning.length);
  // The stale row gives the snapshot the resource has and its age.
  const csv = await readFile(result.files.staleCsv.path, 'utf8');
  const row = csv.split('\r\n').find((line) => line.startsWith(`${last.id},`));
  const age = Number(row?.split(',').at(-1));
  expect(age).toBeGreaterThan(72);
  expect(age).toBeLessThan(72 + (next.time - last.time) / HOUR_MS);
});

test('a scan longer than one run continues as new with its counts and offsets, and reports as one run would', async () => {
  // Five a page: the 220 seeded resources take 44 pages, more than two runs' worth.
  const resources = simResources();
  const pages = Math.ceil(resources.length / 5);
  expect(pages).toBeGreaterThan(2 * PAGES_PER_RUN);
  const handle = await start({ maxSnapshotAgeHours: 72, pageSize: 5 });
  const result = await handle.result();

  const runs = await runChain(fx.env.client, handle.workflowId, handle.firstExecutionRunId);
  expect(runs).toHaveLength(Math.ceil(pages / PAGES_PER_RUN));
  expect(runs.map((run) => scheduled(run, 'scanPosturePage'))).toEqual(
    runs.map((_, i) => Math.min(PAGES_PER_RUN, pages - i * PAGES_PER_RUN)),
  );
  // Only the last run writes the files, from the partial files all the runs appended to.
  expect(runs.map((run) => scheduled(run, 'writePostureFiles'))).toEqual(
    runs.map((_, i) => (i === runs.length - 1 ? 1 : 0)),
  );

  expect(result.resources).toBe(resources.length);
  expect(result.counts).toEqual(expectedCounts(resources));
  const newest = newestSnapshotTimes();
  const stale = resources
    .filter((r) => !((newest.get(r.id) ?? -Infinity) >= Date.parse(result.cutoff)))
    .map((r) => r.id);
  const unprotected = resources.filter((r) => r.backupStatus !== 'PROTECTED').map((r) => r.id);
  expect(await idsInCsv(result.files.staleCsv.path, STALE_COLUMNS)).toEqual(stale.sort());
  expect(await idsInCsv(result.files.unprotectedCsv.path, UNPROTECTED_COLUMNS)).toEqual(unprotected.sort());
  await expectFile(result.files.staleCsv);
  const html = await expectFile(result.files.html);
  for (const id of [...unprotected, ...stale]) expect(html).toContain(id);
  const dir = join(fx.outputDir, 'posture-reports');
  expect((await readdir(dir)).filter((f) => f.startsWith(handle.workflowId) && f.includes('partial'))).toEqual([]);
  // The status of the last run counts the whole inventory, the earlier runs' pages included.
  expect((await handle.query(statusQuery)).progress).toEqual({
    done: resources.length,
    total: resources.length,
    unit: 'resources',
  });
});
