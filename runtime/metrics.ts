// Workflow-side runbook metrics. The SDK drops metrics recorded while replaying, and they create no commands, so
// recording them changes neither history nor replay. (The runbook.failed notification is a command: it is patched.)
import { ApplicationFailure, TemporalFailure } from '@temporalio/common';
import { ContinueAsNew, isCancellation, metricMeter, workflowInfo } from '@temporalio/workflow';
import { RunbookMetric } from '../contracts';
import { notificationsSettled, notify } from './calls';

type Outcome = 'completed' | 'failed' | 'cancelled' | 'continued-as-new';

/**
 * Wraps a workflow function: counts its runs started and finished (by outcome), tagged with its workflow type; sends
 * `runbook.failed` when a run fails, and lets every notification of the run settle before it ends.
 */
export function measured<A extends unknown[], R>(workflow: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  const run = async (...args: A): Promise<R> => {
    const runbook = workflowInfo().workflowType;
    metricMeter.createCounter(RunbookMetric.runsStarted, '1', 'Runbook runs started').add(1, { runbook });
    const finished = (outcome: Outcome) =>
      metricMeter.createCounter(RunbookMetric.runsFinished, '1', 'Runbook runs ended').add(1, { runbook, outcome });
    try {
      const result = await workflow(...args);
      await notificationsSettled();
      finished('completed');
      return result;
    } catch (err) {
      // A run that hands its work to a next run has not failed; the next run counts as started again.
      if (err instanceof ContinueAsNew) {
        await notificationsSettled();
        finished('continued-as-new');
        throw err;
      }
      // Other errors fail the workflow task, not the run: it retries, so there is nothing to announce yet.
      const failed = err instanceof TemporalFailure && !isCancellation(err);
      if (failed) notify({ event: 'runbook.failed', data: failureNotice(err) });
      await notificationsSettled();
      finished(isCancellation(err) ? 'cancelled' : 'failed');
      throw err;
    }
  };
  // Clients name the workflow type by the function's name.
  return Object.defineProperty(run, 'name', { value: workflow.name });
}

function failureNotice(err: TemporalFailure) {
  const type = err instanceof ApplicationFailure ? err.type : undefined;
  return { failureType: type ?? err.name, message: err.message.slice(0, 1000) };
}

/** Seconds from submitting an action request to its final status (workflow time, so replay-safe). */
export function recordApprovalWait(seconds: number, status: string): void {
  metricMeter
    .createHistogram(RunbookMetric.approvalWait, 'float', 's', 'Seconds from approval request to decision')
    .record(Math.max(0, seconds), { runbook: workflowInfo().workflowType, outcome: status });
}
