// A release replaced in place, as compose does it: the worker of build A stops while a restore waits for approval,
// the worker of build B starts with the default versioning (auto-upgrade) and takes the restore over; a late replica
// of A does not take it back. Both workers are the real stack (worker/stack.ts), one simulator serves both.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import pino from 'pino';
import { deploymentStatus } from '../../cli/deployment-command';
import { SEARCH_ATTRIBUTE_KEYS } from '../../contracts';
import { approvalGatedRestore } from '../../runbooks/workflows';
import { loadConfig } from '../../runtime/config';
import { SimulatorControlClient } from '../../simulator/control-client';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { writeWorkflowBundle } from '../../worker/bundle-workflows';
import { startStack, type Stack } from '../../worker/stack';
import { APPROVAL, eventually, FAST_JOBS, nudge, waitingRequestId } from '../e2e/helpers';
import { startTestEnv } from '../helpers/temporal';
import { serviceEnv } from '../helpers/service-env';

let env: TestWorkflowEnvironment;
let sim: RunningSimulator;
let dir: string;
let bundlePath: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'release-in-place-'));
  [env, sim, bundlePath] = await Promise.all([
    startTestEnv({ server: { searchAttributes: SEARCH_ATTRIBUTE_KEYS } }),
    startSimulator({ port: 0 }),
    writeWorkflowBundle(join(dir, 'bundle', 'workflow-bundle.js')),
  ]);
  await new SimulatorControlClient(sim.baseUrl).jobsConfig(FAST_JOBS);
}, 120_000);

afterAll(async () => {
  await sim?.close();
  await env?.teardown();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

const deploymentName = `runbooks-${randomUUID().slice(0, 8)}`;
const taskQueue = `release-in-place-${randomUUID()}`;

/** A worker of one build, configured as compose configures it (no RUNBOOKS_VERSIONING: the default). */
async function startBuild(buildId: string, logLines: string[]): Promise<Stack> {
  const config = loadConfig({
    TEMPORAL_ADDRESS: env.address,
    TEMPORAL_NAMESPACE: env.namespace,
    RUNBOOKS_TASK_QUEUE: taskQueue,
    RUNBOOKS_DATA_DIR: join(dir, `data-${buildId}-${randomUUID()}`),
    RUNBOOKS_OUTPUT_DIR: join(dir, 'output'),
    RUNBOOKS_WORKFLOW_BUNDLE: bundlePath,
    RUNBOOKS_DEPLOYMENT_NAME: deploymentName,
    RUNBOOKS_BUILD_ID: buildId,
    ...serviceEnv(sim),
  });
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  return startStack(config, { log: pino({ level: 'info' }, stream), shutdownGraceTimeMs: 1_000 });
}

const currentIs = (buildId: string) => async () =>
  (await deploymentStatus(env.client, deploymentName)).current === buildId;

test('a restore waiting for approval when build A is replaced by build B completes on B', async () => {
  const control = new SimulatorControlClient(sim.baseUrl);
  await control.addPolicy({ approvalWindowHours: 48, executionWindowHours: 24 });
  const state = sim.ctx.state;
  const snapshot = Object.values(state.snapshots).find(
    (s) => state.resources[s.resourceId]?.resource.resourceType === 'PA_OBJECT_STORE',
  );
  const account = Object.values(state.restoreAccounts).find((a) => a.name === 'restore-pa');
  if (!snapshot || !account) throw new Error('the seeded simulator has no object-store snapshot or restore-pa account');

  const a = await startBuild('a', []);
  await eventually('a current', currentIs('a'));
  const restore = await env.client.workflow.start(approvalGatedRestore, {
    taskQueue,
    workflowId: `restore-${randomUUID()}`,
    args: [
      {
        resourceId: snapshot.resourceId,
        snapshotId: snapshot.id,
        restoreAccountId: account.id,
        kind: 'bucket',
        destination: { bucketA: { bucketName: 'restored-objects', prefix: 'release/' } },
      },
    ],
  });
  const requestId = await waitingRequestId(restore);
  await a.shutdown();

  const bLog: string[] = [];
  const b = await startBuild('b', bLog);
  let late: Stack | undefined;
  try {
    await eventually('b current', currentIs('b'));
    expect(bLog.join('')).toContain('made this version current');

    // A replica of build A that starts late leaves current to b, and says how to roll back on purpose.
    const lateLog: string[] = [];
    late = await startBuild('a', lateLog);
    await eventually('late a gives up', () => lateLog.join('').includes('runbooks deployment promote a'));
    expect(await currentIs('b')()).toBe(true);

    await control.approve(requestId, APPROVAL);
    await nudge(restore);
    expect((await restore.result()).job).toMatchObject({ outcome: 'COMPLETED', succeeded: true });
    const info = (await restore.describe()).raw.workflowExecutionInfo?.versioningInfo;
    expect(info?.deploymentVersion?.buildId).toBe('b');
  } finally {
    // Not one before the other's end: the stacks of one process share its HTTP pools, which a shutdown closes.
    await Promise.all([late?.shutdown(), b.shutdown()]);
  }
}, 120_000);
