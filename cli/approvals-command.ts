import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { ApprovalStatusKey, type RunbookStatus } from '../contracts';
import { parseCommandLine, positionals, wholeNumber } from './args';
import { withTemporal } from './connection';
import { outputFormat, printJson } from './output';
import type { ApprovalsOutput, WaitingApproval } from './output-shapes';
import { statusesOf } from './watch';
import { printTable } from './workflow-commands';
import { helpFor } from './help';

const HELP = helpFor('approvals');

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

/** `45s`, `12m`, `3h 05m`, `2d 4h` */
export function formatAge(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ${String(minutes % 60).padStart(2, '0')}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

export function approvalRows(waiting: WaitingApproval[]): string[][] {
  const header = ['WORKFLOW ID', 'RUNBOOK', 'REQUEST ID', 'AGE', 'APPROVALS', 'APPROVE BEFORE', 'EXECUTE BEFORE'];
  const rows = waiting.map((w) => [
    w.workflowId,
    w.runbook,
    w.requestId ?? '?',
    w.ageSeconds === undefined ? '?' : formatAge(w.ageSeconds),
    w.approvals ? `${w.approvals.current}/${w.approvals.required}` : '?',
    w.approvalDeadline ?? '?',
    w.executionDeadline ?? (w.executionWindowHours === undefined ? '?' : `approval + ${w.executionWindowHours}h`),
  ]);
  return [header, ...rows];
}

export async function approvalsCommand(argv: string[]): Promise<void> {
  const { values, positionals: rest } = parseCommandLine(argv, HELP);
  positionals(rest, [], HELP);
  const format = outputFormat(values.output, HELP);
  // --json is the older spelling of --output json.
  const json = values.json || format === 'json';
  const limit = wholeNumber(values.limit, '--limit', 1, 10_000, HELP);
  await withTemporal(async ({ client }) => {
    const waiting = await waitingApprovals(client, limit);
    if (json) {
      printJson({ approvals: waiting } satisfies ApprovalsOutput);
      return;
    }
    if (waiting.length === 0) {
      console.log('no runbooks wait for approval');
      return;
    }
    printTable(approvalRows(waiting));
    if (waiting.some((w) => !w.answered)) {
      console.log('? : no worker answered the status query of that run; is `npm start` running?');
    }
  });
}
