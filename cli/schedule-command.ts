import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { RunbookKindKey } from '../contracts';
import { idArgument, otherSubcommand, parseCommandLine, positionals, readInput } from './args';
import { withTemporal } from './connection';
import { CliError, NotFoundError, UsageError } from './errors';
import { helpFor } from './help';
import { OUTPUT_OPTION, outputFormat, printJson, type OutputFormat } from './output';
import type { ScheduleListOutput, ScheduleSummary } from './output-shapes';
import { RUNBOOK_NAMES, RUNBOOKS, runbookName, validateRunbookInput } from './runbooks';
import { printTable } from './workflow-commands';

const CREATE_HELP = helpFor('schedule create', [`runbooks: ${RUNBOOK_NAMES.join(', ')}`]);

// Five to seven fields, or a macro such as @daily; the server checks the rest.
const CRON = /^(@[a-z]+|(\S+\s+){4,6}\S+)$/;

/** `runbooks schedule …`: Temporal Schedules that start runbooks, e.g. the nightly cost export or a weekly drill. */
export async function scheduleCommand(argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'create':
      return createSchedule(rest);
    case 'list': {
      const help = helpFor('schedule list');
      const { values, positionals: args } = parseCommandLine(rest, { ...OUTPUT_OPTION }, help);
      positionals(args, [], help);
      const format = outputFormat(values.output, help);
      return withTemporal(({ client }) => listSchedules(client, format));
    }
    case 'delete':
    case 'trigger': {
      const help = helpFor(`schedule ${sub}`);
      const { positionals: args } = parseCommandLine(rest, {}, help);
      const scheduleId = idArgument(positionals(args, ['scheduleId'], help)[0] ?? '', '<scheduleId>', help);
      return withTemporal(({ client }) => (sub === 'delete' ? deleteSchedule : triggerSchedule)(client, scheduleId));
    }
    default:
      return otherSubcommand(sub, 'schedule');
  }
}

async function createSchedule(argv: string[]): Promise<void> {
  const { values, positionals: args } = parseCommandLine(
    argv,
    {
      runbook: { type: 'string' },
      cron: { type: 'string' },
      input: { type: 'string' },
      timezone: { type: 'string' },
      paused: { type: 'boolean', default: false },
    },
    CREATE_HELP,
  );
  const scheduleId = idArgument(positionals(args, ['scheduleId'], CREATE_HELP)[0] ?? '', '<scheduleId>', CREATE_HELP);
  const runbook = runbookName(values.runbook, '--runbook');
  if (!values.cron || !CRON.test(values.cron.trim())) {
    throw new UsageError(`--cron must be a cron expression such as '0 2 * * *'\n${CREATE_HELP.usage}`);
  }
  if (RUNBOOKS[runbook].takesInput && values.input === undefined) {
    throw new UsageError(
      `--input is required for ${runbook}: 'runbooks inputs ${runbook} --example' prints one\n${CREATE_HELP.usage}`,
    );
  }
  if (values.timezone !== undefined && !knownTimeZone(values.timezone)) {
    throw new UsageError(
      `--timezone must be an IANA time zone such as 'Europe/Paris' or 'UTC', not '${values.timezone}'`,
    );
  }
  const input = values.input === undefined ? undefined : readInput(values.input);
  const { args: workflowArgs } = validateRunbookInput(runbook, input);
  const cron = values.cron.trim();

  await withTemporal(async ({ client, taskQueue }) => {
    try {
      await client.schedule.create({
        scheduleId,
        spec: { cronExpressions: [cron], timezone: values.timezone },
        action: {
          type: 'startWorkflow',
          workflowType: runbook,
          args: workflowArgs,
          taskQueue,
          // Temporal appends the fire time, so each run has its own deterministic ID.
          workflowId: scheduleId,
          typedSearchAttributes: [{ key: RunbookKindKey, value: runbook }],
        },
        // A drill or an export that is still running when the next is due is not doubled up.
        policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
        state: { paused: values.paused, note: `created by runbooks CLI` },
        memo: { cron, runbook },
      });
    } catch (err) {
      if (err instanceof ScheduleAlreadyRunning) {
        throw new CliError(`schedule ${scheduleId} exists already; delete it first to change it`);
      }
      // The client raises the server's "invalid schedule spec" (a cron it cannot read) as a TypeError.
      if (err instanceof TypeError) throw new UsageError(`the Temporal server refused the schedule: ${err.message}`);
      throw err;
    }
    const description = await client.schedule.getHandle(scheduleId).describe();
    const next = description.info.nextActionTimes[0]?.toISOString() ?? 'none';
    console.log(
      `created schedule ${scheduleId}: ${runbook} at '${cron}'${values.paused ? ' (paused)' : ''}; next run ${next}`,
    );
  });
}

async function listSchedules(client: Client, format: OutputFormat): Promise<void> {
  const schedules: ScheduleSummary[] = [];
  for await (const s of client.schedule.list()) {
    const memo = s.memo ?? {};
    schedules.push({
      scheduleId: s.scheduleId,
      runbook: s.action?.workflowType,
      cron: typeof memo.cron === 'string' ? memo.cron : undefined,
      paused: s.state.paused,
      nextRunTime: s.info.nextActionTimes[0]?.toISOString(),
      lastRunTime: s.info.recentActions.at(-1)?.takenAt.toISOString(),
    });
  }
  if (format === 'json') {
    printJson({ schedules } satisfies ScheduleListOutput);
    return;
  }
  const rows = schedules.map((s) => [
    s.scheduleId,
    s.runbook ?? '',
    s.cron ?? '',
    s.paused ? 'paused' : 'active',
    s.nextRunTime ?? '',
    s.lastRunTime ?? '',
  ]);
  if (rows.length === 0) {
    console.log('no schedules');
    return;
  }
  printTable([['SCHEDULE', 'RUNBOOK', 'CRON', 'STATE', 'NEXT RUN', 'LAST RUN'], ...rows]);
}

async function deleteSchedule(client: Client, scheduleId: string): Promise<void> {
  await client.schedule
    .getHandle(scheduleId)
    .delete()
    .catch((err: unknown) => {
      throw missing(err, scheduleId);
    });
  console.log(`deleted schedule ${scheduleId}; runs it started are not affected`);
}

async function triggerSchedule(client: Client, scheduleId: string): Promise<void> {
  // A manual trigger is a deliberate extra run: allow it even while a scheduled one is running.
  await client.schedule
    .getHandle(scheduleId)
    .trigger(ScheduleOverlapPolicy.ALLOW_ALL)
    .catch((err: unknown) => {
      throw missing(err, scheduleId);
    });
  console.log(`triggered schedule ${scheduleId}; see \`runbooks list\` for the run`);
}

function missing(err: unknown, scheduleId: string): unknown {
  return err instanceof ScheduleNotFoundError
    ? new NotFoundError(`no schedule '${scheduleId}' (see \`runbooks schedule list\`)`)
    : err;
}

function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return zone.trim() !== '';
  } catch {
    return false;
  }
}
