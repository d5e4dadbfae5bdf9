// Worker Versioning end to end, in both modes. Pinned: a run finishes on the release that started it, while new runs
// start on the promoted release; when that release's workers are gone, `deployment status` says so and `deployment
// move` frees the run. Auto-upgrade: a release replaced in place takes over its runs. Real Temporal dev server,
// in-process workers of different build IDs on one task queue per test.
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import {
  deploymentStatus,
  moveStrandedRuns,
  promoteVersion,
  stalls,
  UnknownBuildIdError,
} from '../../cli/deployment-command';
import type { VersioningMode } from '../../runtime/config';
import { runCliFromSourceAsync } from '../helpers/cli-from-source';
import { approvalGatedRestore } from '../../runbooks/workflows';
import { bootstrapCurrentVersion } from '../../worker/versioning';
import {
  approveAndNudge,
  eventually,
  objectStoreTarget,
  e2eSuite,
  startWorker,
  waitingRequestId,
  type RestoreTarget,
  type RunningWorker,
} from './helpers';

// The server checks whether a version still has open pinned runs every few minutes by default; here every second.
const SERVER_ARGS = [
  '--dynamic-config-value',
  'matching.wv.VersionDrainageStatusRefreshInterval="1s"',
  '--dynamic-config-value',
  'matching.wv.VersionDrainageStatusVisibilityGracePeriod="1s"',
  // A stopped worker stays listed as a poller for 5 minutes by default; here for 6 s. A live one is listed while it
  // polls again within that time: its long polls last a minute by default, here 2 s.
  '--dynamic-config-value',
  'matching.PollerHistoryTTL="6s"',
  '--dynamic-config-value',
  'matching.longPollExpirationInterval="2s"',
];

// temporal.api.enums.v1.VersioningBehavior
const PINNED = 1;
const AUTO_UPGRADE = 2;

const workers: RunningWorker[] = [];
const fx = e2eSuite({ serverArgs: SERVER_ARGS }, async () => {
  for (const w of workers) await w.stop().catch(() => undefined);
});
let target: RestoreTarget;

beforeAll(() => {
  target = objectStoreTarget(fx);
});

/** One deployment and task queue per test, so that each starts from a deployment without a current version. */
function newDeployment() {
  const suffix = randomUUID().slice(0, 8);
  return { deploymentName: `runbooks-${suffix}`, taskQueue: `versioned-${suffix}` };
}

let deploymentName = '';
let taskQueue = '';
beforeEach(() => ({ deploymentName, taskQueue } = newDeployment()));

const version = (buildId: string): WorkerDeploymentVersion => ({ deploymentName, buildId });

async function startVersioned(buildId: string, versioningMode: VersioningMode): Promise<RunningWorker> {
  const worker = await startWorker(fx, {
    taskQueue,
    deploymentVersion: version(buildId),
    versioningMode,
    identity: `worker-${buildId}`,
  });
  workers.push(worker);
  return worker;
}

/** What a worker of that build does at start (worker/stack.ts), in that mode. */
const bootstrap = (buildId: string, mode: VersioningMode) =>
  bootstrapCurrentVersion({ client: fx.env.client, version: version(buildId), mode, intervalMs: 200 });

function startRestore(): Promise<WorkflowHandle<typeof approvalGatedRestore>> {
  return fx.env.client.workflow.start(approvalGatedRestore, {
    taskQueue,
    workflowId: `versioned-restore-${randomUUID()}`,
    args: [
      {
        ...target,
        kind: 'bucket',
        destination: { bucketA: { bucketName: 'restored-objects', prefix: 'e2e/' } },
        comment: 'restore across a release',
      },
    ],
  });
}

async function versioningOf(handle: WorkflowHandle) {
  const info = (await handle.describe()).raw.workflowExecutionInfo?.versioningInfo;
  return { buildId: info?.deploymentVersion?.buildId, behavior: info?.behavior };
}

/** Which build IDs completed the run's workflow tasks, and which workers started its activities. */
async function whoRan(handle: WorkflowHandle) {
  const history = await handle.fetchHistory();
  const buildIds = new Set<string>();
  const activityWorkers = new Set<string>();
  for (const event of history.events ?? []) {
    const completed = event.workflowTaskCompletedEventAttributes;
    if (completed) buildIds.add(completed.deploymentVersion?.buildId ?? 'unversioned');
    const started = event.activityTaskStartedEventAttributes;
    if (started?.identity) activityWorkers.add(started.identity);
  }
  return { buildIds: [...buildIds], activityWorkers: [...activityWorkers] };
}

const versionOf = async (buildId: string) =>
  (await deploymentStatus(fx.env.client, deploymentName)).versions.find((v) => v.buildId === buildId);

test('a pinned run finishes on the release it started on, after the next release is promoted', async () => {
  const { env, control } = fx;
  await control.addPolicy({ approvalWindowHours: 48, executionWindowHours: 24 });

  // First deploy: the deployment has no current version, so the first worker's version becomes current.
  await startVersioned('v1', 'pinned');
  expect(await bootstrap('v1', 'pinned')).toEqual({ outcome: 'made-current' });
  expect((await deploymentStatus(env.client, deploymentName)).current).toBe('v1');

  const first = await startRestore();
  const firstRequest = await waitingRequestId(first);
  expect(await versioningOf(first)).toEqual({ buildId: 'v1', behavior: PINNED });

  // The next release: its workers start beside the old ones and do not take over by themselves.
  await startVersioned('v2', 'pinned');
  expect(await bootstrap('v2', 'pinned')).toEqual({ outcome: 'current-exists', current: 'v1' });
  await eventually('v2 registered', async () => (await versionOf('v2')) !== undefined);
  await expect(promoteVersion(env.client, deploymentName, 'v3')).rejects.toBeInstanceOf(UnknownBuildIdError);
  await promoteVersion(env.client, deploymentName, 'v2');

  const status = await deploymentStatus(env.client, deploymentName);
  expect(status.current).toBe('v2');
  expect(status.versions.map((v) => [v.buildId, v.routing]).sort()).toEqual([
    ['v1', 'inactive'],
    ['v2', 'current'],
  ]);
  // v1 still has a run pinned to it, and a worker to run it: nothing is stranded.
  expect(await eventually('v1 draining', async () => (await versionOf('v1'))?.drainage === 'DRAINING')).toBe(true);
  expect(await versionOf('v1')).toMatchObject({ pollers: 1, pinnedRuns: 1 });
  expect(stalls(await deploymentStatus(env.client, deploymentName))).toEqual([]);

  const second = await startRestore();
  const secondRequest = await waitingRequestId(second);
  expect(await versioningOf(second)).toEqual({ buildId: 'v2', behavior: PINNED });
  expect(await versioningOf(first)).toEqual({ buildId: 'v1', behavior: PINNED });

  // Both workers poll the queue; each approved run still runs only on its own release.
  for (const [handle, requestId] of [
    [first, firstRequest],
    [second, secondRequest],
  ] as const) {
    await approveAndNudge(control, requestId, handle);
    expect((await handle.result()).job).toMatchObject({ outcome: 'COMPLETED', succeeded: true });
  }
  expect(await whoRan(first)).toEqual({ buildIds: ['v1'], activityWorkers: ['worker-v1'] });
  expect(await whoRan(second)).toEqual({ buildIds: ['v2'], activityWorkers: ['worker-v2'] });

  // With its last pinned run closed, v1 drains: its workers can stop.
  await eventually('v1 drained', async () => (await versionOf('v1'))?.drainage === 'DRAINED');
});

test('auto-upgrade: a release replaced in place takes over a restore that waits for approval', async () => {
  const { env, control } = fx;
  await control.addPolicy({ approvalWindowHours: 48, executionWindowHours: 24 });

  const a = await startVersioned('a', 'auto-upgrade');
  expect(await bootstrap('a', 'auto-upgrade')).toEqual({ outcome: 'made-current' });
  const restore = await startRestore();
  const requestId = await waitingRequestId(restore);
  expect(await versioningOf(restore)).toEqual({ buildId: 'a', behavior: AUTO_UPGRADE });

  // A build that registered but never became current (its start was cut short), then went away.
  const stale = await startVersioned('stale', 'auto-upgrade');
  await eventually('stale registered', async () => (await versionOf('stale')) !== undefined);
  await stale.stop();

  // compose replaces the workers: a's stop before b's start, so no worker of either runs for a while.
  await a.stop();
  await startVersioned('b', 'auto-upgrade');
  // Two replicas of b race to make it current: neither fails, whichever order the server sees them in (the loser
  // either finds b current, or sets b again, which the server accepts).
  const race = await Promise.all([bootstrap('b', 'auto-upgrade'), bootstrap('b', 'auto-upgrade')]);
  expect(race.map((r) => r.outcome)).toContain('made-current');
  for (const result of race) expect(['made-current', 'current-exists']).toContain(result.outcome);
  expect((await deploymentStatus(env.client, deploymentName)).current).toBe('b');
  // A replica of the older build that starts late does not take current back.
  expect(await bootstrap('a', 'auto-upgrade')).toEqual({
    outcome: 'left-current',
    current: 'b',
    reason: 'activated-before',
  });
  // Nor does one registered before b, though it never was current.
  expect(await bootstrap('stale', 'auto-upgrade')).toEqual({
    outcome: 'left-current',
    current: 'b',
    reason: 'older-than-current',
  });

  // The reviewer approves while only b runs: the restore finishes there.
  await approveAndNudge(control, requestId, restore);
  expect((await restore.result()).job).toMatchObject({ outcome: 'COMPLETED', succeeded: true });
  const ran = await whoRan(restore);
  expect(ran.buildIds).toEqual(['a', 'b']);
  expect(ran.activityWorkers).toContain('worker-b');
  expect(await versioningOf(restore)).toEqual({ buildId: 'b', behavior: AUTO_UPGRADE });
  expect(stalls(await deploymentStatus(env.client, deploymentName))).toEqual([]);
});

test('pinned: a run whose workers are gone is flagged by deployment status, and deployment move frees it', async () => {
  const { env, control } = fx;
  await control.addPolicy({ approvalWindowHours: 48, executionWindowHours: 24 });

  const p1 = await startVersioned('p1', 'pinned');
  expect(await bootstrap('p1', 'pinned')).toEqual({ outcome: 'made-current' });
  const restore = await startRestore();
  const requestId = await waitingRequestId(restore);

  // As on main before RUNBOOKS_VERSIONING: the workers are replaced in place, and the new build takes nothing.
  await p1.stop();
  await startVersioned('p2', 'pinned');
  expect(await bootstrap('p2', 'pinned')).toEqual({ outcome: 'current-exists', current: 'p1' });
  const stranded = await eventually('p1 stranded', async () => {
    const status = await deploymentStatus(env.client, deploymentName);
    const p1Status = status.versions.find((v) => v.buildId === 'p1');
    return p1Status?.pollers === 0 && p1Status.pinnedRuns === 1 ? status : undefined;
  });
  const lines = stalls(stranded);
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(/^STRANDED: 1 open run\(s\) pinned to p1, which no worker has polled in 5 minutes/);
  expect(lines[0]).toContain('start a worker of build p1');
  expect(lines[0]).toContain('runbooks deployment move p1');
  expect(lines[1]).toMatch(/^STALLED: p1 is current, so new runs .* no worker has polled it/);
  expect(lines[1]).toContain('runbooks deployment promote p2');
  expect(await versioningOf(restore)).toEqual({ buildId: 'p1', behavior: PINNED });

  // The operator sees the same from the CLI.
  const cli = await runCliFromSourceAsync(['deployment', 'status', '--deployment', deploymentName], {
    ...process.env,
    TEMPORAL_ADDRESS: env.address,
    TEMPORAL_NAMESPACE: env.namespace ?? 'default',
    RUNBOOKS_DEPLOYMENT_NAME: undefined,
    RUNBOOKS_DEBUG: '',
  });
  expect(cli.stderr).toBe('');
  expect(cli.status).toBe(0);
  expect(cli.stdout).toContain('STRANDED: 1 open run(s) pinned to p1');
  expect(cli.stdout).toContain('STALLED: p1 is current');

  // Recovery: promote the build that has workers, and move the stranded run to it.
  await promoteVersion(env.client, deploymentName, 'p2');
  await expect(moveStrandedRuns(env.client, deploymentName, 'p9')).rejects.toBeInstanceOf(UnknownBuildIdError);
  const moved = await moveStrandedRuns(env.client, deploymentName, 'p1');
  expect(moved.map((m) => m.workflowId)).toEqual([restore.workflowId]);
  await approveAndNudge(control, requestId, restore);
  expect((await restore.result()).job).toMatchObject({ outcome: 'COMPLETED', succeeded: true });
  expect((await whoRan(restore)).buildIds).toEqual(['p1', 'p2']);
  await eventually(
    'nothing stranded',
    async () => stalls(await deploymentStatus(env.client, deploymentName)).length === 0,
  );
});
