import type { WorkflowExecutionDescription } from '@temporalio/client';
import type { DrDrillResult } from '../runbooks/dr-drill/contract';
import { countsText } from '../runbooks/dr-drill/report-text';
import { RunFailedError } from './errors';

// What the CLI says about a drill's runs: its verdict as an exit status, and a second run on one day.

/**
 * A drill that completed but did not pass (PARTIAL or FAIL) is a failed run for whoever waits on it: exit 4, as a
 * runbook that failed, so that a script or a scheduler sees it. PASS, every resource restored and verified, is 0.
 */
export function unpassedDrill(workflowId: string, result: DrDrillResult): RunFailedError | undefined {
  const s = result.summary;
  if (s.verdict === 'PASS') return undefined;
  return new RunFailedError(
    `${workflowId}: the drill's verdict is ${s.verdict} (${countsText(s)}); ` +
      `the report says why: ${result.report.markdown}`,
  );
}

/** A word the shell reads back as `text`: as it is when it is plain, single-quoted otherwise. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Why a drill did not start under `workflowId` (a run under it is open, `running` when it could be described), and
 * what to do: follow it, cancel it, or start a second drill the same day: the same input under its own ID. `inputArg`
 * is `--input` as given; unknown, it is left to fill in.
 */
export function drillAlreadyRunning(
  workflowId: string,
  inputArg?: string,
  running?: Pick<WorkflowExecutionDescription, 'runId' | 'status' | 'startTime'>,
): string {
  const input = inputArg === undefined ? '<the same input>' : shellWord(inputArg);
  const which = running
    ? ` (run ${running.runId}, ${running.status.name} since ${running.startTime.toISOString()})`
    : '';
  const id = shellWord(workflowId);
  return (
    `a drill is already running as ${workflowId}${which}; a drill's ID is drill-<name>-<day> unless --id says ` +
    `otherwise.\n` +
    `  follow it:      runbooks status ${id} --watch\n` +
    `  cancel it:      runbooks cancel ${id}\n` +
    `  start another:  runbooks start drDrill --input ${input} --id ${shellWord(`${workflowId}-2`)}  (a different --id)`
  );
}

/**
 * Said when a drill started under an ID that an earlier, closed run had (Temporal starts a new run under it): that
 * run and its report are kept, since each run's report is named for its run. Only a completed run surely wrote one.
 */
export function earlierRunNote(earlier: WorkflowExecutionDescription, defaultId: boolean): string {
  const which = defaultId ? 'this drill today' : earlier.workflowId;
  const report = earlier.status.name === 'COMPLETED' ? 'its report is kept' : 'its report, if it wrote one, is kept';
  return (
    `an earlier run of ${which} exists (run ${earlier.runId}, ${earlier.status.name}); ${report}: ` +
    `each run's report is named for its run (drill-reports/${earlier.workflowId}--<runId>.json)`
  );
}
