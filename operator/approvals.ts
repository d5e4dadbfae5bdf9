import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { ApprovalStatusKey, type RunbookStatus } from '../contracts';
import type { WaitingApproval } from './output-shapes';
import { statusesOf } from './watch';

// The runs that wait for reviewers, as `runbooks approvals` lists them and the console shows them.

/** Runs whose search attribute says their action request waits for reviewers. */
export const WAITING_QUERY = `${ApprovalStatusKey.name} = 'PENDING_APPROVAL' AND ExecutionStatus = 'Running'`;

/** The waiting runs, oldest first, each with the details its status query gives. */
export async function waitingApprovals(client: Client, limit: number, now = new Date()): Promise<WaitingApproval[]> {
  const runs: WorkflowExecutionInfo[] = [];
  for await (const run of client.workflow.list({ query: WAITING_QUERY })) {
    runs.push(run);
    if (runs.length >= limit) break;
  }
  const statuses = await statusesOf(client, runs);
  const out: WaitingApproval[] = runs.map((run, i) => ({
    workflowId: run.workflowId,
    runId: run.runId,
    runbook: run.type,
    startedAt: run.startTime.toISOString(),
    ...details(statuses[i], now),
  }));
  return out.sort((a, b) => (a.requestedAt ?? a.startedAt).localeCompare(b.requestedAt ?? b.startedAt));
}

function details(
  status: RunbookStatus | undefined,
  now: Date,
): Omit<WaitingApproval, 'workflowId' | 'runId' | 'runbook' | 'startedAt'> {
  if (!status) return { answered: false };
  const approval = status.approval;
  // A worker older than the approval view reports the request ID and the count of approvals only.
  const progress = status.progress?.unit === 'approvals' ? status.progress : undefined;
  const requestedAt = approval?.requestedAt;
  return {
    answered: true,
    requestId: approval?.requestId ?? status.ids?.requestId,
    requestedAt,
    ageSeconds: requestedAt ? Math.max(0, Math.round((now.getTime() - Date.parse(requestedAt)) / 1000)) : undefined,
    approvals: approval?.approvals ?? (progress ? { current: progress.done, required: progress.total } : undefined),
    approvalDeadline: approval?.approvalDeadline,
    executionDeadline: approval?.executionDeadline,
    executionWindowHours: approval?.executionWindowHours,
  };
}
