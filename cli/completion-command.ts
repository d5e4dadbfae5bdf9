import { parseCommandLine, positionals } from '../operator/args';
import { withTemporal } from '../operator/connection';
import { UsageError } from '../operator/errors';
import { RUNBOOK_NAMES } from '../operator/runbooks';
import { SCRIPTS, type Shell } from './completion-scripts';
import { helpFor } from '../operator/help';

const HELP = helpFor('completion');

// Completion runs on every Tab: an unreachable Temporal must cost at most about this long, and print nothing.
const CONNECT_TIMEOUT_MS = 1_000;
const LIST_TIMEOUT_MS = 2_000;
// More IDs than this are not worth a Tab: the user types a longer prefix.
const MAX_IDS = 200;

/** `runbooks completion <shell>`, and (for the scripts, not in the usage) `--workflow-ids [--runbook <name>]`. */
export async function completionCommand(argv: string[]): Promise<void> {
  const { values, positionals: rest } = parseCommandLine(argv, HELP);
  if (values['workflow-ids']) {
    positionals(rest, [], HELP);
    for (const id of await runningWorkflowIds(values.runbook)) console.log(id);
    return;
  }
  const [shell = ''] = positionals(rest, ['shell'], HELP);
  if (!Object.hasOwn(SCRIPTS, shell))
    throw new UsageError(`<shell> must be bash, zsh or fish, not '${shell}'\n${HELP.usage}`);
  process.stdout.write(SCRIPTS[shell as Shell]());
}

/**
 * The IDs of running workflows of the runbooks' types (or of one runbook), newest first. Any failure (no Temporal,
 * no configuration, a timeout) answers with none: a completion prints nothing rather than an error in the prompt.
 */
export async function runningWorkflowIds(runbook?: string): Promise<string[]> {
  const names = runbook === undefined ? RUNBOOK_NAMES : RUNBOOK_NAMES.filter((n) => n === runbook);
  if (names.length === 0) return [];
  const query = `ExecutionStatus = 'Running' AND WorkflowType IN (${names.map((n) => `'${n}'`).join(', ')})`;
  try {
    return await withTemporal(
      ({ client }) =>
        client.withDeadline(Date.now() + LIST_TIMEOUT_MS, async () => {
          const ids: string[] = [];
          for await (const run of client.workflow.list({ query })) {
            ids.push(run.workflowId);
            if (ids.length >= MAX_IDS) break;
          }
          return ids;
        }),
      { connectTimeoutMs: CONNECT_TIMEOUT_MS },
    );
  } catch {
    return [];
  }
}
