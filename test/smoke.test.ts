// Proves the toolchain end to end: dev server, bundled workflow, worker, real activity, history.
import { createHash, randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import * as activities from './fixtures/smoke-activities';
import { smokeWorkflow } from './fixtures/smoke-workflows';
import { createWorker, serverVersion, startTestEnv } from './helpers/temporal';

let env: TestWorkflowEnvironment;

beforeAll(async () => {
  env = await startTestEnv();
  console.log(`Temporal: ${await serverVersion(env)}`);
});

afterAll(async () => {
  await env?.teardown();
});

test('a workflow runs a real activity on the dev server', async () => {
  const worker = await createWorker(env, { workflowsPath: require.resolve('./fixtures/smoke-workflows'), activities });
  const workflowId = `smoke-${randomUUID()}`;

  const result = await worker.runUntil(
    env.client.workflow.execute(smokeWorkflow, {
      args: [{ name: 'smoke' }],
      taskQueue: worker.options.taskQueue,
      workflowId,
    }),
  );

  const digest = createHash('sha256').update('smoke').digest('hex');
  expect(result).toBe(`Hello, smoke! pid=${process.pid} sha256=${digest}`);
  const { events } = await env.client.workflow.getHandle(workflowId).fetchHistory();
  expect((events ?? []).some((event) => event.activityTaskCompletedEventAttributes != null)).toBe(true);
});
