import { WorkflowNotFoundError, type Client } from '@temporalio/client';

/**
 * How a workflow run stands, as Temporal describes it (`RUNNING`, `COMPLETED`, `TERMINATED`...), or `NOT_FOUND` for a
 * run it does not know. Any other error propagates.
 */
export async function runStatus(client: Client, workflowId: string, runId?: string): Promise<string> {
  try {
    return (await client.workflow.getHandle(workflowId, runId).describe()).status.name;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 'NOT_FOUND';
    throw err;
  }
}
