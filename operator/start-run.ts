import {
  WorkflowExecutionAlreadyStartedError,
  type Client,
  type WorkflowExecutionDescription,
} from '@temporalio/client';
import { RunbookKindKey } from '../contracts';
import { drillAlreadyRunning, earlierRunNote, shellWord } from './drill-runs';
import { CliError } from './errors';
import { RUNBOOKS, validateRunbookInput, type RunbookName } from './runbooks';

export interface StartedRun {
  workflowId: string;
  runId: string;
  /** What to say besides: for a drill, that an earlier run under the same ID exists and is kept. */
  notes: string[];
}

/**
 * Validates and starts a runbook under its deterministic ID (or `workflowId`). Nothing starts on a bad input.
 * `inputArg`, `--input` as given, lets a refusal spell out the command to run instead.
 */
export async function startRunbook(
  client: Client,
  taskQueue: string,
  runbook: RunbookName,
  input: unknown,
  workflowId?: string,
  inputArg?: string,
): Promise<StartedRun> {
  const validated = validateRunbookInput(runbook, input);
  const id = workflowId ?? validated.workflowId;
  // A closed run under the ID does not stop the start (Temporal starts a new run); a drill says it is kept.
  const earlier = runbook === 'drDrill' ? await latestRun(client, id) : undefined;
  try {
    const handle = await client.workflow.start(runbook, {
      taskQueue,
      workflowId: id,
      args: validated.args,
      // Set at start too, so that `list --runbook` finds the run before its first workflow task.
      typedSearchAttributes: [{ key: RunbookKindKey, value: runbook }],
    });
    const notes = earlier ? [earlierRunNote(earlier, id === validated.workflowId)] : [];
    return { workflowId: id, runId: handle.firstExecutionRunId, notes };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) {
      const running = await latestRun(client, id);
      if (runbook === 'drDrill') throw new CliError(drillAlreadyRunning(id, inputArg, running));
      throw new CliError(
        `workflow ${id} is already running${running ? ` (${runningRun(running)})` : ''}: ` +
          `the same work was started before (IDs are deterministic).\n${whatToDo(id, runbook, inputArg)}`,
      );
    }
    throw err;
  }
}

/** `run <runId>, RUNNING since <start>`: which run holds the ID. */
function runningRun(run: WorkflowExecutionDescription): string {
  return `run ${run.runId}, ${run.status.name} since ${run.startTime.toISOString()}`;
}

/** What to do about a run that holds the ID: follow it, cancel it, or start another under a different ID. */
export function whatToDo(workflowId: string, runbook: RunbookName, inputArg?: string): string {
  const input = RUNBOOKS[runbook].takesInput
    ? ` --input ${inputArg === undefined ? '<input>' : shellWord(inputArg)}`
    : '';
  return [
    `  follow it:      runbooks status ${shellWord(workflowId)} --watch`,
    `  cancel it:      runbooks cancel ${shellWord(workflowId)}`,
    `  start another:  runbooks start ${runbook}${input} --id ${shellWord(`${workflowId}-2`)}  (a different --id)`,
  ].join('\n');
}

/** The newest run under a workflow ID, or undefined when there is none (or it cannot be told: this is for a note). */
async function latestRun(client: Client, workflowId: string): Promise<WorkflowExecutionDescription | undefined> {
  return client.workflow
    .getHandle(workflowId)
    .describe()
    .catch(() => undefined);
}
