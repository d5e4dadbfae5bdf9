// Restores that lose an answer adopt only their own job, and a protected restore never adopts one without approval.
// Real Temporal dev server, in-process simulator, and the proxy that refuses or loses answers at exact calls.
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { approvalGatedRestore } from '../../runbooks/workflows';
import type { ApprovalGatedRestoreInput } from '../../runbooks/approval-gated-restore/contract';
import { statusQuery } from '../../contracts';
import { restoreKindOf, restoreTypeFor, type RestoreKind } from '../../api/dialect';
import {
  APPROVAL,
  bucketDestination,
  eventually,
  nudgedResult,
  phaseReached,
  waitingRequestId,
  restoreSuite,
  wireResourceType,
} from './helpers';

const { fx, target } = restoreSuite({ outcomes: {} });

const RESTORE_BUCKET = /\/restore-bucket$/;
const destination = bucketDestination('restored-objects', 'adoption/');

function start(overrides: Partial<ApprovalGatedRestoreInput> = {}) {
  return fx.env.client.workflow.start(approvalGatedRestore, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `adoption-${randomUUID()}`,
    args: [{ ...target, kind: 'bucket', destination, comment: 'adoption case', ...overrides }],
  });
}

async function restoreJobsSince(since: string) {
  const { restoreJobs } = await fx.control.jobs();
  return restoreJobs.filter(
    (j) => j.snapshotDetails?.id === target.snapshotId && j.jobExecutionDetails.createdTime >= since,
  );
}

/**
 * The bucket restore jobs made since `since`, which must be only `jobId`. Each is read through the service API too:
 * its restore type is the one the dialect gives an object store's bucket restore (AWS_S3_BUCKET_RESTORE in the
 * public one), the type the runbook had to recognise to adopt it rather than restore a second time.
 */
async function expectOnlyBucketJob(since: string, jobId: string): Promise<void> {
  const bucketJobs = (await restoreJobsSince(since)).filter((j) => restoreKindOf(j.restoreType) === 'bucket');
  expect(bucketJobs.map((j) => j.jobExecutionDetails.jobId)).toEqual([jobId]);
  await expectRestoreType(jobId, 'bucket');
}

async function expectRestoreType(jobId: string, kind: RestoreKind): Promise<void> {
  const type = fx.sim.ctx.state.resources[target.resourceId]?.resource.resourceType ?? '?';
  const job = await fx.service.getRestoreJob(jobId);
  expect(job.restoreType).toBe(restoreTypeFor(wireResourceType(type), kind));
}

async function actionRequestCount(): Promise<number> {
  const state = await fx.control.state();
  return state.counts.actionRequests;
}

/**
 * Approves the runbook's request `times` times, as that many reviewers, and returns its ID. The tests then nudge the
 * run (nudgedResult), as `runbooks nudge` would, so an approval is seen at once rather than at the wait's next look,
 * every 30 s while the request is young; the last test counts on one of those looks.
 */
async function approveAll(handle: WorkflowHandle, times: number): Promise<string> {
  const requestId = await waitingRequestId(handle);
  for (let i = 0; i < times; i += 1) await fx.control.approve(requestId, APPROVAL);
  return requestId;
}

test('a protected bucket restore whose first call failed unseen gets its own approval and bucket job, never the running files job', async () => {
  await fx.control.addPolicy({ requiredApprovals: 2, approvalWindowHours: 24, executionWindowHours: 24 });
  // Restores long enough that the files restore below still runs when the bucket restore looks for its own job.
  await fx.control.jobsConfig({ restoreSeconds: 10 });
  const since = (await fx.control.state()).now;
  // A files restore of the same snapshot into the same restore account is running.
  const filesJobId = await fx.service.restoreFiles(target.resourceId, target.snapshotId, {
    destination,
    files: [{ path: '/data', isDirectory: true }],
    restoreAccountId: target.restoreAccountId,
  });
  // The bucket restore's first call gets a 503 the service never saw.
  fx.proxy.add({ method: 'POST', path: RESTORE_BUCKET, action: '503', times: 1 });

  const handle = await start();
  const requestId = await approveAll(handle, 2);
  const result = await nudgedResult(handle);

  expect(result.job.jobId).not.toBe(filesJobId);
  expect(result.approval).toMatchObject({ requestId, status: 'APPROVED', approvals: { current: 2, required: 2 } });
  await expectOnlyBucketJob(since, result.job.jobId);
  await expectRestoreType(filesJobId, 'files');
  expect((await fx.control.actionRequest(requestId)).actionApprovalRequest.status).toBe('EXECUTED');
  // The refused attempt cannot be told apart from a lost answer, so the run says a request may be left.
  expect(result.possibleLeftoverRequests).toBe(1);
  expect((await handle.query(statusQuery)).detail).toMatch(/up to 1 earlier action request/);
});

test('a first call whose answer was lost after the service acted leaves one CREATED request, reported, and restores once', async () => {
  await fx.control.addPolicy({ requiredApprovals: 1, approvalWindowHours: 24, executionWindowHours: 24 });
  const since = (await fx.control.state()).now;
  const requestsBefore = await actionRequestCount();
  fx.proxy.add({ method: 'POST', path: RESTORE_BUCKET, action: 'reset-after', times: 1 });

  const handle = await start();
  const requestId = await approveAll(handle, 1);
  const result = await nudgedResult(handle);

  expect(result.possibleLeftoverRequests).toBe(1);
  expect(await actionRequestCount()).toBe(requestsBefore + 2);
  await expectOnlyBucketJob(since, result.job.jobId);
  expect((await fx.control.actionRequest(requestId)).actionApprovalRequest.status).toBe('EXECUTED');
});

test('an approved repeat whose answer was lost adopts the job its executed request made, and only that one', async () => {
  await fx.control.addPolicy({ requiredApprovals: 1, approvalWindowHours: 24, executionWindowHours: 24 });
  const since = (await fx.control.state()).now;
  const handle = await start();
  const requestId = await approveAll(handle, 1);
  // Only the repeat carries the approval header; the proxy loses its answer after the service executed it.
  fx.proxy.add({ method: 'POST', path: RESTORE_BUCKET, action: 'reset-after', times: 1 });
  const result = await nudgedResult(handle);

  await expectOnlyBucketJob(since, result.job.jobId);
  expect((await fx.control.actionRequest(requestId)).actionApprovalRequest.status).toBe('EXECUTED');
  expect(result.possibleLeftoverRequests).toBe(0);
  expect(fx.proxy.lost.some((line) => line.includes('restore-bucket'))).toBe(true);
});

test('an unprotected bucket restore whose answer was lost adopts its own job: one bucket job, no request', async () => {
  const since = (await fx.control.state()).now;
  const requestsBefore = await actionRequestCount();
  fx.proxy.add({ method: 'POST', path: RESTORE_BUCKET, action: 'reset-after', times: 1 });

  const result = await (await start()).result();

  await expectOnlyBucketJob(since, result.job.jobId);
  expect(await actionRequestCount()).toBe(requestsBefore);
});

test('the approval count in status moves with an approval, without a nudge', async () => {
  await fx.control.addPolicy({ requiredApprovals: 2, approvalWindowHours: 24, executionWindowHours: 24 });
  const handle = await start();
  const status = await phaseReached(handle, 'waiting for approval');
  expect(status.progress).toEqual({ done: 0, total: 2, unit: 'approvals' });
  const requestId = /action request (\S+)/.exec(status.waitingFor ?? '')?.[1] ?? '';
  await fx.control.approve(requestId, APPROVAL);
  // The wait looks every 30 s while the request is young.
  await eventually(
    'one approval in the status',
    async () => (await handle.query(statusQuery)).progress?.done === 1,
    90_000,
  );
  // The look that saw the first approval would see the second too; a nudge spares the test another 30 s.
  await fx.control.approve(requestId, APPROVAL);
  const result = await nudgedResult(handle);
  expect(result.approval?.approvals).toEqual({ current: 2, required: 2 });
});
