import type { Client, ScheduleDescription } from '@temporalio/client';
import { idArgument, parseCommandLine, positionals } from '../operator/args';
import { withTemporal } from '../operator/connection';
import { helpFor } from '../operator/help';
import { outputFormat, printJson } from '../operator/output';
import type { ScheduleDescribeOutput, ScheduleRun } from '../operator/output-shapes';
import { describeOrMissing, specOf } from './schedule-lookup';
import { formatDuration, overlapName } from './schedule-policies';
import { printTable } from '../operator/output';

/** How many of the next times `describe` shows. */
const NEXT_RUNS = 5;

export async function describeCommand(argv: string[]): Promise<void> {
  const help = helpFor('schedule describe');
  const { values, positionals: args } = parseCommandLine(argv, help);
  const scheduleId = idArgument(positionals(args, ['scheduleId'], help)[0] ?? '', '<scheduleId>', help);
  const format = outputFormat(values.output, help);
  await withTemporal(async ({ client }) => {
    const doc = await describeSchedule(client, scheduleId);
    if (format === 'json') printJson(doc);
    else printDescription(doc);
  });
}

/** The schedule, its last runs each looked up for its state now, and what it skipped or missed. */
export async function describeSchedule(client: Client, scheduleId: string): Promise<ScheduleDescribeOutput> {
  const d = await describeOrMissing(client, scheduleId);
  const recentRuns = await Promise.all(d.info.recentActions.map((a) => runOf(client, a)));
  return {
    scheduleId,
    runbook: d.action.type === 'startWorkflow' ? d.action.workflowType : undefined,
    spec: {
      ...specOf(d.memo),
      ...(d.spec.timezone ? { timezone: d.spec.timezone } : {}),
      jitterMs: d.spec.jitter ?? 0,
    },
    policies: {
      overlap: overlapName(d.policies.overlap) ?? String(d.policies.overlap),
      catchupWindowMs: d.policies.catchupWindow,
      pauseOnFailure: d.policies.pauseOnFailure,
    },
    paused: d.state.paused,
    ...(d.state.note ? { note: d.state.note } : {}),
    nextRuns: d.info.nextActionTimes.slice(0, NEXT_RUNS).map((t) => t.toISOString()),
    recentRuns,
    running: d.info.runningActions.map((a) => a.workflow.workflowId),
    actions: {
      taken: d.info.numActionsTaken,
      skippedOverlap: d.info.numActionsSkippedOverlap,
      missedCatchupWindow: d.info.numActionsMissedCatchupWindow,
    },
    createdAt: d.info.createdAt.toISOString(),
    ...(d.info.lastUpdatedAt ? { updatedAt: d.info.lastUpdatedAt.toISOString() } : {}),
  };
}

async function runOf(
  client: Client,
  action: ScheduleDescription['info']['recentActions'][number],
): Promise<ScheduleRun> {
  const { workflowId, firstExecutionRunId: runId } = action.action.workflow;
  // A run past the namespace's retention is gone: it is listed without a state.
  const state = await client.workflow
    .getHandle(workflowId, runId)
    .describe()
    .then((w) => w.status.name)
    .catch(() => undefined);
  return {
    workflowId,
    runId,
    scheduledAt: action.scheduledAt.toISOString(),
    startedAt: action.takenAt.toISOString(),
    ...(state === undefined ? {} : { state }),
  };
}

function printDescription(doc: ScheduleDescribeOutput): void {
  const { spec, policies, actions } = doc;
  const when = spec.cron ? `cron '${spec.cron}'` : spec.interval ? `every ${spec.interval}` : '(not made by this CLI)';
  const lines = [
    `schedule ${doc.scheduleId}: ${doc.runbook ?? 'no workflow action'}`,
    `  spec:      ${when}${spec.timezone ? ` in ${spec.timezone}` : ''}, jitter ${formatDuration(spec.jitterMs)}`,
    `  policies:  overlap ${policies.overlap}, catch-up window ${formatDuration(policies.catchupWindowMs)}` +
      `${policies.pauseOnFailure ? ', pauses on a failure' : ''}`,
    `  state:     ${doc.paused ? 'paused' : 'active'}${doc.note ? ` (note: ${doc.note})` : ''}`,
    `  next runs: ${doc.nextRuns.length ? doc.nextRuns.join(', ') : 'none'}`,
    `  runs:      ${actions.taken} started, ${doc.running.length} running`,
    `  missed:    ${actions.skippedOverlap} skipped for overlap (due or triggered while a run still ran), ` +
      `${actions.missedCatchupWindow} missed the catch-up window (due while Temporal could not start them)`,
  ];
  console.log(lines.join('\n'));
  if (doc.recentRuns.length === 0) {
    console.log('\nno runs yet');
    return;
  }
  console.log('\nrecent runs:');
  printTable([
    ['SCHEDULED', 'STARTED', 'WORKFLOW', 'STATE'],
    ...doc.recentRuns.map((r) => [r.scheduledAt, r.startedAt, r.workflowId, r.state ?? 'gone (retention)']),
  ]);
}
