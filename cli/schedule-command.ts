import type { Client } from '@temporalio/client';
import { idArgument, otherSubcommand, parseCommandLine, positionals } from '../operator/args';
import { withTemporal } from '../operator/connection';
import { helpFor } from '../operator/help';
import { outputFormat, printJson, type OutputFormat } from '../operator/output';
import type { ScheduleListOutput, ScheduleSummary } from '../operator/output-shapes';
import { backfillCommand } from './schedule-backfill';
import { createCommand } from './schedule-create';
import { describeCommand } from './schedule-describe';
import { describeOrMissing, missing, specOf } from './schedule-lookup';
import { OVERLAP_POLICIES, overlapArgument, overlapName } from './schedule-policies';
import type { OverlapName } from '../contracts/runbook';
import { printTable } from '../operator/output';

/** `runbooks schedule …`: Temporal Schedules that start runbooks, e.g. the nightly cost export or a weekly drill. */
export async function scheduleCommand(argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'create':
      return createCommand(rest);
    case 'describe':
      return describeCommand(rest);
    case 'backfill':
      return backfillCommand(rest);
    case 'list': {
      const help = helpFor('schedule list');
      const { values, positionals: args } = parseCommandLine(rest, help);
      positionals(args, [], help);
      const format = outputFormat(values.output, help);
      return withTemporal(({ client }) => listSchedules(client, format));
    }
    case 'pause':
    case 'unpause': {
      const help = helpFor(`schedule ${sub}`);
      const { values, positionals: args } = parseCommandLine(rest, help);
      const scheduleId = idArgument(positionals(args, ['scheduleId'], help)[0] ?? '', '<scheduleId>', help);
      return withTemporal(({ client }) => setPaused(client, scheduleId, sub === 'pause', values.note));
    }
    case 'trigger': {
      const help = helpFor('schedule trigger');
      const { values, positionals: args } = parseCommandLine(rest, help);
      const scheduleId = idArgument(positionals(args, ['scheduleId'], help)[0] ?? '', '<scheduleId>', help);
      const overlap = values.overlap === undefined ? undefined : overlapArgument(values.overlap, help.usage);
      return withTemporal(({ client }) => triggerSchedule(client, scheduleId, overlap));
    }
    case 'delete': {
      const help = helpFor('schedule delete');
      const { positionals: args } = parseCommandLine(rest, help);
      const scheduleId = idArgument(positionals(args, ['scheduleId'], help)[0] ?? '', '<scheduleId>', help);
      return withTemporal(({ client }) => deleteSchedule(client, scheduleId));
    }
    default:
      return otherSubcommand(sub, 'schedule');
  }
}

async function listSchedules(client: Client, format: OutputFormat): Promise<void> {
  const schedules: ScheduleSummary[] = [];
  for await (const s of client.schedule.list()) {
    schedules.push({
      scheduleId: s.scheduleId,
      runbook: s.action?.workflowType,
      ...specOf(s.memo),
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
    s.cron ?? (s.interval ? `every ${s.interval}` : ''),
    s.paused ? 'paused' : 'active',
    s.nextRunTime ?? '',
    s.lastRunTime ?? '',
  ]);
  if (rows.length === 0) {
    console.log('no schedules');
    return;
  }
  printTable([['SCHEDULE', 'RUNBOOK', 'SPEC', 'STATE', 'NEXT RUN', 'LAST RUN'], ...rows]);
}

async function setPaused(client: Client, scheduleId: string, pause: boolean, note: string | undefined): Promise<void> {
  const handle = client.schedule.getHandle(scheduleId);
  const text = note ?? `${pause ? 'paused' : 'unpaused'} with the runbooks CLI`;
  await (pause ? handle.pause(text) : handle.unpause(text)).catch((err: unknown) => {
    throw missing(err, scheduleId);
  });
  console.log(
    pause
      ? `paused schedule ${scheduleId}: it starts nothing until \`runbooks schedule unpause ${scheduleId}\`; runs going on are not affected`
      : `unpaused schedule ${scheduleId}: it starts runs at its times again`,
  );
}

/** How long `trigger` watches the schedule to tell whether its run started or was skipped. */
const TRIGGER_WATCH_MS = 10_000;

/**
 * Starts the schedule's action now, under the schedule's own overlap policy unless `--overlap` says otherwise: a
 * trigger while a drill runs is skipped like a scheduled one would be, and `--overlap allow-all` starts an extra run.
 */
async function triggerSchedule(client: Client, scheduleId: string, overlap: OverlapName | undefined): Promise<void> {
  const before = await describeOrMissing(client, scheduleId);
  const policy = overlap ?? overlapName(before.policies.overlap) ?? 'skip';
  await client.schedule
    .getHandle(scheduleId)
    .trigger(OVERLAP_POLICIES[policy])
    .catch((err: unknown) => {
      throw missing(err, scheduleId);
    });
  // The schedule takes the trigger asynchronously; its counters say what became of it.
  const deadline = Date.now() + TRIGGER_WATCH_MS;
  while (Date.now() < deadline) {
    const now = await describeOrMissing(client, scheduleId);
    if (now.info.numActionsSkippedOverlap > before.info.numActionsSkippedOverlap) {
      const running = now.info.runningActions.map((a) => a.workflow.workflowId).join(', ');
      console.log(
        `skipped: schedule ${scheduleId} still runs ${running || 'an earlier run'} and its overlap policy is ${policy}; ` +
          `\`runbooks schedule trigger ${scheduleId} --overlap allow-all\` starts one beside it`,
      );
      return;
    }
    if (now.info.numActionsTaken > before.info.numActionsTaken) {
      const started = now.info.recentActions.at(-1)?.action.workflow;
      console.log(
        `triggered schedule ${scheduleId}: started ${started ? `${started.workflowId} (run ${started.firstExecutionRunId})` : 'a run'}`,
      );
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  console.log(
    `triggered schedule ${scheduleId}; its overlap policy (${policy}) holds the run until the running one ends ` +
      `(see \`runbooks schedule describe ${scheduleId}\`)`,
  );
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
