import { type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { msNumberToTs, optionalTsToDate } from '@temporalio/common/lib/time';
import type { CostExportResult } from '../runbooks/cost-export/contract';
import { idArgument, parseCommandLine, positionals } from '../operator/args';
import { withTemporal } from '../operator/connection';
import { RunFailedError, UsageError } from '../operator/errors';
import { helpFor, type Help } from '../operator/help';
import { outputFormat, printJson } from '../operator/output';
import type { BackfillRun, ScheduleBackfillOutput } from '../operator/output-shapes';
import { describeOrMissing } from './schedule-lookup';
import { BACKFILL_OVERLAP, OVERLAP_POLICIES, overlapArgument } from './schedule-policies';
import type { OverlapName } from '../contracts/runbook';
import { printTable } from '../operator/output';

/** Set by Temporal on each run a schedule starts: the time it was due. */
const ScheduledStartTime = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
const POLL_MS = 500;

export interface BackfillRequest {
  scheduleId: string;
  from: Date;
  /** Exclusive. */
  to: Date;
  overlap: OverlapName;
  wait: boolean;
  json: boolean;
}

export async function backfillCommand(argv: string[]): Promise<void> {
  const request = parseBackfill(argv);
  await withTemporal(({ client, namespace }) => backfill(client, namespace, request));
}

export function parseBackfill(argv: string[]): BackfillRequest {
  const help = helpFor('schedule backfill');
  const { values, positionals: args } = parseCommandLine(argv, help);
  const scheduleId = idArgument(positionals(args, ['scheduleId'], help)[0] ?? '', '<scheduleId>', help);
  const json = outputFormat(values.output, help) === 'json';
  if (values.from === undefined || values.to === undefined) {
    throw new UsageError(`--from and --to are required: dates such as 2026-11-20, or ISO times\n${help.usage}`);
  }
  const from = timeArgument('--from', values.from, false, help);
  let to = timeArgument('--to', values.to, true, help);
  if (to.getTime() <= from.getTime()) {
    throw new UsageError(`--to must be after --from (--to ${values.to} counts its whole day)\n${help.usage}`);
  }
  const now = new Date();
  if (from.getTime() >= now.getTime()) {
    throw new UsageError(`--from ${values.from} is not in the past: a backfill runs times already gone\n${help.usage}`);
  }
  // Times still to come run on their own.
  if (to.getTime() > now.getTime()) to = now;
  const overlap = values.overlap === undefined ? BACKFILL_OVERLAP : overlapArgument(values.overlap, help.usage);
  return { scheduleId, from, to, overlap, wait: !values['no-wait'], json };
}

/** A date (UTC; `--to`'s counts whole, up to the next midnight) or an ISO time with its zone. */
function timeArgument(flag: string, value: string, end: boolean, { usage }: Help): Date {
  const text = value.trim();
  const ms = DATE.test(text) ? Date.parse(`${text}T00:00:00Z`) + (end ? DAY_MS : 0) : isoTime(text);
  if (!Number.isFinite(ms)) {
    throw new UsageError(`${flag} must be a date such as 2026-11-20 or an ISO time such as 2026-11-20T02:00:00Z, not '${value}'
${usage}`);
  }
  return new Date(ms);
}

function isoTime(text: string): number {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text) ? Date.parse(text) : NaN;
}

async function backfill(client: Client, namespace: string, request: BackfillRequest): Promise<void> {
  const { scheduleId, from, to } = request;
  const before = await describeOrMissing(client, scheduleId);
  const runbook = before.action.type === 'startWorkflow' ? before.action.workflowType : undefined;
  // One millisecond early: a time due exactly at --from belongs to the range, and the server counts from after it.
  const start = new Date(from.getTime() - 1);
  const end = new Date(to.getTime() - 1);
  const matching = await client.workflowService.listScheduleMatchingTimes({
    namespace,
    scheduleId,
    startTime: msNumberToTs(start.getTime()),
    endTime: msNumberToTs(end.getTime()),
  });
  const scheduledTimes = (matching.startTime ?? []).flatMap((t) => optionalTsToDate(t)?.toISOString() ?? []);
  const doc: ScheduleBackfillOutput = {
    scheduleId,
    runbook,
    from: from.toISOString(),
    to: to.toISOString(),
    scheduledTimes,
  };
  const range = `from ${doc.from} to ${doc.to}`;
  if (scheduledTimes.length === 0) {
    if (request.json) printJson(doc);
    else console.log(`schedule ${scheduleId} is due at no time ${range}: nothing to backfill`);
    return;
  }
  const query = scheduledRunsQuery(scheduleId, from, to);
  const earlier = new Set((await listRuns(client, query)).map((r) => r.runId));
  await client.schedule.getHandle(scheduleId).backfill({ start, end, overlap: OVERLAP_POLICIES[request.overlap] });
  if (!request.wait) {
    if (request.json) printJson(doc);
    else
      console.log(
        `requested ${scheduledTimes.length} runs of ${scheduleId} due ${range}; see \`runbooks schedule describe ${scheduleId}\``,
      );
    return;
  }
  console.error(
    `backfill of ${scheduleId}: ${scheduledTimes.length} runs due ${range}, overlap ${request.overlap}; ` +
      'waiting for them (Ctrl-C stops waiting, the runs go on)',
  );
  const runs = await waitForRuns(
    client,
    scheduleId,
    query,
    earlier,
    scheduledTimes.length,
    before.info.numActionsSkippedOverlap,
  );
  doc.runs = runs.sort((a, b) => a.scheduledAt.localeCompare(b.scheduledAt));
  if (request.json) printJson(doc);
  else printBackfill(doc, doc.runs);
  const failed = runs.filter((r) => r.outcome === 'failed').length;
  if (failed > 0) throw new RunFailedError(`${failed} of the backfilled runs of ${scheduleId} failed`);
}

function scheduledRunsQuery(scheduleId: string, from: Date, to: Date): string {
  const quoted = scheduleId.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
  return (
    `TemporalScheduledById = '${quoted}' AND TemporalScheduledStartTime >= '${from.toISOString()}' ` +
    `AND TemporalScheduledStartTime < '${to.toISOString()}'`
  );
}

async function listRuns(client: Client, query: string): Promise<WorkflowExecutionInfo[]> {
  const runs: WorkflowExecutionInfo[] = [];
  for await (const run of client.workflow.list({ query })) runs.push(run);
  return runs;
}

/**
 * Follows the runs the backfill starts, reporting each on standard error as it ends, until every due time has a
 * finished run or was skipped under the overlap policy.
 */
async function waitForRuns(
  client: Client,
  scheduleId: string,
  query: string,
  earlier: ReadonlySet<string>,
  expected: number,
  skippedBefore: number,
): Promise<BackfillRun[]> {
  const followed = new Map<string, Promise<BackfillRun>>();
  const done: BackfillRun[] = [];
  for (;;) {
    for (const run of await listRuns(client, query)) {
      if (earlier.has(run.runId) || followed.has(run.runId)) continue;
      const outcome = outcomeOf(client, run).then((r) => {
        done.push(r);
        console.error(`  [${done.length}/${expected}] due ${r.scheduledAt}: ${describeOutcome(r)}`);
        return r;
      });
      followed.set(run.runId, outcome);
    }
    const skipped = (await describeOrMissing(client, scheduleId)).info.numActionsSkippedOverlap - skippedBefore;
    if (followed.size + skipped >= expected && done.length === followed.size) return done;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function outcomeOf(client: Client, run: WorkflowExecutionInfo): Promise<BackfillRun> {
  const scheduledAt = run.typedSearchAttributes.get(ScheduledStartTime) ?? run.startTime;
  const base = {
    workflowId: run.workflowId,
    runId: run.runId,
    scheduledAt: scheduledAt.toISOString(),
    startedAt: run.startTime.toISOString(),
  };
  try {
    const result: unknown = await client.workflow.getHandle(run.workflowId, run.runId).result();
    const state = (await client.workflow.getHandle(run.workflowId, run.runId).describe()).status.name;
    if (run.type !== 'costExport') return { ...base, state, outcome: 'completed' };
    const cost = result as CostExportResult;
    return {
      ...base,
      state,
      window: cost.window.label,
      file: cost.export.path,
      outcome: cost.export.alreadyPresent ? 'already-present' : 'written',
    };
  } catch {
    const state = await client.workflow
      .getHandle(run.workflowId, run.runId)
      .describe()
      .then((w) => w.status.name)
      .catch(() => undefined);
    return { ...base, ...(state === undefined ? {} : { state }), outcome: 'failed' };
  }
}

function describeOutcome(run: BackfillRun): string {
  if (run.outcome === 'written') return `${run.window ?? ''} written to ${run.file ?? ''}`;
  if (run.outcome === 'already-present')
    return `${run.window ?? ''} already present in ${run.file ?? ''}, left as it was`;
  return `${run.workflowId} ${run.state ?? run.outcome}`;
}

function printBackfill(doc: ScheduleBackfillOutput, runs: BackfillRun[]): void {
  printTable([
    ['DUE', 'WORKFLOW', 'WINDOW', 'OUTCOME', 'FILE'],
    ...runs.map((r) => [r.scheduledAt, r.workflowId, r.window ?? '', r.outcome, r.file ?? '']),
  ]);
  const count = (o: BackfillRun['outcome']) => runs.filter((r) => r.outcome === o).length;
  const skipped = doc.scheduledTimes.length - runs.length;
  const tail = skipped > 0 ? `; ${skipped} skipped under the overlap policy` : '';
  if (doc.runbook === 'costExport') {
    const written = count('written');
    const present = count('already-present');
    const nothing = written === 0 && count('failed') === 0 ? ': nothing changed' : '';
    console.log(`${runs.length} runs: ${written} written, ${present} already present${nothing}${tail}`);
  } else {
    console.log(`${runs.length} runs: ${count('completed')} completed, ${count('failed')} failed${tail}`);
  }
}
