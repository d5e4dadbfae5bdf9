import { collect, type RestoreAccount } from '../api';
import { TimestampInput } from '../api/schemas/common';
import { MAX_WINDOW_DAYS, type CleanPointInput, type CleanPointResult } from '../runbooks/clean-point/contract';
import { idArgument, parseCommandLine, positionals, readInput } from '../operator/args';
import { withTemporal } from '../operator/connection';
import { RunFailedError, UsageError } from '../operator/errors';
import { helpFor } from '../operator/help';
import { outputFormat, printJson, printTable, type OutputFormat } from '../operator/output';
import { statusLine } from '../operator/progress';
import { validateRunbookInput } from '../operator/runbooks';
import { startRunbook } from '../operator/start-run';
import { followUntilInterrupted, resultOf, statusPrinter, waitUntilClosed } from '../operator/watch';
import { configuredService, serviceCallError } from './discover-inputs';

const HELP = helpFor('clean-point');

/** A first value longer than this is cut in the table; the JSON result holds it whole. */
const MAX_VALUE_COLUMN = 40;

export interface CleanPointArgs {
  /** The runbook's input; no `restoreAccountId` when the service is to be asked for one. */
  input: Omit<CleanPointInput, 'restoreAccountId'> & { restoreAccountId?: string };
  format: OutputFormat;
}

/** The command line of `clean-point`, checked whole (the check with the runbook's schema) before anything connects. */
export function parseCleanPoint(argv: string[]): CleanPointArgs {
  const { values, positionals: rest } = parseCommandLine(argv, HELP);
  const resourceId = idArgument(positionals(rest, ['resourceId'], HELP)[0] ?? '', '<resourceId>', HELP);
  const format = outputFormat(values.output, HELP);
  if ((values.check === undefined) === (values.validation === undefined)) {
    throw new UsageError(
      'give --check (queries each point must pass) or --validation (a restore of each point, judged by a validator), ' +
        `one of them: a JSON file, inline JSON or -\n${HELP.usage}`,
    );
  }
  const account = values['restore-account'];
  const restoreAccountId = account === undefined ? undefined : idArgument(account, '--restore-account', HELP);
  const before = values.before === undefined ? undefined : isoTime(values.before);
  const input = {
    resourceId,
    ...(values.check === undefined
      ? { validation: readInput(values.validation ?? '', '--validation') as CleanPointInput['validation'] }
      : { check: readInput(values.check, '--check') as CleanPointInput['check'] }),
    windowDays: windowDays(values.window),
    ...(before === undefined ? {} : { before }),
  };
  // As `start` reports a bad input, naming the field (`check.queries.0.expect`). The account is found later: any ID
  // lets the rest be checked now.
  validateRunbookInput('cleanPoint', { ...input, restoreAccountId: restoreAccountId ?? 'found-later' });
  return { input: { ...input, ...(restoreAccountId === undefined ? {} : { restoreAccountId }) }, format };
}

function windowDays(value: string): number {
  const days = /^(\d{1,4})d$/.exec(value.trim());
  const n = days ? Number(days[1]) : NaN;
  if (!(n >= 1 && n <= MAX_WINDOW_DAYS)) {
    throw new UsageError(`--window must be <N>d, N days from 1 to ${MAX_WINDOW_DAYS}, not '${value}'\n${HELP.usage}`);
  }
  return n;
}

function isoTime(value: string): string {
  if (TimestampInput.safeParse(value).success) return value;
  throw new UsageError(
    `--before must be an ISO 8601 time with its offset, such as 2026-11-25T00:00:00Z, not '${value}'\n${HELP.usage}`,
  );
}

export async function cleanPointCommand(argv: string[]): Promise<void> {
  const { input, format } = parseCleanPoint(argv);
  const restoreAccountId = input.restoreAccountId ?? (await allowedRestoreAccount());
  // In JSON mode standard output holds the result alone.
  const note = (line: string) => (format === 'json' ? console.error(line) : console.log(line));
  await withTemporal(async ({ client, taskQueue }) => {
    const started = await startRunbook(client, taskQueue, 'cleanPoint', { ...input, restoreAccountId });
    note(`started cleanPoint as ${started.workflowId} (run ${started.runId})`);
    const handle = client.workflow.getHandle(started.workflowId, started.runId);
    const printer = format === 'text' ? statusPrinter() : undefined;
    await followUntilInterrupted(client, ({ signal, calls }) => {
      note('following the search until it closes (Ctrl-C stops following; the run goes on)');
      return waitUntilClosed(handle, { signal, calls, onStatus: (s) => s && printer?.show(statusLine(s)) });
    }).finally(() => printer?.done());
    const result = await resultOf<CleanPointResult>(handle);
    if (format === 'json') printJson(result);
    else printCleanPointReport(result, started.workflowId);
    // No clean point is no answer to restore from: a script must not go on as if there were one.
    if (!result.clean) throw new RunFailedError(`no clean point: ${result.verdict}`);
  });
}

/** The one restore account of the configured service that allows restores; none or several is for the user to settle. */
export async function allowedRestoreAccount(env: Record<string, string | undefined> = process.env): Promise<string> {
  const { client, baseUrl, close } = await configuredService('clean-point without --restore-account', env);
  let accounts: RestoreAccount[];
  try {
    accounts = await collect(client.listRestoreAccounts({}, { pageSize: 50 }));
  } catch (err) {
    throw serviceCallError(err, `could not list the restore accounts of ${baseUrl}`);
  } finally {
    await close();
  }
  const allowed = accounts.filter((a) => a.isRestoreAllowed);
  const [only, ...others] = allowed;
  if (only && others.length === 0) return only.id;
  const listed = allowed.map((a) => `\n  ${a.id}  ${a.name}`).join('');
  throw new UsageError(
    (only
      ? `${allowed.length} restore accounts of ${baseUrl} allow restores:${listed}\n`
      : `no restore account of ${baseUrl} allows restores (of ${accounts.length}); `) +
      `give the one the queries run under with --restore-account <id>\n${HELP.usage}`,
  );
}

/** The text report: the verdict, the points examined in probe order, non-monotone findings, the queries, the run. */
export function printCleanPointReport(result: CleanPointResult, workflowId: string): void {
  const { days, before, candidates } = result.window;
  console.log(result.verdict);
  console.log(`check:    ${result.check.name} (sha256 ${result.check.sha256})`);
  console.log(`window:   ${days} days before ${before}, ${candidates} recovery points`);
  if (result.examined.length > 0) {
    console.log('points examined, in probe order:');
    printTable(examinedRows(result));
  }
  for (const { passed, failedOlder } of result.nonMonotone) {
    console.log(
      `warning: ${passed} passed but the older ${failedOlder} failed: damage that went away, or a check that is ` +
        'not monotone',
    );
  }
  if (result.restores) {
    const { run, budget, bound, linearScan } = result.restores;
    const scan = result.stopped ? '' : `; a scan from the newest would have made ${linearScan}`;
    console.log(`restores: ${run} made (budget ${budget}, bound ${bound})${scan}`);
  } else {
    const { run, bound, linearScan } = result.queries;
    console.log(`queries:  ${run} run (bound ${bound}); a scan from the newest would have run ${linearScan}`);
  }
  console.log(`workflow: ${workflowId}`);
}

function examinedRows(result: CleanPointResult): string[][] {
  const rows = [['#', 'SNAPSHOT', 'POINT IN TIME', 'VERDICT', 'QUERY', 'ROWS', 'FIRST VALUE', 'EXPECT', 'MET']];
  result.examined.forEach((point, i) => {
    if (point.validation) {
      const said = point.validation.message ?? '';
      const own = [String(i + 1), point.snapshotId, point.pointInTime, point.verdict];
      rows.push([
        ...own,
        `restore ${point.validation.restoreJobId}`,
        '',
        said,
        'validator',
        point.verdict === 'pass' ? 'yes' : 'no',
      ]);
    }
    point.queries.forEach((q, j) => {
      // A point's own columns once, on its first query's row.
      const own = j === 0 ? [String(i + 1), point.snapshotId, point.pointInTime, point.verdict] : ['', '', '', ''];
      rows.push([...own, q.name, String(q.rows), shownValue(q.firstValue), q.expect, q.met ? 'yes' : 'no']);
    });
  });
  return rows;
}

function shownValue(value: string | number | null | undefined): string {
  if (value === undefined) return '(no row)';
  if (value === null) return 'NULL';
  const text = String(value);
  return text.length > MAX_VALUE_COLUMN ? `${text.slice(0, MAX_VALUE_COLUMN - 1)}…` : text;
}
