// JobWatcher on a real dev server and the simulator, with the runbooks' own worker and activities: lanes that wait
// for their backup jobs through one watcher make one list call per look, where waiting job by job makes one GET per
// job per look. Both ways run here, one after the other, and the proxy counts their calls by route.
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import type { SeenRequest } from '../bench/http-proxy';
import { FailureType, nudgeSignal } from '../contracts';
import {
  bucketDestination,
  drillVaultAndAccount,
  eventually,
  objectStoreTarget,
  setupE2E,
  teardownE2E,
  type E2E,
} from '../test/e2e/helpers';
import type { DrillLanesInput, WatchBackupsInput, WatchBackupsResult } from '../test/fixtures/job-watcher-workflows';
import type { StartBackupInput } from './jobs';
import { JOB_IDS_PER_LIST } from './job-batches';

const WORKFLOWS = require.resolve('../test/fixtures/job-watcher-workflows');
const JOBS = 30;
const LIST = /\/backup-jobs$/;
const ONE_JOB = /\/backup-jobs\/[^/]+$/;

let fx: E2E | undefined;
const seen: SeenRequest[] = [];

beforeAll(async () => {
  fx = await setupE2E({ workflowsPath: WORKFLOWS });
  fx.proxy.watch((request) => seen.push(request));
  // Jobs of a few seconds: each is looked at several times before it ends.
  await fx.control.jobsConfig({ backupSeconds: 5, maxConcurrentBackups: 100, outcomes: {} });
}, 120_000);

afterAll(() => teardownE2E(fx), 60_000);

function fixture(): E2E {
  if (!fx) throw new Error('no fixture');
  return fx;
}

function backups(count: number): StartBackupInput[] {
  const f = fixture();
  const { resourceId } = objectStoreTarget(f);
  const resource = f.sim.ctx.state.resources[resourceId]?.resource;
  if (!resource) throw new Error(`no resource ${resourceId}`);
  const { vault } = drillVaultAndAccount(f);
  const input = { resourceId, providerResourceId: resource.providerResourceId, vaultId: vault.id, retentionDays: 1 };
  return Array.from({ length: count }, () => input);
}

interface Run {
  result: WatchBackupsResult;
  /** Requests the worker sent while the run went on. */
  requests: SeenRequest[];
  events: number;
  /** Wall time of the run, start to result. */
  seconds: number;
  history: Awaited<ReturnType<ReturnType<E2E['env']['client']['workflow']['getHandle']>['fetchHistory']>>;
}

async function run(input: WatchBackupsInput): Promise<Run> {
  const { result, ...rest } = await runWorkflow('watchBackups', `watch-${input.watch}`, input);
  return { result: result as WatchBackupsResult, ...rest };
}

/** Runs a workflow of the fixture to its end, with the requests the worker sent meanwhile. */
async function runWorkflow(type: string, idPrefix: string, input: unknown) {
  const f = fixture();
  const from = seen.length;
  const began = Date.now();
  const handle = f.env.client.workflow.getHandle(
    (
      await f.env.client.workflow.start(type, {
        args: [input],
        taskQueue: f.worker.taskQueue,
        workflowId: `${idPrefix}-${randomUUID()}`,
      })
    ).workflowId,
  );
  const result: unknown = await handle.result();
  const seconds = (Date.now() - began) / 1000;
  const history = await handle.fetchHistory();
  return { result, requests: seen.slice(from), events: history.events?.length ?? 0, seconds, history };
}

const count = (requests: SeenRequest[], method: string, path: RegExp) =>
  requests.filter((r) => r.method === method && path.test(r.path.split('?')[0] ?? '')).length;

/** The job IDs a list call named in its `jobId` filter. */
function named(request: SeenRequest): string[] {
  const body = JSON.parse(request.body ?? '{}') as { filters?: { jobId?: { in?: string[] } } };
  return body.filters?.jobId?.in ?? [];
}

test(`${JOBS} backups in flight: one list call per look instead of one GET per job per look`, async () => {
  const batched = await run({ backups: backups(JOBS), lanes: JOBS, watch: 'batched' });
  const perJob = await run({ backups: backups(JOBS), lanes: JOBS, watch: 'perJob' });

  for (const { result } of [batched, perJob]) {
    expect(result.jobs).toHaveLength(JOBS);
    expect(result.jobs.map((j) => j.status)).toEqual(Array<string>(JOBS).fill('JOB_COMPLETED'));
  }
  // What the watcher said matches the service's own records.
  const { backupJobs } = await fixture().control.jobs();
  const recorded = new Map(backupJobs.map((j) => [j.jobExecutionDetails.jobId, j.jobExecutionDetails.status]));
  for (const job of batched.result.jobs) expect(recorded.get(job.jobId)).toBe(job.status);

  const lists = batched.requests.filter((r) => r.method === 'POST' && LIST.test(r.path.split('?')[0] ?? ''));
  const ours = new Set(batched.result.jobs.map((j) => j.jobId));
  for (const list of lists) {
    expect(named(list).length).toBeGreaterThan(0);
    expect(named(list).length).toBeLessThanOrEqual(JOB_IDS_PER_LIST);
    expect(named(list).filter((id) => !ours.has(id))).toEqual([]);
  }
  // Every job was named in a look, and none was asked for alone: the list answered for all of them.
  expect(new Set(lists.flatMap(named))).toEqual(ours);
  expect(count(batched.requests, 'GET', ONE_JOB)).toBe(0);
  const perJobGets = count(perJob.requests, 'GET', ONE_JOB);
  expect(count(perJob.requests, 'POST', LIST)).toBe(0);
  expect(perJobGets).toBeGreaterThanOrEqual(JOBS);
  // Each of the watcher's looks names all of the jobs in flight at once, so it makes far fewer calls.
  expect(lists.length * 2).toBeLessThan(perJobGets);
  console.log(
    `${JOBS} backups of 5 s in ${JOBS} lanes: watcher ${lists.length} list calls (${batched.result.looks?.looks} looks, ` +
      `${batched.result.looks?.restarts} restarted for a newer set), ${batched.events} history events, ` +
      `${batched.seconds} s; per job ${perJobGets} GETs, ${perJob.events} history events, ${perJob.seconds} s`,
  );

  // The watcher's run replays: its looks and restarts are deterministic.
  await expect(
    Worker.runReplayHistory({ workflowBundle: fixture().bundle, replayName: 'watcher' }, batched.history),
  ).resolves.toBeUndefined();
});

/** A batched watch of one long backup, started and made an hour old: its watcher then looks a minute apart. */
async function oldJobWatched() {
  const f = fixture();
  await f.control.jobsConfig({ backupSeconds: 7200, maxConcurrentBackups: 100, outcomes: {} });
  const input: WatchBackupsInput = { backups: backups(1), lanes: 1, watch: 'batched' };
  const handle = await f.env.client.workflow.start('watchBackups', {
    args: [input],
    taskQueue: f.worker.taskQueue,
    workflowId: `watch-old-${randomUUID()}`,
  });
  const from = seen.length;
  await eventually('the first look', () => count(seen.slice(from), 'POST', LIST) > 0);
  await f.control.advanceClock(3600);
  // The look in its attempt sees the older job and leaves the next look to a retry, a minute later.
  await eventually('the look left to its retry', async () => {
    const pending = (await handle.describe()).raw.pendingActivities ?? [];
    return pending.some((a) => a.activityType?.name === 'lookAtJobs' && (a.attempt ?? 0) >= 2);
  });
  return { handle, f };
}

test('a nudge makes the watcher look at once, not at the next look of its schedule', async () => {
  const { handle, f } = await oldJobWatched();
  await f.control.advanceClock(3601);
  const from = seen.length;
  await handle.signal(nudgeSignal);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), 30_000)));
  // The scheduled look is a minute away: only the nudge's look can end the run well before it.
  const result = await Promise.race([handle.result() as Promise<WatchBackupsResult>, late]);
  clearTimeout(timer);
  expect(result).not.toBe('late');
  expect(result === 'late' ? undefined : result.jobs.map((j) => j.status)).toEqual(['JOB_COMPLETED']);
  expect(count(seen.slice(from), 'POST', LIST)).toBe(1);
  await f.control.jobsConfig({ backupSeconds: 5 });
});

test('cancelling a run cancels its look: the run ends cancelled and no look is left', async () => {
  const { handle, f } = await oldJobWatched();
  await handle.cancel();
  await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
  const { status } = await handle.describe();
  expect(status.name).toBe('CANCELLED');
  const { events } = await handle.fetchHistory();
  const kinds = (events ?? []).map((e) =>
    Object.keys(e).find((k) => k.endsWith('EventAttributes') && e[k as keyof typeof e]),
  );
  expect(kinds).toContain('activityTaskCancelRequestedEventAttributes');
  // Whatever is pending on the server for this run: nothing.
  expect((await handle.describe()).raw.pendingActivities ?? []).toEqual([]);
  await f.control.jobsConfig({ backupSeconds: 5 });
});

test('a job the list cannot return fails its own wait, after one GET; the others finish', async () => {
  const { result, requests } = await run({
    backups: backups(3),
    lanes: 3,
    watch: 'batched',
    missingJobIds: ['no-such-backup-job'],
  });
  const missing = result.jobs.find((j) => j.jobId === 'no-such-backup-job');
  expect(missing?.failure?.type).toBe(FailureType.NotFound);
  expect(result.jobs.filter((j) => j.status === 'JOB_COMPLETED')).toHaveLength(3);
  expect(count(requests, 'GET', /\/backup-jobs\/no-such-backup-job$/)).toBeGreaterThanOrEqual(1);
  expect(count(requests, 'GET', ONE_JOB)).toBe(count(requests, 'GET', /\/backup-jobs\/no-such-backup-job$/));
});

const DRILL_RESOURCES = 40;
const DRILL_LANES = 20;
/** Jobs long enough for a few looks each, short enough that the three runs fit the file's budget. */
const DRILL_JOB_SECONDS = 3;
const JOB_LOOK = /\/(backup|restore)-jobs(\/[^/]+)?$/;

/** Service calls per resource: the looks at jobs, and everything else. */
function perResource(requests: SeenRequest[], resources: number) {
  const v1 = requests.filter((r) => r.path.includes('/v1/'));
  const looks = v1.filter(
    (r) => JOB_LOOK.test(r.path.split('?')[0] ?? '') && (r.method === 'GET' || r.method === 'POST'),
  );
  // A list call made by a start (looking for a job it may have started) is no look: none is expected on this path.
  return { looks: looks.length / resources, other: (v1.length - looks.length) / resources, all: v1.length / resources };
}

test(`calls per resource of a drill of ${DRILL_RESOURCES} resources: the drill today, and its jobs watched in batches`, async () => {
  const f = fixture();
  await f.control.jobsConfig({
    backupSeconds: DRILL_JOB_SECONDS,
    restoreSeconds: DRILL_JOB_SECONDS,
    maxConcurrentBackups: 100,
    outcomes: {},
  });
  const resources = Object.values(f.sim.ctx.state.resources)
    .map((r) => r.resource)
    .sort((a, b) => a.id.localeCompare(b.id))
    .slice(0, DRILL_RESOURCES);
  expect(resources).toHaveLength(DRILL_RESOURCES);
  const { vault, account } = drillVaultAndAccount(f);
  const destination = bucketDestination('dr-drill-restores', 'watcher/');

  const drill = await runWorkflow('drDrill', 'drill', {
    name: 'job-watcher-baseline',
    resources: { ids: resources.map((r) => r.id) },
    vaultId: vault.id,
    restoreAccountId: account.id,
    destination,
    targets: { rpoSeconds: 30 * 86400, rtoSeconds: 3600 },
    recoveryPoint: { select: 'fresh' },
    parallelism: DRILL_LANES,
  });
  const lanes = (watch: DrillLanesInput['watch']) =>
    runWorkflow('drillLanes', `drill-lanes-${watch}`, {
      resources: resources.map((r) => ({ id: r.id, providerResourceId: r.providerResourceId })),
      lanes: DRILL_LANES,
      watch,
      vaultId: vault.id,
      restoreAccountId: account.id,
      destination,
    } satisfies DrillLanesInput);
  const perJob = await lanes('perJob');
  const batched = await lanes('batched');

  for (const { result } of [perJob, batched]) expect(result).toEqual({ restored: DRILL_RESOURCES, failed: [] });
  expect((drill.result as { summary: { total: number } }).summary.total).toBe(DRILL_RESOURCES);
  const [real, miniature, watched] = [drill, perJob, batched].map((r) => perResource(r.requests, DRILL_RESOURCES));
  if (!real || !miniature || !watched) throw new Error('no figures');
  expect(count(batched.requests, 'GET', /\/(backup|restore)-jobs\/[^/]+$/)).toBe(0);
  expect(watched.looks * 2).toBeLessThan(miniature.looks);
  const fmt = (n: number) => n.toFixed(1);
  console.log(
    `drill of ${DRILL_RESOURCES} resources, ${DRILL_LANES} lanes, ${DRILL_JOB_SECONDS} s jobs, calls per resource: ` +
      `drDrill today ${fmt(real.all)} (${fmt(real.looks)} looks at jobs, ${fmt(real.other)} other; ` +
      `${drill.events} events, ${drill.seconds} s); ` +
      `its miniature job by job ${fmt(miniature.all)} (${fmt(miniature.looks)} looks, ${perJob.events} events, ` +
      `${perJob.seconds} s); ` +
      `with watchers ${fmt(watched.all)} (${fmt(watched.looks)} looks, ${batched.events} events, ${batched.seconds} s); ` +
      `so the drill with watchers: about ${fmt(real.other + watched.looks)}`,
  );
  // Two watchers, lanes joining and leaving all along: the run replays.
  await expect(
    Worker.runReplayHistory({ workflowBundle: f.bundle, replayName: 'drill-lanes' }, batched.history),
  ).resolves.toBeUndefined();
}, 300_000);
