import { WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import type { DrDrillResult } from '../runbooks/dr-drill/contract';
import { nudgeSignal } from '../contracts';
import { idArgument, newIdArgument, parseCommandLine, positionals, readInput, wholeNumber } from '../operator/args';
import { withTemporal } from '../operator/connection';
import { unpassedDrill } from '../operator/drill-runs';
import { CliError, UsageError } from '../operator/errors';
import { helpFor, type CommandHelp } from '../operator/help';
import { outputFormat, printJson } from '../operator/output';
import type { ListOutput, WorkflowRun } from '../operator/output-shapes';
import { formatDuration, idLines, statusBlock, statusLine } from '../operator/progress';
import { statusOutput, workflowRun } from '../operator/run-output';
import { RUNBOOK_NAMES, RUNBOOKS, runbookName, validateRunbookInput } from '../operator/runbooks';
import {
  closedHow,
  followUntilInterrupted,
  notFound,
  queryStatus,
  resultOf,
  statusPrinter,
  waitUntilClosed,
} from '../operator/watch';
import { startRunbook } from '../operator/start-run';
import { printTable } from '../operator/output';

/** Said when a command starts following a run: Ctrl-C stops the following only. */
const FOLLOWING = 'following the run until it closes (Ctrl-C stops following; the run goes on)';

const START_HELP = helpFor('start', [`runbooks: ${RUNBOOK_NAMES.join(', ')}`]);

export async function startCommand(argv: string[]): Promise<void> {
  const { values, positionals: rest } = parseCommandLine(argv, START_HELP);
  const [name] = positionals(rest, ['runbook'], START_HELP);
  const runbook = runbookName(name);
  if (RUNBOOKS[runbook].takesInput && values.input === undefined) {
    throw new UsageError(
      `--input is required for ${runbook}: 'runbooks inputs ${runbook} --example' prints one\n${START_HELP.usage}`,
    );
  }
  const input = values.input === undefined ? undefined : readInput(values.input);
  const id = values.id === undefined ? undefined : newIdArgument(values.id, '--id', START_HELP);
  // Validate before connecting: a bad input needs no server to be reported.
  validateRunbookInput(runbook, input);

  await withTemporal(async ({ client, taskQueue }) => {
    const started = await startRunbook(client, taskQueue, runbook, input, id, values.input);
    console.log(`started ${runbook} as ${started.workflowId} (run ${started.runId})`);
    for (const note of started.notes) console.log(note);
    if (!values.wait) {
      console.log(`follow it with: runbooks status ${started.workflowId}`);
      return;
    }
    const handle = client.workflow.getHandle(started.workflowId, started.runId);
    const printer = statusPrinter();
    const began = Date.now();
    // Said once Ctrl-C is caught, so that it holds from the moment it is read.
    await followUntilInterrupted(client, ({ signal, calls }) => {
      console.log(FOLLOWING);
      return waitUntilClosed(handle, { signal, calls, onStatus: (s) => s && printer.show(statusLine(s)) });
    }).finally(() => printer.done());
    const result = await resultOf<unknown>(handle);
    console.log(`completed in ${formatDuration(Date.now() - began)}`);
    console.log(JSON.stringify(result, null, 2));
    // A drill that completed without passing every resource is not a success for whoever waited on it.
    const unpassed = runbook === 'drDrill' ? unpassedDrill(started.workflowId, result as DrDrillResult) : undefined;
    if (unpassed) throw unpassed;
  });
}

const STATUS_HELP = helpFor('status');
const NO_WORKER = 'no worker answered the status query; is `npm start` running?';

export async function statusCommand(argv: string[]): Promise<void> {
  const { values, positionals: rest } = parseCommandLine(argv, STATUS_HELP);
  const workflowId = idArgument(positionals(rest, ['workflowId'], STATUS_HELP)[0] ?? '', '<workflowId>', STATUS_HELP);
  const format = outputFormat(values.output, STATUS_HELP);
  await withTemporal(async ({ client }) => {
    const handle = client.workflow.getHandle(workflowId);
    if (values.watch) {
      // JSON waits without drawing, then prints one document for the closed run.
      const printer = format === 'text' ? statusPrinter() : undefined;
      await followUntilInterrupted(client, ({ signal, calls }) => {
        if (printer) console.log(FOLLOWING);
        return waitUntilClosed(handle, { signal, calls, onStatus: (s) => s && printer?.show(statusLine(s)) });
      }).finally(() => printer?.done());
    }
    const description = await handle.describe().catch((err: unknown) => {
      throw err instanceof WorkflowNotFoundError ? notFound(workflowId) : err;
    });
    const status = await queryStatus(handle);
    if (format === 'json') {
      if (!status) console.error(NO_WORKER);
      printJson(await statusOutput(description, status, client.workflow.getHandle(workflowId, description.runId)));
      return;
    }
    const end = description.closeTime ?? new Date();
    console.log(`${workflowId}  ${description.type}  ${description.status.name}`);
    console.log(
      `started:     ${description.startTime.toISOString()} (${formatDuration(end.getTime() - description.startTime.getTime())} ${description.closeTime ? 'total' : 'so far'})`,
    );
    if (description.closeTime) {
      // A closed run has no live phase: its last one ("waiting for approval") would read as if it still waited.
      console.log(`closed:      ${closedHow(description)}`);
      if (status) for (const line of idLines(status)) console.log(line);
    } else if (status) for (const line of statusBlock(status)) console.log(line);
    else console.log(`phase:       unknown (${NO_WORKER})`);
    if (description.status.name === 'COMPLETED') {
      console.log(`result:      ${JSON.stringify(await handle.result())}`);
    } else if (description.status.name === 'FAILED') {
      await resultOf(handle).catch((err: unknown) => console.log(`failure:     ${(err as Error).message}`));
    }
  });
}

const LIST_HELP = helpFor('list');

/**
 * The `limit` runs started last, newest first, reading no further than needed. Temporal lists open runs first, then
 * closed ones by close time, newest first (SQL visibility), or all by start time (Elasticsearch); either way, once a
 * closed run closed before the `limit`-th newest start seen, no run after it started later, since none starts after
 * it closes.
 */
export async function newestStarted<R extends { startTime: Date; closeTime?: Date }>(
  runs: AsyncIterable<R>,
  limit: number,
): Promise<R[]> {
  const newest: R[] = [];
  for await (const run of runs) {
    const last = newest[limit - 1];
    if (last && run.closeTime && run.closeTime < last.startTime) break;
    const at = newest.findIndex((kept) => kept.startTime < run.startTime);
    newest.splice(at === -1 ? newest.length : at, 0, run);
    newest.length = Math.min(newest.length, limit);
  }
  return newest;
}

export async function listCommand(argv: string[]): Promise<void> {
  const { values, positionals: rest } = parseCommandLine(argv, LIST_HELP);
  positionals(rest, [], LIST_HELP);
  const limit = wholeNumber(values.limit, '--limit', 1, 10_000, LIST_HELP);
  const format = outputFormat(values.output, LIST_HELP);
  // An empty --runbook is a mistake, not "every runbook".
  const query =
    values.runbook !== undefined
      ? `RunbookKind = '${runbookName(values.runbook, '--runbook')}'`
      : `WorkflowType IN (${RUNBOOK_NAMES.map((n) => `'${n}'`).join(', ')})`;
  await withTemporal(async ({ client }) => {
    // Newest start first, as the help says, whatever order Temporal lists them in.
    const newest = await newestStarted(client.workflow.list({ query }), limit);
    const runs: WorkflowRun[] = newest.map(workflowRun);
    const rows = newest.map((run) => [
      run.workflowId,
      run.type,
      run.status.name,
      run.startTime.toISOString(),
      run.closeTime ? formatDuration(run.closeTime.getTime() - run.startTime.getTime()) : '',
    ]);
    if (format === 'json') {
      printJson({ workflows: runs } satisfies ListOutput);
      return;
    }
    if (rows.length === 0) {
      console.log('no runbooks found');
      return;
    }
    printTable([['WORKFLOW ID', 'RUNBOOK', 'STATUS', 'STARTED', 'TOOK'], ...rows]);
  });
}

export async function cancelCommand(argv: string[]): Promise<void> {
  await actOnRun(
    argv,
    helpFor('cancel'),
    'cancel',
    (handle) => handle.cancel(),
    (id) => `cancellation requested for ${id}; the runbook withdraws what it started and stops`,
  );
}

export async function nudgeCommand(argv: string[]): Promise<void> {
  await actOnRun(
    argv,
    helpFor('nudge'),
    'nudge',
    (handle) => handle.signal(nudgeSignal),
    (id) => `nudged ${id}: it checks what it waits for now`,
  );
}

/** Parses `<workflowId>`, acts on that run and reports it done; an unknown ID is reported as not found. */
async function actOnRun(
  argv: string[],
  help: CommandHelp,
  verb: string,
  act: (handle: WorkflowHandle) => Promise<unknown>,
  done: (workflowId: string) => string,
): Promise<void> {
  const { positionals: rest } = parseCommandLine(argv, help);
  const workflowId = idArgument(positionals(rest, ['workflowId'], help)[0] ?? '', '<workflowId>', help);
  await withTemporal(async ({ client }) => {
    const handle = client.workflow.getHandle(workflowId);
    const fail = (err: unknown) => {
      throw err instanceof WorkflowNotFoundError ? notFound(workflowId) : err;
    };
    // Temporal would accept a cancellation of a closed run and do nothing: say so instead.
    const description = await handle.describe().catch(fail);
    if (description.status.name !== 'RUNNING') {
      throw new CliError(`${workflowId} is already closed: it ${closedHow(description)}; nothing to ${verb}`);
    }
    await act(handle).catch(fail);
    console.log(done(workflowId));
  });
}
