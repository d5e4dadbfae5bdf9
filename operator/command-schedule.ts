import { OVERLAP_NAMES } from '../contracts/runbook';
import { flag, output, text, type CommandSpec, type ValueSpec, pathOption } from './command-spec';

const overlap = (description: string) =>
  ({
    name: 'overlap',
    value: OVERLAP_NAMES,
    placeholder: 'policy',
    description: `${description}: ${OVERLAP_NAMES.join(', ')}`,
  }) as const satisfies ValueSpec;

/** `runbooks schedule …`, a part of the command table (operator/command-table.ts). */
export const SCHEDULE_COMMAND = {
  name: 'schedule',
  description: 'Manage the Temporal Schedules that start runbooks.',
  details: [
    'Each runbook has default policies (see docs/operations/schedules.md): a drill skips a run due while the last',
    "still runs, a cost export buffers one. A schedule's cost export writes each day's file once.",
  ],
  subcommands: [
    {
      name: 'create',
      description: 'Create a schedule that starts a runbook with an input.',
      usage:
        'schedule create <scheduleId> --runbook <name> (--cron <expr> | --interval <duration>) [--input <file|json>] ' +
        '[--timezone <tz>] [--jitter <duration>] [--catchup-window <duration>] [--overlap <policy>] [--paused] ' +
        '[--note <text>]',
      argument: 'text',
      details: [
        "Durations: 30s, 5m, 24h, 1d, 1h30m. Unset policies take the runbook's defaults, which the command prints.",
        'Nothing is created when any value, or the input, is refused.',
      ],
      options: [
        { name: 'runbook', value: 'runbook', placeholder: 'name', description: 'the runbook to start' },
        text('cron', 'expr', "when, as a cron expression such as '0 2 * * *' or @daily"),
        text('interval', 'duration', 'or every so long, such as 24h or 30m'),
        pathOption('input', 'file', 'file|json', 'the input: a JSON file or inline JSON'),
        text('timezone', 'tz', 'the time zone of the cron expression (default UTC)'),
        text('jitter', 'duration', 'start each run up to this much late, to spread load (default per runbook)'),
        text('catchup-window', 'duration', 'how late a run missed in an outage may still start (default per runbook)'),
        overlap('what a run due while one still runs does (default per runbook)'),
        flag('paused', 'create it paused'),
        text('note', 'text', 'a note the schedule shows (why it exists, who owns it)'),
      ],
      examples: [
        `runbooks schedule create nightly-cost-export --runbook costExport --cron '0 2 * * *' --input '{"window":"previous-day"}'`,
        "runbooks schedule create weekly-drill --runbook drDrill --cron '0 3 * * 1' --input examples/drDrill.json --timezone Europe/Paris",
      ],
    },
    {
      name: 'list',
      description: 'List the schedules, with their runbook, spec and next run.',
      usage: 'schedule list [-o text|json]',
      options: [output],
      examples: ['runbooks schedule list', 'runbooks schedule list -o json'],
    },
    {
      name: 'describe',
      description: 'Show a schedule: spec, policies, next runs, last runs with their outcomes, and missed ones.',
      usage: 'schedule describe <scheduleId> [-o text|json]',
      argument: 'text',
      details: [
        'Missed: times due while a run still ran (skipped under the overlap policy), and times due while Temporal',
        'could not start them, later than the catch-up window.',
      ],
      options: [output],
      examples: ['runbooks schedule describe weekly-drill', 'runbooks schedule describe weekly-drill -o json'],
    },
    {
      name: 'pause',
      description: 'Pause a schedule: it starts nothing until unpaused; runs going on are not affected.',
      usage: 'schedule pause <scheduleId> [--note <text>]',
      argument: 'text',
      options: [text('note', 'text', 'why it is paused (describe shows it)')],
      examples: ["runbooks schedule pause weekly-drill --note 'restore account in maintenance'"],
    },
    {
      name: 'unpause',
      description: 'Unpause a schedule: it starts runs at its times again.',
      usage: 'schedule unpause <scheduleId> [--note <text>]',
      argument: 'text',
      options: [text('note', 'text', 'a note the schedule shows from now on')],
      examples: ['runbooks schedule unpause weekly-drill'],
    },
    {
      name: 'trigger',
      description: "Start the schedule's runbook now, under the schedule's overlap policy.",
      usage: 'schedule trigger <scheduleId> [--overlap <policy>]',
      argument: 'text',
      details: ['A trigger while a drill runs is skipped, as a run due then would be; --overlap allow-all runs both.'],
      options: [overlap("this run's overlap policy (default the schedule's)")],
      examples: [
        'runbooks schedule trigger nightly-cost-export',
        'runbooks schedule trigger weekly-drill --overlap allow-all',
      ],
    },
    {
      name: 'backfill',
      description: 'Run the times a schedule was due in a past range, one run each, and wait for them.',
      usage: 'schedule backfill <scheduleId> --from <date> --to <date> [--overlap <policy>] [--no-wait] [-o text|json]',
      argument: 'text',
      details: [
        'Dates are UTC days (--to counts its whole day) or ISO times. The runs go one after another (buffer-all).',
        "A cost export reports each day as written or already present: a day's file is written once.",
        'Progress goes to standard error; exit 4 when a run failed.',
      ],
      options: [
        text('from', 'date', 'the first day (or time) of the range'),
        text('to', 'date', 'the last day of the range (or the time it ends)'),
        overlap('the overlap policy of the backfilled runs (default buffer-all)'),
        flag('no-wait', 'return once the backfill is requested'),
        output,
      ],
      examples: ['runbooks schedule backfill nightly-cost-export --from 2026-11-20 --to 2026-11-22'],
    },
    {
      name: 'delete',
      description: 'Delete a schedule; runs it started go on.',
      usage: 'schedule delete <scheduleId>',
      argument: 'text',
      examples: ['runbooks schedule delete weekly-drill'],
    },
  ],
  examples: ['runbooks schedule list', 'runbooks schedule describe nightly-cost-export'],
} as const satisfies CommandSpec;
