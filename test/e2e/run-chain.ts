// The runs of a workflow that continued as new, read from Temporal: each run's history and the sizes that must stay
// bounded (events per run, the largest payload, the result's encoded size).
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export interface RunHistory {
  runId: string;
  events: HistoryEvent[];
}

/** Every run from the first (`firstRunId`) to the last, following each run's continue-as-new event. */
export async function runChain(client: Client, workflowId: string, firstRunId: string): Promise<RunHistory[]> {
  const runs: RunHistory[] = [];
  for (let runId: string | undefined = firstRunId; runId;) {
    const history: temporal.api.history.v1.IHistory = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events: HistoryEvent[] = history.events ?? [];
    runs.push({ runId, events });
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return runs;
}

/** Scheduled activities of one type in a run. */
export function scheduled(run: RunHistory, activityType: string): number {
  return run.events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === activityType).length;
}

/** The encoded size of the result in the run's completion event, as Temporal stores and limits it. */
export function completionResultBytes(run: RunHistory): number {
  const completed = run.events.at(-1)?.workflowExecutionCompletedEventAttributes;
  if (!completed?.result) throw new Error(`run ${run.runId} did not complete with a result`);
  return temporal.api.common.v1.Payloads.encode(completed.result).finish().length;
}

/** The encoded size of the largest event of the runs: inputs, activity results, a continue-as-new's carried state. */
export function largestEventBytes(runs: RunHistory[]): number {
  let largest = 0;
  for (const run of runs) {
    for (const event of run.events) {
      largest = Math.max(largest, temporal.api.history.v1.HistoryEvent.encode(event).finish().length);
    }
  }
  return largest;
}
