// `runbooks approvals` end to end: the CLI, run from source, lists a restore that waits for its second approval.
import { randomUUID } from 'node:crypto';
import type { ApprovalsOutput, WaitingApproval } from '../../operator/output-shapes';
import { statusQuery } from '../../contracts';
import { approvalGatedRestore } from '../../runbooks/workflows';
import { runCliFromSourceAsync } from '../helpers/cli-from-source';
import { APPROVAL, cliEnvOf, eventually, restoreSuite, waitingRequestId } from './helpers';

const { fx, target } = restoreSuite({ outcomes: {} });

async function approvals(args: string[] = []) {
  const result = await runCliFromSourceAsync(['approvals', ...args], cliEnvOf(fx));
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout;
}

async function waitingRuns(): Promise<WaitingApproval[]> {
  return (JSON.parse(await approvals(['--json'])) as ApprovalsOutput).approvals;
}

test('a restore waiting for its second approval is listed with its request, 1/2 approvals and both deadlines', async () => {
  await fx.control.addPolicy({ requiredApprovals: 2, approvalWindowHours: 24, executionWindowHours: 6 });
  const handle = await fx.env.client.workflow.start(approvalGatedRestore, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `restore-${randomUUID()}`,
    args: [
      { ...target, kind: 'bucket', destination: { bucketA: { bucketName: 'restored-objects', prefix: 'view/' } } },
    ],
  });
  const requestId = await waitingRequestId(handle);
  await fx.control.approve(requestId, { ...APPROVAL, reviewerEmail: 'first@example.com' });
  await eventually('the run to see the first approval', async () => {
    const status = await handle.query(statusQuery);
    return status.approval?.approvals.current === 1;
  });
  const request = (await fx.control.actionRequest(requestId)).actionApprovalRequest;
  expect(request.approvalExpirationTime).toBeTruthy();

  // Visibility catches up with the search attribute shortly after it is set.
  const row = await eventually('the run in `runbooks approvals --json`', async () =>
    (await waitingRuns()).find((r) => r.workflowId === handle.workflowId),
  );
  expect(row).toMatchObject({
    runbook: 'approvalGatedRestore',
    requestId,
    requestedAt: request.createdTime,
    approvals: { current: 1, required: 2 },
    approvalDeadline: request.approvalExpirationTime,
    executionWindowHours: 6,
    answered: true,
  });
  // Not approved yet: the execution window has no end until it is.
  expect(row.executionDeadline).toBeUndefined();
  expect(row.ageSeconds).toBeGreaterThanOrEqual(0);
  expect(row.ageSeconds).toBeLessThan(120);

  const table = (await approvals()).split('\n');
  expect(table[0]).toMatch(/^WORKFLOW ID +RUNBOOK +REQUEST ID +AGE +APPROVALS +APPROVE BEFORE +EXECUTE BEFORE$/);
  const line = table.find((l) => l.startsWith(handle.workflowId)) ?? '';
  expect(line).toContain(requestId);
  expect(line).toMatch(/ 1\/2 /);
  expect(line).toContain(request.approvalExpirationTime ?? 'no deadline');
  expect(line).toMatch(/approval \+ 6h$/);

  // Approved, executed and finished: no longer waiting, so no longer listed.
  await fx.control.approve(requestId, { ...APPROVAL, reviewerEmail: 'second@example.com' });
  const result = await handle.result();
  expect(result.approval?.status).toBe('APPROVED');
  await eventually('the run to leave `runbooks approvals`', async () =>
    (await waitingRuns()).every((r) => r.workflowId !== handle.workflowId),
  );
  expect(await approvals()).not.toContain(handle.workflowId);
});
