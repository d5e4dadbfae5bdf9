// The plan report's schema version and file names. Workflow code: no Node modules, so that workflows can import it.
import { runFileName } from '../query-export/run-file';
import type { PlanReport } from './contract';

/** Bumped when a field of `PlanReport` changes meaning or goes away (adding an optional one does not). */
export const PLAN_REPORT_SCHEMA_VERSION = 1;

/**
 * The base name of a run's report files: `plan-<name>--<runId>`. The run ID keeps two runs of one plan apart; what a
 * file name cannot hold becomes `_`, and a name too long for a file name is cut with a hash of the whole, as the
 * drill's and the exports' files are (`runFileName`).
 */
export function planReportBaseName({ name, runId }: Pick<PlanReport, 'name' | 'runId'>): string {
  return runFileName({ workflowId: `plan-${name}`, runId }, '');
}
