// approvalGatedRestore end to end: real Temporal dev server, in-process simulator, the runbook worker.
import { randomUUID } from 'node:crypto';
import { CancelledFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApprovalStatusKey, FailureType, RunbookKindKey, RunbookResourceKey, statusQuery } from '../../contracts';
import { approvalGatedRestore } from '../../runbooks/workflows';
import type { ApprovalGatedRestoreInput } from '../../runbooks/approval-gated-restore/contract';
import { restoreTypeFor } from '../../api/dialect';
import {
  APPROVAL,
  bucketDestination,
  cancelRun,
  DENIAL,
  eventCount,
  eventually,
  expectRefusedInput,
  failureOf,
  nudge,
  waitingRequestId,
  scanForSecrets,
  restoreSuite,
  wireResourceType,
} from './helpers';

const { fx, target } = restoreSuite({ outcomes: {} });

function input(overrides: Partial<ApprovalGatedRestoreInput> = {}): ApprovalGatedRestoreInput {
  return {
    ...target,
    kind: 'bucket',
    destination: bucketDestination('restored-objects', 'e2e/'),
    comment: 'restore for incident INC-1234',
    ...overrides,
  };
}

function start(overrides: Partial<ApprovalGatedRestoreInput> = {}) {
  return fx.env.client.workflow.start(approvalGatedRestore, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `restore-${randomUUID()}`,
    args: [input(overrides)],
  });
}

async function approvalStatusOf(handle: WorkflowHandle): Promise<string | undefined> {
  return (await handle.describe()).typedSearchAttributes.get(ApprovalStatusKey);
}

/** The run failed with `type`, naming the request's final `status`, which its search attribute shows too. */
async function expectApprovalEnded(handle: WorkflowHandle, type: FailureType, status: string) {
  const failure = await failureOf(handle);
  expect(failure.type).toBe(type);
  expect(failure.message).toContain(status);
  expect(await approvalStatusOf(handle)).toBe(status);
  return failure;
}

/** Holds the worker's reads of its action requests until released, so that the next read is known to come later. */
function holdRequestReads(): () => void {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const remove = fx.proxy.add({ method: 'GET', path: /\/action-approvals\/my-requests\/[^/]+$/, action: () => gate });
  return () => {
    remove();
    release();
  };
}

/** The target's resource type in the simulator's state. */
function targetType(): string {
  return fx.sim.ctx.state.resources[target.resourceId]?.resource.resourceType ?? '?';
}

async function restoreJobsOf(snapshotId: string, since: string) {
  const { restoreJobs } = await fx.control.jobs();
  return restoreJobs.filter((j) => j.snapshotDetails?.id === snapshotId && j.jobExecutionDetails.createdTime >= since);
}

test('restores at once when no policy protects the call (202)', async () => {
  const since = (await fx.control.state()).now;
  const handle = await start();
  const result = await handle.result();

  expect(result.approval).toBeUndefined();
  expect(result.job).toMatchObject({ outcome: 'COMPLETED', succeeded: true, status: 'JOB_COMPLETED' });
  expect(result.timings.approvedAt).toBeUndefined();
  const jobs = await restoreJobsOf(target.snapshotId, since);
  expect(jobs.map((j) => j.jobExecutionDetails.jobId)).toEqual([result.job.jobId]);
  // The service names the job's restore type in its dialect: AWS_S3_BUCKET_RESTORE in the public one.
  const job = await fx.service.getRestoreJob(result.job.jobId);
  expect(job.restoreType).toBe(restoreTypeFor(wireResourceType(targetType()), 'bucket'));

  const attributes = (await handle.describe()).typedSearchAttributes;
  expect(attributes.get(RunbookKindKey)).toBe('approvalGatedRestore');
  expect(attributes.get(RunbookResourceKey)).toBe(target.resourceId);
  expect(attributes.get(ApprovalStatusKey)).toBeUndefined();
  expect((await handle.query(statusQuery)).phase).toBe('completed');
});

test('with a policy: submits the request (201), waits, and restores once approved', async () => {
  await fx.control.addPolicy({ approvalWindowHours: 48, executionWindowHours: 24 });
  const since = (await fx.control.state()).now;
  const handle = await start();
  const requestId = await waitingRequestId(handle);

  const pending = (await fx.control.actionRequest(requestId)).actionApprovalRequest;
  expect(pending).toMatchObject({ status: 'PENDING_APPROVAL', comment: 'restore for incident INC-1234' });
  expect(pending.approvalExpirationTime).toBeTruthy();
  await eventually(
    'ApprovalStatus PENDING_APPROVAL',
    async () => (await approvalStatusOf(handle)) === 'PENDING_APPROVAL',
  );
  expect(await restoreJobsOf(target.snapshotId, since)).toEqual([]);

  await fx.control.approve(requestId, APPROVAL);
  await nudge(handle);
  const result = await handle.result();

  expect(result.approval).toMatchObject({ requestId, status: 'APPROVED', approvals: { current: 1, required: 1 } });
  expect(result.job).toMatchObject({ outcome: 'COMPLETED', succeeded: true });
  expect(result.timings.approvedAt).toBeDefined();
  expect((await fx.control.actionRequest(requestId)).actionApprovalRequest.status).toBe('EXECUTED');
  const jobs = await restoreJobsOf(target.snapshotId, since);
  expect(jobs.map((j) => j.jobExecutionDetails.jobId)).toEqual([result.job.jobId]);
  expect(await approvalStatusOf(handle)).toBe('EXECUTED');
});

test('a denial ends the run with ApprovalDenied', async () => {
  await fx.control.addPolicy({ approvalWindowHours: 48, executionWindowHours: 24 });
  const since = (await fx.control.state()).now;
  const handle = await start();
  const requestId = await waitingRequestId(handle);
  await fx.control.deny(requestId, DENIAL);
  await nudge(handle);

  const failure = await expectApprovalEnded(handle, FailureType.ApprovalDenied, 'DENIED');
  expect(failure.nonRetryable).toBe(true);
  expect(await restoreJobsOf(target.snapshotId, since)).toEqual([]);
});

test('an approval window that passes ends the run with ApprovalExpired (EXPIRED_PENDING_APPROVAL)', async () => {
  await fx.control.addPolicy({ approvalWindowHours: 2, executionWindowHours: 24 });
  const handle = await start();
  const requestId = await waitingRequestId(handle);
  await fx.control.advanceClock(3 * 3600);
  await nudge(handle);

  await expectApprovalEnded(handle, FailureType.ApprovalExpired, 'EXPIRED_PENDING_APPROVAL');
  expect((await fx.control.actionRequest(requestId)).actionApprovalRequest.status).toBe('EXPIRED_PENDING_APPROVAL');
});

test('an execution window that passes before the repeat ends the run with ApprovalExpired (EXPIRED_APPROVED)', async () => {
  await fx.control.addPolicy({ approvalWindowHours: 48, executionWindowHours: 1 });
  const since = (await fx.control.state()).now;
  const handle = await start();
  const requestId = await waitingRequestId(handle);

  // The approval and the end of its execution window happen between two of the runbook's checks.
  const release = holdRequestReads();
  try {
    await fx.control.approve(requestId, APPROVAL);
    await fx.control.advanceClock(2 * 3600);
  } finally {
    release();
  }
  await nudge(handle);

  await expectApprovalEnded(handle, FailureType.ApprovalExpired, 'EXPIRED_APPROVED');
  expect(await restoreJobsOf(target.snapshotId, since)).toEqual([]);
});

test('cancelling the run while it waits cancels the action request (CANCELED_PENDING_APPROVAL)', async () => {
  await fx.control.addPolicy({ approvalWindowHours: 48, executionWindowHours: 24 });
  const handle = await start();
  const requestId = await waitingRequestId(handle);
  await cancelRun(handle);
  const request = (await fx.control.actionRequest(requestId)).actionApprovalRequest;
  expect(request.status).toBe('CANCELED_PENDING_APPROVAL');
  expect(request.resolvedTime).toBeTruthy();
  expect(await approvalStatusOf(handle)).toBe('CANCELED_PENDING_APPROVAL');
});

test('cancelling the run before its request is submitted discards the request (CREATED -> DISCARDED)', async () => {
  await fx.control.addPolicy({ approvalWindowHours: 48, executionWindowHours: 24 });
  // The worker's submit is held at the proxy, so the request is certainly still CREATED when the run is cancelled.
  let held: string | undefined;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const remove = fx.proxy.add({
    method: 'POST',
    path: /\/my-requests\/[^/]+\/submit$/,
    times: 1,
    action: (path) => {
      held = /my-requests\/([^/]+)\/submit/.exec(path)?.[1];
      return gate;
    },
  });
  try {
    const handle = await start();
    const requestId = await eventually('the held submit', () => held);
    expect((await fx.control.actionRequest(requestId)).actionApprovalRequest.status).toBe('CREATED');
    await handle.cancel();
    const err = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    const request = (await fx.control.actionRequest(requestId)).actionApprovalRequest;
    expect(request.status).toBe('DISCARDED');
    expect(request.approvalExpirationTime ?? undefined).toBeUndefined();
    expect(await approvalStatusOf(handle)).toBe('DISCARDED');
  } finally {
    remove();
    release();
  }
});

test.each([
  ['JOB_FAILED', 'CLOUD_OPERATION_FAILED'],
  ['JOB_REJECTED', 'INVALID_INPUT_PARAMETERS'],
] as const)('a restore job that ends %s fails the run with JobFailed', async (outcome, errorCode) => {
  await fx.control.jobsConfig({ outcomes: { [target.resourceId]: outcome } });
  const handle = await start();
  const failure = await failureOf(handle);
  expect(failure.type).toBe(FailureType.JobFailed);
  expect(failure.nonRetryable).toBe(true);
  expect(failure.message).toContain(outcome);
  expect(failure.message).toContain(errorCode);
});

test('a restore job that ends JOB_PARTIAL succeeds with a warning', async () => {
  await fx.control.jobsConfig({ outcomes: { [target.resourceId]: 'JOB_PARTIAL' } });
  const handle = await start();
  const result = await handle.result();
  expect(result.job).toMatchObject({ outcome: 'PARTIAL', succeeded: true, status: 'JOB_PARTIAL' });
  expect(result.job.statusMessage).toBeTruthy();
  const status = await handle.query(statusQuery);
  expect(status.phase).toBe('completed with warnings');
  expect(status.detail).toBe(result.job.statusMessage);
});

test('waiting is cheap: 12 simulated hours of waiting for approval leave at most 40 history events', async () => {
  await fx.control.addPolicy({ approvalWindowHours: 24, executionWindowHours: 4 });
  const handle = await start();
  const requestId = await waitingRequestId(handle);
  // Let the retry policy poll a few times for real, then let half a day pass on the service's clock.
  await new Promise((resolve) => setTimeout(resolve, 8_000));
  for (let hour = 0; hour < 12; hour += 3) {
    await fx.control.advanceClock(3 * 3600);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  expect((await handle.query(statusQuery)).phase).toBe('waiting for approval');
  expect((await fx.control.actionRequest(requestId)).actionApprovalRequest.status).toBe('PENDING_APPROVAL');

  await fx.control.approve(requestId, APPROVAL);
  await nudge(handle);
  const result = await handle.result();
  expect(result.job.succeeded).toBe(true);

  const events = await eventCount(handle);
  console.log(`approval wait of 12 simulated hours: ${events} events in the workflow history`);
  // Notifications ride on the submit and on the look that sees the decision: no activity of their own.
  expect(events).toBeLessThanOrEqual(40);
});

test.each([
  [{ resourceId: '' }, 'resourceId'],
  [{ kind: 'files' as const, files: [] }, 'files'],
  [{ destination: bucketDestination('') }, /destination\.(bucketA|s3Bucket)\.bucketName/],
])('invalid input %j fails at once with InvalidInput naming %s', async (overrides, field) => {
  const handle = await start(overrides);
  await expectRefusedInput(handle, field);
});

test('no secret or token appears in any workflow history or in the logs', async () => {
  await scanForSecrets(fx, 10);
});
