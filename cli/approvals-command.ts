import { parseCommandLine, positionals, wholeNumber } from '../operator/args';
import { withTemporal } from '../operator/connection';
import { outputFormat, printJson } from '../operator/output';
import type { ApprovalsOutput, WaitingApproval } from '../operator/output-shapes';
import { printTable } from '../operator/output';
import { helpFor } from '../operator/help';
import { waitingApprovals } from '../operator/approvals';
import { formatAge } from '../operator/progress';

const HELP = helpFor('approvals');

export function approvalRows(waiting: WaitingApproval[]): string[][] {
  const header = ['WORKFLOW ID', 'RUNBOOK', 'REQUEST ID', 'AGE', 'APPROVALS', 'APPROVE BEFORE', 'EXECUTE BEFORE'];
  const rows = waiting.map((w) => [
    w.workflowId,
    w.runbook,
    w.requestId ?? '?',
    w.ageSeconds === undefined ? '?' : formatAge(w.ageSeconds),
    w.approvals ? `${w.approvals.current}/${w.approvals.required}` : '?',
    w.approvalDeadline ?? '?',
    w.executionDeadline ?? (w.executionWindowHours === undefined ? '?' : `approval + ${w.executionWindowHours}h`),
  ]);
  return [header, ...rows];
}

export async function approvalsCommand(argv: string[]): Promise<void> {
  const { values, positionals: rest } = parseCommandLine(argv, HELP);
  positionals(rest, [], HELP);
  const format = outputFormat(values.output, HELP);
  // --json is the older spelling of --output json.
  const json = values.json || format === 'json';
  const limit = wholeNumber(values.limit, '--limit', 1, 10_000, HELP);
  await withTemporal(async ({ client }) => {
    const waiting = await waitingApprovals(client, limit);
    if (json) {
      printJson({ approvals: waiting } satisfies ApprovalsOutput);
      return;
    }
    if (waiting.length === 0) {
      console.log('no runbooks wait for approval');
      return;
    }
    printTable(approvalRows(waiting));
    if (waiting.some((w) => !w.answered)) {
      console.log('? : no worker answered the status query of that run; is `npm start` running?');
    }
  });
}
