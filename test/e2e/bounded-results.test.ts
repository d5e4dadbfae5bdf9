// Results and histories stay bounded at 10,000 resources, where a result that listed them would pass Temporal's
// 256 KB and a history that grew with them would pass the bound below: the posture report and the offboarding of an
// account that holds them, on the real dev server against the simulator. Results are measured as Temporal stores them (the
// payload of the completion event), histories by their event count per run, and the files by their rows.
import { createHash, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { offboardSourceAccount, postureReport } from '../../runbooks/workflows';
import { PAGES_PER_RUN } from '../../runbooks/posture-report/workflow';
import { STALE_COLUMNS } from '../../runbooks/posture-report/activities';
import { REMAINING_COLUMNS } from '../../runbooks/offboard-source-account/activities';
import type { GeneratedInventory } from '../../simulator/seed-inventory-bulk';
import { setupE2E, teardownE2E, type E2E } from './helpers';
import { completionResultBytes, largestEventBytes, runChain, scheduled } from './run-chain';

const RESOURCES = 10_000;
/** The service's page limit is ours to choose in the simulator; 200 makes the posture scan 50 pages, 2.5 runs' worth. */
const PAGE_SIZE = 200;
const RESULT_LIMIT = 256 * 1024;
/**
 * Events one run may hold. A posture run scans at most PAGES_PER_RUN (20) pages at six events each (an activity's
 * scheduled, started and completed, and the workflow task that follows), plus its start, first workflow task, search
 * attribute upserts, patch marker, the report's write and its end: about 140. The offboarding run has five activities
 * and a patch: about 40. 200 holds both with room, and is 2 % of Temporal's 10,240-event warning; a history that grew
 * with the inventory would need 300 events for the posture scan alone (50 pages) and 600 at the default page size.
 */
const MAX_EVENTS_PER_RUN = 200;

let fx: E2E;

beforeAll(async () => {
  fx = await setupE2E();
}, 120_000);

afterAll(() => teardownE2E(fx), 60_000);

function generate(body: { resources: number; snapshotsPerResource?: number; cloudProvider?: string }) {
  return fx.control.call<GeneratedInventory>('POST', '/inventory/generate', body);
}

/** The IDs of the resources of a generated account, from the simulator's state. */
function idsOfAccount(sourceAccountId: string): string[] {
  return Object.values(fx.sim.ctx.state.resources)
    .filter((r) => r.sourceAccountId === sourceAccountId)
    .map((r) => r.resource.id)
    .sort();
}

/** A CSV file's header, the first field of every data row (the IDs, which need no quoting) and its sha256. */
async function readCsv(path: string): Promise<{ header: string; ids: string[]; sha256: string }> {
  const data = await readFile(path);
  const [header = '', ...rows] = data.toString('utf8').split('\r\n').slice(0, -1);
  const ids = rows.map((row) => row.slice(0, row.indexOf(','))).sort();
  return { header, ids, sha256: createHash('sha256').update(data).digest('hex') };
}

test(`a posture report of ${RESOURCES} resources returns counts under 256 KB, continues as new, and lists all of them`, async () => {
  // No snapshots: every resource is stale, so the stale list holds them all.
  const inventory = await generate({ resources: RESOURCES });
  const ids = idsOfAccount(inventory.sourceAccountId);
  expect(ids).toHaveLength(RESOURCES);

  const handle = await fx.env.client.workflow.start(postureReport, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `posture-report-bounded-${randomUUID()}`,
    args: [{ filters: { accountId: { in: [inventory.providerAccountId] } }, pageSize: PAGE_SIZE }],
  });
  const result = await handle.result();
  expect(result.resources).toBe(RESOURCES);
  expect(result.stale).toBe(RESOURCES);

  const runs = await runChain(fx.env.client, handle.workflowId, handle.firstExecutionRunId);
  const pages = RESOURCES / PAGE_SIZE;
  expect(runs).toHaveLength(Math.ceil(pages / PAGES_PER_RUN));
  expect(runs.reduce((sum, run) => sum + scheduled(run, 'scanPosturePage'), 0)).toBe(pages);
  for (const run of runs) expect(run.events.length).toBeLessThanOrEqual(MAX_EVENTS_PER_RUN);
  const last = runs.at(-1);
  if (!last) throw new Error('no run');
  expect(completionResultBytes(last)).toBeLessThan(RESULT_LIMIT);
  // Nothing else in history grows with the inventory either: inputs, page results, the state carried to a next run.
  expect(largestEventBytes(runs)).toBeLessThan(RESULT_LIMIT);

  console.log(
    `posture, ${RESOURCES} resources: ${runs.length} runs of ${runs.map((r) => r.events.length).join(', ')} events; ` +
      `result ${completionResultBytes(last)} B, largest event ${largestEventBytes(runs)} B`,
  );

  const stale = await readCsv(result.files.staleCsv.path);
  expect(stale.header).toBe(STALE_COLUMNS.join(','));
  expect(stale.ids).toEqual(ids);
  expect(result.files.staleCsv.rows).toBe(RESOURCES);
  expect(result.files.staleCsv.sha256).toBe(stale.sha256);
  expect(result.files.unprotectedCsv.rows).toBe(result.unprotected);
  expect((await readCsv(result.files.unprotectedCsv.path)).ids).toHaveLength(result.unprotected);

  // Done with them: disconnected, resources without snapshots leave the inventory, and every later inventory page
  // (the simulator filters the whole project for each) costs half as much.
  await fx.service.disconnectSourceAccount(inventory.sourceAccountId);
  expect(idsOfAccount(inventory.sourceAccountId)).toEqual([]);
}, 600_000);

test(`offboarding an account with ${RESOURCES} resources that stay returns their count and writes all of them to a file`, async () => {
  // One snapshot each: every resource stays in the inventory after the account is deleted.
  const inventory = await generate({ resources: RESOURCES, snapshotsPerResource: 1, cloudProvider: 'PROVIDER_B' });
  const ids = idsOfAccount(inventory.sourceAccountId);
  expect(ids).toHaveLength(RESOURCES);

  const handle = await fx.env.client.workflow.start(offboardSourceAccount, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `offboard-bounded-${randomUUID()}`,
    args: [{ accountId: inventory.sourceAccountId }],
  });
  const result = await handle.result();
  expect(result).toMatchObject({ accountId: inventory.sourceAccountId, deleted: true, remainingCount: RESOURCES });
  expect(fx.sim.ctx.state.sourceAccounts[inventory.sourceAccountId]).toBeUndefined();

  const runs = await runChain(fx.env.client, handle.workflowId, handle.firstExecutionRunId);
  expect(runs).toHaveLength(1);
  const [run] = runs;
  if (!run) throw new Error('no run');
  expect(run.events.length).toBeLessThanOrEqual(MAX_EVENTS_PER_RUN);
  expect(completionResultBytes(run)).toBeLessThan(RESULT_LIMIT);
  // Every activity result, the deletion's and the ones after it included, has a fixed size.
  expect(largestEventBytes(runs)).toBeLessThan(RESULT_LIMIT);

  console.log(
    `offboarding, ${RESOURCES} resources stay: ${run.events.length} events; ` +
      `result ${completionResultBytes(run)} B, largest event ${largestEventBytes(runs)} B`,
  );

  const file = result.remainingFile;
  if (!file) throw new Error('the run wrote no remaining-resources file');
  const csv = await readCsv(file.path);
  expect(csv.header).toBe(REMAINING_COLUMNS.join(','));
  expect(csv.ids).toEqual(ids);
  expect(file.rows).toBe(RESOURCES);
  expect(file.sha256).toBe(csv.sha256);
}, 600_000);
