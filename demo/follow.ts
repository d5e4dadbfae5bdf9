import type { Client, WorkflowHandle } from '@temporalio/client';
import type { RunbookStatus } from '../contracts';
import { RunFailedError } from '../operator/errors';
import { statusLine } from '../operator/progress';
import type { RunbookName } from '../operator/runbooks';
import { queryStatus, resultOf, statusPrinter, waitUntilClosed } from '../operator/watch';
import { startRunbook } from '../operator/start-run';

/** The demo's time limit for its runbooks, counted from when the stack is ready; every wait takes what is left. */
export class Deadline {
  private readonly end: number;

  constructor(readonly totalMs: number) {
    this.end = Date.now() + totalMs;
  }

  /** Milliseconds left; throws a clear error once there are none. */
  remaining(doing: string): number {
    const left = this.end - Date.now();
    if (left <= 0) {
      throw new RunFailedError(
        `the demo's runbooks did not finish within ${Math.round(this.totalMs / 1000)} s of the stack being ready (while ${doing}); raise --timeout on a slow machine`,
      );
    }
    return left;
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls the runbook's status until `reached` says so; fails early if the run closes first. */
export async function waitForStatus(
  handle: WorkflowHandle,
  deadline: Deadline,
  what: string,
  reached: (status: RunbookStatus) => boolean,
): Promise<RunbookStatus> {
  for (;;) {
    deadline.remaining(`waiting for ${handle.workflowId} to reach: ${what}`);
    const status = await queryStatus(handle);
    if (status && reached(status)) return status;
    const { status: execution } = await handle.describe();
    if (execution.name !== 'RUNNING') {
      await resultOf(handle);
      throw new RunFailedError(`${handle.workflowId} ended ${execution.name} before it reached: ${what}`);
    }
    await sleep(300);
  }
}

/** Follows a run to its end, printing each new status line, and returns its result and wall time. */
export async function follow<T>(
  client: Client,
  workflowId: string,
  deadline: Deadline,
  startedAt: number,
): Promise<{ result: T; tookMs: number }> {
  const handle = client.workflow.getHandle(workflowId);
  const printer = statusPrinter('    ');
  await waitUntilClosed(handle, {
    intervalMs: 400,
    timeoutMs: deadline.remaining(`running ${workflowId}`),
    onStatus: (s) => s && printer.show(statusLine(s)),
  });
  printer.done();
  const result = await resultOf<T>(handle);
  return { result, tookMs: Date.now() - startedAt };
}

/** Starts a runbook, says so, and follows it to its result; the step's time counts from before the start. */
export async function runToEnd<T>(
  client: Client,
  taskQueue: string,
  runbook: RunbookName,
  input: unknown,
  deadline: Deadline,
): Promise<{ workflowId: string; result: T; tookMs: number }> {
  const startedAt = Date.now();
  const { workflowId } = await startRunbook(client, taskQueue, runbook, input);
  console.log(`  started ${workflowId}`);
  return { workflowId, ...(await follow<T>(client, workflowId, deadline, startedAt)) };
}
