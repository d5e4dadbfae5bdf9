// Worker Versioning end to end: a run pinned to the release that started it finishes there, while new runs start on
// the promoted release. Real Temporal dev server, two in-process workers of different build IDs on one task queue.
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import { deploymentStatus, promoteVersion, UnknownBuildIdError } from '../../cli/deployment-command';
import { approvalGatedRestore } from '../../runbooks/workflows';
import { bootstrapCurrentVersion } from '../../worker/versioning';
import {
  APPROVAL,
  eventually,
  nudge,
  objectStoreTarget,
  setupE2E,
  startWorker,
  teardownE2E,
  waitingRequestId,
  type E2E,
  type RestoreTarget,
  type RunningWorker,
} from './helpers';

// The server checks whether a version still has open pinned runs every few minutes by default; here every second.
const SERVER_ARGS = [
  '--dynamic-config-value',
  'matching.wv.VersionDrainageStatusRefreshInterval="1s"',
  '--dynamic-config-value',
  'matching.wv.VersionDrainageStatusVisibilityGracePeriod="1s"',
];

// temporal.api.enums.v1.VersioningBehavior
const PINNED = 1;

let fx: E2E | undefined;
let target: RestoreTarget;
const workers: RunningWorker[] = [];

beforeAll(async () => {
  fx = await setupE2E({ serverArgs: SERVER_ARGS });
  target = objectStoreTarget(fx);
}, 120_000);
afterAll(async () => {
  for (const w of workers) await w.stop().catch(() => undefined);
  await teardownE2E(fx);
}, 60_000);

function e2e(): E2E {
  if (!fx) throw new Error('the fixture did not start');
  return fx;
}

const deploymentName = `runbooks-${randomUUID().slice(0, 8)}`;
const taskQueue = `versioned-${randomUUID()}`;
const v1: WorkerDeploymentVersion = { deploymentName, buildId: 'v1' };
const v2: WorkerDeploymentVersion = { deploymentName, buildId: 'v2' };

async function startVersioned(version: WorkerDeploymentVersion): Promise<RunningWorker> {
  const worker = await startWorker(e2e(), {
    taskQueue,
    deploymentVersion: version,
    identity: `worker-${version.buildId}`,
  });
  workers.push(worker);
  return worker;
}

function startRestore(): Promise<WorkflowHandle<typeof approvalGatedRestore>> {
  return e2e().env.client.workflow.start(approvalGatedRestore, {
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
  (await deploymentStatus(e2e().env.client, deploymentName)).versions.find((v) => v.buildId === buildId);

test('a pinned run finishes on the release it started on, after the next release is promoted', async () => {
  const { env, control } = e2e();
  await control.addPolicy({ approvalWindowHours: 48, executionWindowHours: 24 });

  // First deploy: the deployment has no current version, so the first worker's version becomes current.
  await startVersioned(v1);
  expect(await bootstrapCurrentVersion({ client: env.client, version: v1, intervalMs: 200 })).toEqual({
    outcome: 'made-current',
  });
  expect((await deploymentStatus(env.client, deploymentName)).current).toBe('v1');

  const first = await startRestore();
  const firstRequest = await waitingRequestId(first);
  expect(await versioningOf(first)).toEqual({ buildId: 'v1', behavior: PINNED });

  // The next release: its workers start beside the old ones and do not take over by themselves.
  await startVersioned(v2);
  expect(await bootstrapCurrentVersion({ client: env.client, version: v2, intervalMs: 200 })).toEqual({
    outcome: 'current-exists',
    current: 'v1',
  });
  await eventually('v2 registered', async () => (await versionOf('v2')) !== undefined);
  await expect(promoteVersion(env.client, deploymentName, 'v3')).rejects.toBeInstanceOf(UnknownBuildIdError);
  await promoteVersion(env.client, deploymentName, 'v2');

  const status = await deploymentStatus(env.client, deploymentName);
  expect(status.current).toBe('v2');
  expect(status.versions.map((v) => [v.buildId, v.routing]).sort()).toEqual([
    ['v1', 'inactive'],
    ['v2', 'current'],
  ]);
  // v1 still has a run pinned to it.
  expect(await eventually('v1 draining', async () => (await versionOf('v1'))?.drainage === 'DRAINING')).toBe(true);

  const second = await startRestore();
  const secondRequest = await waitingRequestId(second);
  expect(await versioningOf(second)).toEqual({ buildId: 'v2', behavior: PINNED });
  expect(await versioningOf(first)).toEqual({ buildId: 'v1', behavior: PINNED });

  // Both workers poll the queue; each approved run still runs only on its own release.
  for (const [handle, requestId] of [
    [first, firstRequest],
    [second, secondRequest],
  ] as const) {
    await control.approve(requestId, APPROVAL);
    await nudge(handle);
    expect((await handle.result()).job).toMatchObject({ outcome: 'COMPLETED', succeeded: true });
  }
  expect(await whoRan(first)).toEqual({ buildIds: ['v1'], activityWorkers: ['worker-v1'] });
  expect(await whoRan(second)).toEqual({ buildIds: ['v2'], activityWorkers: ['worker-v2'] });

  // With its last pinned run closed, v1 drains: its workers can stop.
  await eventually('v1 drained', async () => (await versionOf('v1'))?.drainage === 'DRAINED');
});
