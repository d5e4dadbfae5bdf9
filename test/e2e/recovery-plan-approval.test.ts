// recoveryPlan end to end with a restore behind multi-party approval: database → bucket (a bucket restore, which an
// approval policy of two approvers protects) → a manual switch-over, and an independent wait. The bucket's restore
// waits for its quorum in its own approval-gated restore (a child workflow), where the reviewers' decisions reach it;
// the plan records that wait as the step's 'approval' phase, in its RTO too. A denial fails the step and skips its
// dependents only. On the simulator and a real dev server.
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { statusQuery } from '../../contracts';
import type { PlanReport } from '../../runbooks/recovery-plan/contract';
import { planConfirmUpdate, planStepsQuery } from '../../runbooks/recovery-plan/contract';
import type { RecoveryPlanInput } from '../../runbooks/recovery-plan/plan';
import { approvalGatedRestore, recoveryPlan } from '../../runbooks/workflows';
import { APPROVAL, DENIAL, drillVaultAndAccount, e2eSuite, eventually, nudge, waitingRequestId } from './helpers';
import { reportOf, restoreTo } from './plan-application';

const fx = e2eSuite();
let ids: { database: string; bucket: string };

/** The approvers the policy asks for. */
const QUORUM = 2;

beforeAll(async () => {
  await fx.control.jobsConfig({ restoreSeconds: 1, querySeconds: 0 });
  const resources = Object.values(fx.sim.ctx.state.resources).map((r) => r.resource);
  const database = resources.find((r) => r.resourceType === 'PA_RELATIONAL_DB')?.id;
  const bucket = resources.find((r) => r.resourceType === 'PA_OBJECT_STORE')?.id;
  if (!database || !bucket) throw new Error('the seeded simulator lacks a database or a bucket');
  ids = { database, bucket };
  // Out of every window of the seeded snapshots, then one backup of each at the same moment: the common point.
  await fx.control.advanceClock(400 * 86_400);
  const { vault } = drillVaultAndAccount(fx);
  const jobs = [
    await fx.service.takeSnapshot(database, { vaultId: vault.id, retentionDays: 30 }),
    await fx.service.takeSnapshot(bucket, { vaultId: vault.id, retentionDays: 30 }),
  ];
  await fx.control.advanceClock(3600);
  for (const job of jobs) await fx.service.getBackupJob(job);
  // Bucket restores (restore-bucket) need two approvals; the database's files restore needs none.
  await fx.control.addPolicy({ requiredApprovals: QUORUM, approvalWindowHours: 48, executionWindowHours: 24 });
}, 120_000);

function gatedPlan(name: string): RecoveryPlanInput {
  const { account } = drillVaultAndAccount(fx);
  return {
    name,
    restoreAccountId: account.id,
    rtoTargetMinutes: 60,
    steps: [
      { id: 'database', kind: 'restore', resource: { id: ids.database }, destination: restoreTo('db') },
      {
        id: 'bucket',
        kind: 'restore',
        after: ['database'],
        resource: { id: ids.bucket },
        restoreKind: 'bucket',
        destination: restoreTo('bucket'),
        comment: 'plan test: restore the shop bucket',
      },
      {
        id: 'switch-over',
        kind: 'manual',
        after: ['bucket'],
        instructions: 'Point the shop at the restored bucket',
        approvers: ['oncall-lead'],
      },
      // Independent of the others: a failure of the bucket lets it finish.
      { id: 'warm-up', kind: 'wait', seconds: 1 },
    ],
  };
}

async function startPlan(prefix: string) {
  const plan = gatedPlan(`${prefix}-${randomUUID().slice(0, 8)}`);
  const handle = await fx.env.client.workflow.start(recoveryPlan, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `plan-${plan.name}`,
    args: [{ plan }],
  });
  // The bucket step's approval-gated restore, as the plan names it.
  const child = fx.env.client.workflow.getHandle<typeof approvalGatedRestore>(
    `${handle.workflowId}--bucket--${ids.bucket}`,
  );
  return { handle, child };
}

/** The bucket restore jobs the simulator has started for the bucket, by ID. */
const bucketRestoreJobs = () =>
  Object.entries(fx.sim.ctx.state.restoreJobs)
    .filter(([, job]) => job.resourceId === ids.bucket && job.restoreType === 'BUCKET')
    .map(([id]) => id);

/** Each step's status in the plan's query, by step. */
async function stepStatuses(handle: WorkflowHandle<typeof recoveryPlan>) {
  return Object.fromEntries((await handle.query(planStepsQuery)).map((s) => [s.id, s.status]));
}

/**
 * Waits for the bucket's child to wait on its reviewers, checks that the plan shows the bucket running and its
 * dependent not started, and returns the child's action request.
 */
async function waitingForApproval(handle: WorkflowHandle<typeof recoveryPlan>, child: WorkflowHandle) {
  const requestId = await waitingRequestId(child);
  const status = await child.query(statusQuery);
  expect(status.approval).toMatchObject({ requestId, status: 'PENDING_APPROVAL', approvals: { current: 0 } });
  expect(status.approval?.approvals.required).toBe(QUORUM);
  expect(await stepStatuses(handle)).toMatchObject({
    database: 'passed',
    bucket: 'running',
    'switch-over': 'pending',
  });
  return requestId;
}

/** The parts of the RTO on its critical path: by phase, and by step with the gaps between steps. */
function expectPartsSumToWhole(report: PlanReport): void {
  const { rto } = report;
  const byPhase = Object.values(rto.byPhase).reduce((a, b) => a + b, 0);
  let previous = Date.parse(report.startedAt);
  let gaps = 0;
  for (const id of rto.criticalPath) {
    const s = report.steps.find((step) => step.id === id);
    gaps += Date.parse(s?.startedAt ?? '') - previous;
    previous = Date.parse(s?.endedAt ?? '');
  }
  const byStep = rto.byStep.reduce((a, b) => a + b.seconds, 0) + gaps / 1000;
  expect(byPhase).toBeCloseTo(rto.seconds, 3);
  expect(byStep).toBeCloseTo(rto.seconds, 3);
}

test('a restore waits for its quorum in its child, then restores once: PASS, with an approval phase', async () => {
  const jobsBefore = bucketRestoreJobs();
  const { handle, child } = await startPlan('approved');
  const requestId = await waitingForApproval(handle, child);
  const { requesterEmail } = (await fx.control.actionRequest(requestId)).actionApprovalRequest;
  expect(requesterEmail).toBeTruthy();

  // One approval of two: the child shows it and still waits; nothing is restored yet.
  await fx.control.approve(requestId, { ...APPROVAL, reviewerEmail: 'alice@example.com' });
  await nudge(child);
  await eventually('the child to show 1 approval', async () => {
    const status = await child.query(statusQuery);
    return status.phase === 'waiting for approval' && status.approval?.approvals.current === 1;
  });
  // Refused: the same reviewer twice, and the requester (the worker's own client) reviewing its own request.
  await expect(fx.control.approve(requestId, { reviewerEmail: 'alice@example.com' })).rejects.toThrow(
    /409.*already reviewed/,
  );
  await expect(fx.control.approve(requestId, { reviewerEmail: requesterEmail })).rejects.toThrow(
    /409.*cannot review their own request/,
  );
  const pending = (await fx.control.actionRequest(requestId)).actionApprovalRequest;
  expect(pending.status).toBe('PENDING_APPROVAL');
  expect(bucketRestoreJobs()).toEqual(jobsBefore);
  expect((await stepStatuses(handle)).bucket).toBe('running');

  // The second approver completes the quorum.
  await fx.control.approve(requestId, { ...APPROVAL, reviewerEmail: 'bob@example.com' });
  await nudge(child);
  const restored = await child.result();
  expect(restored.approval).toMatchObject({ requestId, status: 'APPROVED', approvals: { current: 2, required: 2 } });
  await eventually('the switch-over to wait', async () => (await stepStatuses(handle))['switch-over'] === 'running');
  await handle.executeUpdate(planConfirmUpdate, { args: [{ stepId: 'switch-over', by: 'oncall-lead' }] });
  const report = await reportOf(handle);

  expect(report.verdict).toBe('PASS');
  expect(report.failedSteps).toEqual([]);
  expect(report.steps.map((s) => [s.id, s.status])).toEqual([
    ['database', 'passed'],
    ['bucket', 'passed'],
    ['switch-over', 'passed'],
    ['warm-up', 'passed'],
  ]);
  const bucket = report.steps.find((s) => s.id === 'bucket');
  // The approval wait, from the child's start to its approval, then the restore.
  expect(bucket?.phases.map((p) => p.phase)).toEqual(['approval', 'restore']);
  const [approval, restore] = bucket?.phases ?? [];
  expect(approval?.startedAt).toBe(restored.timings.startedAt);
  expect(approval?.endedAt).toBe(restored.timings.approvedAt);
  expect(Date.parse(approval?.endedAt ?? '')).toBeLessThanOrEqual(Date.parse(restore?.startedAt ?? ''));
  expect(Date.parse(approval?.endedAt ?? '')).toBeGreaterThan(Date.parse(approval?.startedAt ?? ''));
  // The RTO runs through the bucket, its approval a part of it, and its parts still sum to the whole.
  expect(report.rto.criticalPath).toEqual(['database', 'bucket', 'switch-over']);
  expect(report.rto.byPhase.approval).toBeGreaterThan(0);
  expect(report.rto.byPhase.restore).toBeGreaterThan(0);
  expectPartsSumToWhole(report);
  // The bucket restored exactly once, by the approved request, which the service marks executed.
  const started = bucketRestoreJobs().filter((id) => !jobsBefore.includes(id));
  expect(started).toEqual([restored.job.jobId]);
  expect(bucket?.resources?.map((r) => [r.resourceId, r.restoreJobId, r.workflowId, r.status])).toEqual([
    [ids.bucket, restored.job.jobId, child.workflowId, 'succeeded'],
  ]);
  expect((await fx.control.actionRequest(requestId)).actionApprovalRequest.status).toBe('EXECUTED');
}, 90_000);

test('a denied restore fails its step, naming why; its dependent is skipped, the independent one ends', async () => {
  const jobsBefore = bucketRestoreJobs();
  const { handle, child } = await startPlan('denied');
  const requestId = await waitingForApproval(handle, child);
  // One approver says yes, the next says no: a denial ends the request whatever the count.
  await fx.control.approve(requestId, { ...APPROVAL, reviewerEmail: 'alice@example.com' });
  await fx.control.deny(requestId, { ...DENIAL, reviewerEmail: 'bob@example.com' });
  await nudge(child);
  const report = await reportOf(handle);

  expect(report.verdict).toBe('FAIL');
  expect(report.failedSteps).toEqual(['bucket']);
  expect(Object.fromEntries(report.steps.map((s) => [s.id, s.status]))).toEqual({
    database: 'passed',
    bucket: 'failed',
    'switch-over': 'skipped',
    'warm-up': 'passed',
  });
  const bucket = report.steps.find((s) => s.id === 'bucket');
  expect(bucket?.reason).toMatch(new RegExp(`${ids.bucket}: .*action request ${requestId} ended DENIED`));
  expect(bucket?.resources?.map((r) => [r.resourceId, r.workflowId, r.status])).toEqual([
    [ids.bucket, child.workflowId, 'failed'],
  ]);
  // Nothing was restored: the step's time went to the reviewers, up to the denial.
  expect(bucket?.phases.map((p) => p.phase)).toEqual(['approval']);
  const [waited] = bucket?.phases ?? [];
  expect(waited?.startedAt).toBe(bucket?.startedAt);
  expect(Date.parse(waited?.endedAt ?? '')).toBeLessThanOrEqual(Date.parse(bucket?.endedAt ?? ''));
  expect(report.steps.find((s) => s.id === 'switch-over')?.reason).toBe('skipped: bucket failed');
  expect(bucketRestoreJobs()).toEqual(jobsBefore);
  expect((await fx.control.actionRequest(requestId)).actionApprovalRequest.status).toBe('DENIED');
}, 90_000);
