import { ScheduleAlreadyRunning, type ScheduleSpec } from '@temporalio/client';
import { RunbookKindKey } from '../contracts';
import { newIdArgument, parseCommandLine, positionals, readInput } from '../operator/args';
import { withTemporal } from '../operator/connection';
import { CliError, UsageError } from '../operator/errors';
import { helpFor, type Help } from '../operator/help';
import { RUNBOOK_NAMES, RUNBOOKS, runbookName, validateRunbookInput, type RunbookName } from '../operator/runbooks';
import { formatDuration, OVERLAP_POLICIES, overlapArgument, parseDuration } from './schedule-policies';
import type { OverlapName } from '../contracts/runbook';

const HELP = helpFor('schedule create', [`runbooks: ${RUNBOOK_NAMES.join(', ')}`]);

// Five to seven fields, or a macro such as @daily; the server checks the rest.
const CRON = /^(@[a-z]+|(\S+\s+){4,6}\S+)$/;
/** Temporal takes no catch-up window under 10 seconds. */
const MIN_CATCHUP_MS = 10_000;
const MAX_NOTE_LENGTH = 1_000;

/** Everything `create` sends, checked before Temporal is asked anything. */
export interface ScheduleRequest {
  scheduleId: string;
  runbook: RunbookName;
  spec: { cron: string } | { interval: string; intervalMs: number };
  timezone?: string;
  jitterMs: number;
  catchupWindowMs: number;
  overlap: OverlapName;
  paused: boolean;
  note: string;
  args: unknown[];
}

export async function createCommand(argv: string[]): Promise<void> {
  const request = parseCreate(argv);
  const { scheduleId, runbook, spec, overlap } = request;
  const when = 'cron' in spec ? `at '${spec.cron}'` : `every ${spec.interval}`;
  const scheduleSpec: ScheduleSpec = {
    ...('cron' in spec ? { cronExpressions: [spec.cron] } : { intervals: [{ every: spec.intervalMs }] }),
    timezone: request.timezone,
    jitter: request.jitterMs,
  };
  await withTemporal(async ({ client, taskQueue }) => {
    try {
      await client.schedule.create({
        scheduleId,
        spec: scheduleSpec,
        action: {
          type: 'startWorkflow',
          workflowType: runbook,
          args: request.args,
          taskQueue,
          // Temporal appends the time each run is due, so each run has its own deterministic ID.
          workflowId: scheduleId,
          typedSearchAttributes: [{ key: RunbookKindKey, value: runbook }],
        },
        policies: { overlap: OVERLAP_POLICIES[overlap], catchupWindow: request.catchupWindowMs },
        state: { paused: request.paused, note: request.note },
        memo: { runbook, ...('cron' in spec ? { cron: spec.cron } : { interval: spec.interval }) },
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
      `created schedule ${scheduleId}: ${runbook} ${when}${request.paused ? ' (paused)' : ''}; next run ${next}\n` +
        `policies: overlap ${overlap}, catch-up window ${formatDuration(request.catchupWindowMs)}, ` +
        `jitter ${formatDuration(request.jitterMs)}`,
    );
  });
}

/** The command line as a schedule request, with the runbook's defaults; every mistake is a usage error. */
export function parseCreate(argv: string[]): ScheduleRequest {
  const { values, positionals: args } = parseCommandLine(argv, HELP);
  const scheduleId = newIdArgument(positionals(args, ['scheduleId'], HELP)[0] ?? '', '<scheduleId>', HELP);
  const runbook = runbookName(values.runbook, '--runbook');
  const spec = specArgument(values.cron, values.interval, HELP);
  if (values.timezone !== undefined && !knownTimeZone(values.timezone)) {
    throw new UsageError(
      `--timezone must be an IANA time zone such as 'Europe/Paris' or 'UTC', not '${values.timezone}'`,
    );
  }
  const defaults = RUNBOOKS[runbook].schedule;
  const jitterMs = durationArgument('--jitter', values.jitter ?? defaults.jitter, 0, HELP);
  if ('intervalMs' in spec && jitterMs >= spec.intervalMs) {
    throw new UsageError(`--jitter (${values.jitter ?? defaults.jitter}) must be shorter than --interval ${spec.interval}
${HELP.usage}`);
  }
  const catchupWindowMs = durationArgument(
    '--catchup-window',
    values['catchup-window'] ?? defaults.catchupWindow,
    MIN_CATCHUP_MS,
    HELP,
  );
  const overlap = values.overlap === undefined ? defaults.overlap : overlapArgument(values.overlap, HELP.usage);
  const note = values.note ?? 'created with the runbooks CLI';
  if (note.length > MAX_NOTE_LENGTH) {
    throw new UsageError(`--note is ${note.length} characters long; at most ${MAX_NOTE_LENGTH}\n${HELP.usage}`);
  }
  if (RUNBOOKS[runbook].takesInput && values.input === undefined) {
    throw new UsageError(
      `--input is required for ${runbook}: 'runbooks inputs ${runbook} --example' prints one\n${HELP.usage}`,
    );
  }
  const input = values.input === undefined ? undefined : readInput(values.input);
  const { args: workflowArgs } = validateRunbookInput(runbook, input);
  return {
    scheduleId,
    runbook,
    spec,
    timezone: values.timezone,
    jitterMs,
    catchupWindowMs,
    overlap,
    paused: values.paused,
    note,
    args: workflowArgs,
  };
}

function specArgument(cron: string | undefined, interval: string | undefined, help: Help): ScheduleRequest['spec'] {
  if (cron !== undefined && interval !== undefined) {
    throw new UsageError(`give --cron or --interval, not both\n${help.usage}`);
  }
  if (interval !== undefined) {
    const intervalMs = parseDuration(interval);
    if (intervalMs === undefined || intervalMs < 1_000) {
      throw new UsageError(
        `--interval must be a duration of at least 1s such as 24h, 30m or 1h30m, not '${interval}'\n${help.usage}`,
      );
    }
    return { interval: formatDuration(intervalMs), intervalMs };
  }
  if (cron === undefined || !CRON.test(cron.trim())) {
    throw new UsageError(
      `--cron must be a cron expression such as '0 2 * * *' (or give --interval such as 24h)\n${help.usage}`,
    );
  }
  return { cron: cron.trim() };
}

function durationArgument(flag: string, value: string, minMs: number, help: Help): number {
  const ms = parseDuration(value);
  if (ms === undefined || ms < minMs) {
    const least = minMs === 0 ? '' : ` of at least ${formatDuration(minMs)}`;
    throw new UsageError(`${flag} must be a duration${least} such as 5m, 1h or 1d, not '${value}'\n${help.usage}`);
  }
  return ms;
}

function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return zone.trim() !== '';
  } catch {
    return false;
  }
}
