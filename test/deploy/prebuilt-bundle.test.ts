// The bundle the image prebuilds: written by the bundle script, loaded through RUNBOOKS_WORKFLOW_BUNDLE, and a
// runbook runs to completion on it.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import pino from 'pino';
import { SEARCH_ATTRIBUTE_KEYS } from '../../contracts';
import type { CostExportResult } from '../../runbooks/cost-export/contract';
import { deploymentStatus } from '../../cli/deployment-command';
import { ConfigError, loadConfig } from '../../runtime/config';
import { DEFAULT_EVIDENCE_KEY_FILE } from '../../runtime/evidence-key';
import { writeWorkflowBundle } from '../../worker/bundle-workflows';
import { heartbeatProblem, HEARTBEAT_FILE } from '../../worker/heartbeat';
import { startStack, type Stack } from '../../worker/stack';
import { buildIdOfBundle } from '../../worker/versioning';
import { eventually } from '../e2e/helpers';
import { startTestEnv } from '../helpers/temporal';

let env: TestWorkflowEnvironment;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'prebuilt-bundle-'));
  env = await startTestEnv({ server: { searchAttributes: SEARCH_ATTRIBUTE_KEYS } });
});

afterAll(async () => {
  await env?.teardown();
  if (dir) await rm(dir, { recursive: true, force: true });
});

// Written once, by the first test that needs it.
let written: Promise<string> | undefined;
const prebuiltBundle = () => (written ??= writeWorkflowBundle(join(dir, 'bundle', 'workflow-bundle.js')));

it('runs a runbook on a worker that loads the prebuilt bundle', async () => {
  const codePath = await prebuiltBundle();
  expect((await stat(codePath)).size).toBeGreaterThan(10_000);

  const dataDir = join(dir, 'data');
  const config = loadConfig({
    TEMPORAL_ADDRESS: env.address,
    TEMPORAL_NAMESPACE: env.namespace,
    RUNBOOKS_TASK_QUEUE: `bundle-${randomUUID()}`,
    RUNBOOKS_DATA_DIR: dataDir,
    RUNBOOKS_WORKFLOW_BUNDLE: codePath,
  });
  const heartbeatFile = join(dataDir, HEARTBEAT_FILE);
  const stack: Stack = await startStack(config, { log: pino({ level: 'silent' }), heartbeatFile });
  try {
    const result = await stack.temporalClient.workflow.execute<(input: unknown) => Promise<CostExportResult>>(
      'costExport',
      {
        taskQueue: config.temporal.taskQueue,
        workflowId: `cost-export-${randomUUID()}`,
        args: [{ window: 'previous-day' }],
      },
    );
    expect(result.export.rows).toBeGreaterThan(0);
    // The worker beats while it runs: the container's healthcheck passes.
    expect(await heartbeatProblem(heartbeatFile)).toBeUndefined();
    // Without RUNBOOKS_EVIDENCE_KEY_FILE, the worker made its evidence key in its data dir, readable by it alone.
    expect((await stat(join(dataDir, DEFAULT_EVIDENCE_KEY_FILE))).mode & 0o777).toBe(0o600);
  } finally {
    await stack.shutdown();
  }
  expect(await heartbeatProblem(heartbeatFile)).toMatch(/no heartbeat/);
});

it('as compose runs it, a versioned worker is named by its bundle, makes the new deployment current and pins runs', async () => {
  const codePath = await prebuiltBundle();
  const deploymentName = `runbooks-${randomUUID().slice(0, 8)}`;
  const config = loadConfig({
    TEMPORAL_ADDRESS: env.address,
    TEMPORAL_NAMESPACE: env.namespace,
    RUNBOOKS_TASK_QUEUE: `versioned-bundle-${randomUUID()}`,
    RUNBOOKS_DATA_DIR: join(dir, 'data-versioned'),
    RUNBOOKS_WORKFLOW_BUNDLE: codePath,
    RUNBOOKS_DEPLOYMENT_NAME: deploymentName,
  });
  const buildId = await buildIdOfBundle({ codePath });
  const stack = await startStack(config, { log: pino({ level: 'silent' }) });
  try {
    await eventually('the first version current', async () => {
      return (await deploymentStatus(stack.temporalClient, deploymentName)).current === buildId;
    });
    const handle = await stack.temporalClient.workflow.start('costExport', {
      taskQueue: config.temporal.taskQueue,
      workflowId: `cost-export-${randomUUID()}`,
      args: [{ window: 'previous-day' }],
    });
    await handle.result();
    const versioning = (await handle.describe()).raw.workflowExecutionInfo?.versioningInfo;
    expect(versioning?.deploymentVersion).toMatchObject({ deploymentName, buildId });
  } finally {
    await stack.shutdown();
  }
});

it('refuses a bundle path that names no file, naming the variable', async () => {
  const config = loadConfig({
    TEMPORAL_ADDRESS: env.address,
    TEMPORAL_NAMESPACE: env.namespace,
    RUNBOOKS_DATA_DIR: join(dir, 'data2'),
    RUNBOOKS_WORKFLOW_BUNDLE: join(dir, 'missing.js'),
  });
  const failure = await startStack(config, { log: pino({ level: 'silent' }) }).catch((err: unknown) => err);
  expect(failure).toBeInstanceOf(ConfigError);
  expect((failure as ConfigError).issues[0]?.variable).toBe('RUNBOOKS_WORKFLOW_BUNDLE');
});

it('refuses a bundle variable that names no JavaScript file', () => {
  expect(() => loadConfig({ RUNBOOKS_WORKFLOW_BUNDLE: 'bundle.txt' })).toThrow(
    /RUNBOOKS_WORKFLOW_BUNDLE: must name a \.js file/,
  );
});
