import type { WorkflowExecutionDescription, WorkflowExecutionInfo, WorkflowHandle } from '@temporalio/client';
import type { RunbookStatus } from '../contracts';
import type { StatusOutput, WorkflowRun } from './output-shapes';
import { failureOf } from './watch';

/** A run of `runbooks list -o json`. Undefined fields are left out of the JSON. */
export function workflowRun(
  info: Pick<WorkflowExecutionInfo, 'workflowId' | 'runId' | 'type' | 'status' | 'startTime' | 'closeTime'>,
): WorkflowRun {
  return {
    workflowId: info.workflowId,
    runId: info.runId,
    runbook: info.type,
    state: info.status.name,
    startTime: info.startTime.toISOString(),
    closeTime: info.closeTime?.toISOString(),
  };
}

/**
 * `runbooks status -o json`: the run as described, its runbook's status (as queried, when a worker answered), and
 * how it ended: the result once COMPLETED, the failure once FAILED.
 */
export async function statusOutput(
  description: WorkflowExecutionDescription,
  status: RunbookStatus | undefined,
  handle: WorkflowHandle,
): Promise<StatusOutput> {
  const out: StatusOutput = { ...workflowRun(description), status };
  if (description.status.name === 'COMPLETED') out.result = await handle.result();
  else if (description.status.name === 'FAILED') out.failure = await handle.result().then(() => undefined, failureOf);
  return out;
}
