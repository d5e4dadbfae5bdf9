// The largest history among a drill's workflows, read from Temporal: the drill's own runs (it continues as new) and
// its batches, every execution whose workflow ID starts with the drill's.
import type { Client } from '@temporalio/client';

export interface HistorySizes {
  /** The drill's runs, oldest first, with their history lengths. */
  parentRuns: number[];
  /** The batch with the longest history, and how many batches there were. */
  largestChild: { workflowId: string; events: number } | undefined;
  children: number;
  childIds: string[];
  /** Executions under the drill's ID that are not closed: none should be left once the drill ends. */
  open: string[];
}

export async function drillHistories(client: Client, drillId: string): Promise<HistorySizes> {
  const parent: { start: number; events: number }[] = [];
  const children: { workflowId: string; events: number }[] = [];
  const open: string[] = [];
  for await (const run of client.workflow.list({ query: `WorkflowId STARTS_WITH '${drillId}'` })) {
    const described = await client.workflow.getHandle(run.workflowId, run.runId).describe();
    if (!described.closeTime) open.push(`${run.workflowId} (${run.status.name})`);
    const events = described.historyLength;
    if (run.workflowId === drillId) parent.push({ start: described.startTime.getTime(), events });
    else children.push({ workflowId: run.workflowId, events });
  }
  const largestChild = children.reduce<HistorySizes['largestChild']>(
    (max, c) => (max === undefined || c.events > max.events ? c : max),
    undefined,
  );
  return {
    parentRuns: parent.sort((a, b) => a.start - b.start).map((r) => r.events),
    largestChild,
    children: children.length,
    childIds: children.map((c) => c.workflowId).sort(),
    open,
  };
}
