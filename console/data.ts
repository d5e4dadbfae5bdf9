import { WorkflowNotFoundError, type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import { ApprovalStatusKey, nudgeSignal, RunbookKindKey, RunbookResourceKey, type RunbookStatus } from '../contracts';
import { waitingApprovals } from '../cli/approvals-command';
import type { WaitingApproval } from '../cli/output-shapes';
import { statusesOf } from '../cli/watch';
import { RUNBOOK_NAMES } from '../runbooks/registry';

/** A run as the Runs page shows it: what visibility and the search attributes say, and the status of an open one. */
export interface ConsoleRun {
  workflowId: string;
  runId: string;
  runbook: string;
  state: string;
  startTime: string;
  closeTime?: string;
  resource?: string;
  approvalStatus?: string;
  /** Asked of the run itself (a worker answers), for runs still open. */
  status?: RunbookStatus;
}

/** Why a nudge was not sent. */
export class NudgeRefused extends Error {
  constructor(
    readonly status: 404 | 409,
    message: string,
  ) {
    super(message);
  }
}

/** What the pages read from Temporal, and the one action. */
export interface ConsoleData {
  runs(limit: number): Promise<ConsoleRun[]>;
  approvals(limit: number): Promise<WaitingApproval[]>;
  /** Sends the nudge signal to a run that waits for approval; refuses any other run. */
  nudge(workflowId: string): Promise<void>;
}

export function temporalData(client: Client): ConsoleData {
  return {
    async runs(limit) {
      // Every runbook's runs, newest first, as `runbooks list` finds them.
      const query = `WorkflowType IN (${RUNBOOK_NAMES.map((n) => `'${n}'`).join(', ')})`;
      const infos: WorkflowExecutionInfo[] = [];
      for await (const info of client.workflow.list({ query })) {
        infos.push(info);
        if (infos.length >= limit) break;
      }
      const runs = infos.map(consoleRun);
      const open = runs.filter((r) => r.state === 'RUNNING');
      const statuses = await statusesOf(client, open);
      open.forEach((run, i) => {
        run.status = statuses[i];
      });
      return runs;
    },
    approvals: (limit) => waitingApprovals(client, limit),
    async nudge(workflowId) {
      const handle = client.workflow.getHandle(workflowId);
      const description = await handle.describe().catch((err: unknown) => {
        if (err instanceof WorkflowNotFoundError) throw new NudgeRefused(404, `no workflow '${workflowId}'`);
        throw err;
      });
      // The console nudges what it lists: a running run whose request waits for reviewers.
      const waiting =
        description.status.name === 'RUNNING' &&
        description.typedSearchAttributes.get(ApprovalStatusKey) === 'PENDING_APPROVAL';
      if (!waiting) throw new NudgeRefused(409, `${workflowId} does not wait for approval`);
      // As `runbooks nudge` sends it.
      await handle.signal(nudgeSignal);
    },
  };
}

function consoleRun(info: WorkflowExecutionInfo): ConsoleRun {
  const attributes = info.typedSearchAttributes;
  return {
    workflowId: info.workflowId,
    runId: info.runId,
    runbook: attributes.get(RunbookKindKey) ?? info.type,
    state: info.status.name,
    startTime: info.startTime.toISOString(),
    closeTime: info.closeTime?.toISOString(),
    resource: attributes.get(RunbookResourceKey),
    approvalStatus: attributes.get(ApprovalStatusKey),
  };
}
