import type { WorkflowExecutionDescription } from '@temporalio/client';
import type { RecoveryPlanRunInput } from '../../runbooks/recovery-plan/contract';
import { optionalTsToMs, tsToMs } from '@temporalio/common/lib/time';
import type { ApprovalGatedRestoreInput } from '../../runbooks/approval-gated-restore/contract';
import type { CostExportInput } from '../../runbooks/cost-export/contract';
import type { DrDrillInput } from '../../runbooks/dr-drill/contract';
import type { OffboardSourceAccountInput } from '../../runbooks/offboard-source-account/contract';
import type { QueryExportInput } from '../../runbooks/query-export/contract';
import { WATCH_HEARTBEAT_TIMEOUT_MS } from '../../runtime/poll-delays';
import type { Fixtures, SnapshotTarget } from './fixtures';
import { sleep } from './processes';
import type { Stack } from './stack';

export type RunKind =
  'bucket-restore' | 'files-restore' | 'drill' | 'query-export' | 'cost-export' | 'rotation' | 'offboarding';
export const RUN_KINDS: readonly RunKind[] = [
  'bucket-restore',
  'files-restore',
  'drill',
  'query-export',
  'cost-export',
  'rotation',
  'offboarding',
];

export type PlannedRun =
  | { kind: 'bucket-restore' | 'files-restore'; runbook: 'approvalGatedRestore'; input: ApprovalGatedRestoreInput }
  | { kind: 'drill'; runbook: 'drDrill'; input: DrDrillInput }
  | { kind: 'query-export'; runbook: 'queryExport'; input: QueryExportInput }
  | { kind: 'cost-export'; runbook: 'costExport'; input: CostExportInput }
  // It rotates the worker's own secret and takes no argument.
  | { kind: 'rotation'; runbook: 'rotateCredentials'; input: undefined }
  | { kind: 'offboarding'; runbook: 'offboardSourceAccount'; input: OffboardSourceAccountInput }
  // Run and checked by its own trial (./plan-edges.ts), never drawn for the others.
  | { kind: 'recovery-plan'; runbook: 'recoveryPlan'; input: RecoveryPlanRunInput };

export interface RunRecord {
  plan: PlannedRun;
  workflowId: string;
  startedAt: number;
  endedAt?: number;
  status: string;
  result?: unknown;
  error?: string;
  /** Heartbeat times of its activities that the harness saw while it ran. */
  heartbeats: number[];
  /** Its pending activities as each look saw them: a crash leaves one STARTED on a dead worker until it times out. */
  activities: Record<string, { type: string; watch?: boolean; seen: ActivitySighting[] }>;
}

export interface ActivitySighting {
  at: number;
  /**
   * STARTED, SCHEDULED, CANCEL_REQUESTED (the run stopped waiting for it: say, a nudge's look found the answer), or
   * GONE once it is no longer pending.
   */
  state: 'STARTED' | 'SCHEDULED' | 'CANCEL_REQUESTED' | 'GONE';
  lastStartedAt?: number;
}

/** One runbook run of a trial's kind, on inventory no other trial uses. */
export async function planRun(kind: RunKind, fixtures: Fixtures, trial: number): Promise<PlannedRun> {
  const prefix = `reliability/t${trial}/`;
  switch (kind) {
    case 'bucket-restore':
    case 'files-restore':
      return restorePlan(kind, await fixtures.takeSnapshot(), fixtures, prefix);
    case 'drill': {
      const ids = [fixtures.takeBackedUpResource().id, fixtures.takeBackedUpResource().id];
      const input: DrDrillInput = {
        name: `reliability-t${trial}`,
        resources: { ids },
        vaultId: fixtures.vaultId,
        restoreAccountId: fixtures.restoreAccountId,
        destination: fixtures.bucket('dr-drill-restores', prefix),
        // The seeded snapshots are one to two days old; a miss here would be the RPO, not the harness's subject.
        targets: { rpoSeconds: 3 * 86400, rtoSeconds: 600 },
        retentionDays: 3,
        // A fresh backup per resource: the harness checks that each is taken exactly once.
        recoveryPoint: { select: 'fresh' },
        parallelism: 2,
      };
      return { kind, runbook: 'drDrill', input };
    }
    case 'query-export': {
      const target = fixtures.queryTargets[trial % fixtures.queryTargets.length];
      if (!target) throw new Error('no query target');
      const input: QueryExportInput = {
        snapshotId: target.snapshotId,
        query: {
          databaseName: target.databaseName,
          query: 'SELECT * FROM events ORDER BY id',
          restoreAccountId: fixtures.restoreAccountId,
          destination: fixtures.bucket(target.bucketName, prefix),
        },
        // About 400 pages: a kill at 2 to 3.5 s lands inside the export even on an idle machine (at 250 rows a page
        // the export could end first).
        pageSize: 100,
      };
      return { kind, runbook: 'queryExport', input };
    }
    case 'cost-export': {
      const input: CostExportInput = {
        window: fixtures.costWindow(),
        options: { granularity: 'HOURLY', groupBy: 'RESOURCE' },
        // About 520 pages: long enough for a kill to land inside the export (at 40 a page it could end first).
        pageSize: 20,
      };
      return { kind, runbook: 'costExport', input };
    }
    case 'rotation':
      return { kind, runbook: 'rotateCredentials', input: undefined };
    case 'offboarding': {
      const account = await fixtures.connectSourceAccount(trial);
      return { kind, runbook: 'offboardSourceAccount', input: { accountId: account.id } };
    }
  }
}

export function restorePlan(
  kind: 'bucket-restore' | 'files-restore',
  target: SnapshotTarget,
  fixtures: Fixtures,
  prefix: string,
): PlannedRun {
  const input: ApprovalGatedRestoreInput = {
    ...target,
    restoreAccountId: fixtures.restoreAccountId,
    kind: kind === 'bucket-restore' ? 'bucket' : 'files',
    destination: fixtures.bucket('restored-objects', prefix),
    ...(kind === 'files-restore' ? { files: [{ path: '/', isDirectory: true }] } : {}),
    comment: 'reliability trial',
  };
  return { kind, runbook: 'approvalGatedRestore', input };
}

export async function startRun(stack: Stack, plan: PlannedRun, trial: number, index: number): Promise<RunRecord> {
  const workflowId = `reliability-t${trial}-${index}-${plan.kind}`;
  await stack.client.workflow.start(plan.runbook, {
    taskQueue: stack.taskQueue,
    workflowId,
    args: plan.runbook === 'rotateCredentials' ? [] : [plan.input],
    workflowExecutionTimeout: '1 hour',
  });
  return { plan, workflowId, startedAt: Date.now(), status: 'RUNNING', heartbeats: [], activities: {} };
}

/**
 * Waits until every run has ended, looking every half second (the Temporal server may be down for a while: a failed
 * look is simply repeated). Runs still open at the deadline are terminated and reported as TIMED_OUT.
 */
export async function waitForRuns(stack: Stack, runs: RunRecord[], deadline: number): Promise<void> {
  for (;;) {
    const open = runs.filter((r) => r.endedAt === undefined);
    if (open.length === 0) return;
    for (const run of open) {
      try {
        const handle = stack.client.workflow.getHandle(run.workflowId);
        const description = await handle.describe();
        sight(run, description.raw.pendingActivities ?? []);
        if (description.status.name === 'RUNNING') continue;
        run.status = description.status.name;
        run.endedAt = description.closeTime?.getTime() ?? Date.now();
        run.result = await handle.result().catch((err: unknown) => {
          run.error = describeError(err);
          return undefined;
        });
      } catch {
        // The server is restarting; look again.
      }
    }
    if (Date.now() > deadline) {
      for (const run of runs.filter((r) => r.endedAt === undefined)) {
        await stack.client.workflow
          .getHandle(run.workflowId)
          .terminate('reliability trial timed out')
          .catch(() => undefined);
        Object.assign(run, { status: 'TIMED_OUT', endedAt: Date.now(), error: 'the trial deadline passed' });
      }
      return;
    }
    await sleep(500);
  }
}

type PendingActivity = NonNullable<WorkflowExecutionDescription['raw']['pendingActivities']>[number];

function sight(run: RunRecord, pending: PendingActivity[]): void {
  const at = Date.now();
  const present = new Set<string>();
  for (const activity of pending) {
    const beat = activity.lastHeartbeatTime ? tsToMs(activity.lastHeartbeatTime) : undefined;
    if (beat && !run.heartbeats.includes(beat)) run.heartbeats.push(beat);
    const id = activity.activityId ?? '?';
    present.add(id);
    const entry = (run.activities[id] ??= { type: activity.activityType?.name ?? '?', seen: [] });
    // A watch's heartbeat timeout (runtime/heartbeat.ts `isWatch`): a crash in one costs minutes, not seconds.
    const heartbeatTimeout = optionalTsToMs(activity.activityOptions?.heartbeatTimeout);
    if (heartbeatTimeout !== undefined) entry.watch = heartbeatTimeout >= WATCH_HEARTBEAT_TIMEOUT_MS;
    // PendingActivityState: 1 SCHEDULED, 2 STARTED, 3 CANCEL_REQUESTED.
    const state = Number(activity.state);
    entry.seen.push({
      at,
      state: state === 2 ? 'STARTED' : state === 3 ? 'CANCEL_REQUESTED' : 'SCHEDULED',
      lastStartedAt: activity.lastStartedTime ? tsToMs(activity.lastStartedTime) : undefined,
    });
  }
  for (const [id, entry] of Object.entries(run.activities)) {
    if (!present.has(id) && entry.seen.at(-1)?.state !== 'GONE') entry.seen.push({ at, state: 'GONE' });
  }
}

/** A sighting after a crash at `hitAt` of an attempt that started before it and runs on, for all Temporal knows. */
const orphanedIn = (s: ActivitySighting, hitAt: number) =>
  s.at > hitAt && s.state === 'STARTED' && (s.lastStartedAt ?? Infinity) < hitAt;

/**
 * When the activities a crash at `hitAt` left running on a dead worker (still STARTED afterwards, started before it)
 * were running again or done, or no longer waited for (a nudge's look found the answer): the latest of those times,
 * or undefined when the crash orphaned none.
 */
export function orphansRecovered(run: RunRecord, hitAt: number): Progress | undefined {
  let latest: Progress | undefined;
  for (const { type, seen } of Object.values(run.activities)) {
    if (!seen.some((s) => orphanedIn(s, hitAt))) continue;
    const back = seen.find(
      (s) => s.at > hitAt && (s.state === 'GONE' || s.state === 'CANCEL_REQUESTED' || (s.lastStartedAt ?? 0) > hitAt),
    );
    const at = back?.lastStartedAt !== undefined && back.lastStartedAt > hitAt ? back.lastStartedAt : back?.at;
    const what = back?.state === 'CANCEL_REQUESTED' ? `${type} no longer waited for` : `${type} again`;
    const recovered = { at: at ?? run.endedAt ?? Date.now(), what };
    if (!latest || recovered.at > latest.at) latest = recovered;
  }
  return latest;
}

/**
 * The watches of an open run still held by a crash at `hitAt`: as last seen, an attempt that started before the crash
 * and runs on for all Temporal knows, until its 2-minute heartbeat timeout.
 */
export function watchesHeld(run: RunRecord, hitAt: number): string[] {
  if (run.endedAt !== undefined) return [];
  return Object.values(run.activities).flatMap(({ type, watch, seen }) => {
    const last = seen.at(-1);
    return watch && last && orphanedIn(last, hitAt) ? [type] : [];
  });
}

function describeError(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err; e instanceof Error; e = (e as Error & { cause?: unknown }).cause) parts.push(e.message);
  return parts.join(': ') || String(err);
}

/** Events that show a run moved on, and need a worker: something completed, was recorded, or was asked for. */
const PROGRESS = [
  'activityTaskCompletedEventAttributes',
  'activityTaskScheduledEventAttributes',
  'markerRecordedEventAttributes',
  'upsertWorkflowSearchAttributesEventAttributes',
  'workflowExecutionCompletedEventAttributes',
  'workflowExecutionFailedEventAttributes',
] as const;

export interface Progress {
  at: number;
  /** What it was: an event (`activityTaskCompleted`), a heartbeat, or the end. */
  what: string;
}

/**
 * When the run next moved on at or after `since` (a history event or a heartbeat). A drill does its work in batches
 * (child workflows, runbooks/dr-drill/fan-out.ts), so their histories count as its own.
 */
export async function nextProgress(stack: Stack, run: RunRecord, since: number): Promise<Progress | undefined> {
  const history = await stack.client.workflow.getHandle(run.workflowId).fetchHistory();
  const batches = run.plan.kind === 'drill' ? await batchHistories(stack, run.workflowId) : [];
  const seen: Progress[] = run.heartbeats.map((at) => ({ at, what: 'heartbeat' }));
  for (const [i, { events }] of [history, ...batches].entries()) {
    for (const event of events ?? []) {
      const kind = PROGRESS.find((key) => Boolean(event[key]));
      const what = `${i > 0 ? 'batch ' : ''}${kind?.replace(/EventAttributes$/, '') ?? ''}`;
      if (kind && event.eventTime) seen.push({ at: tsToMs(event.eventTime), what });
    }
  }
  return seen.filter((p) => p.at >= since).sort((a, b) => a.at - b.at)[0];
}

type History = Awaited<ReturnType<ReturnType<Stack['client']['workflow']['getHandle']>['fetchHistory']>>;

/** The histories of a drill's batches (their workflow IDs start with the drill's, see `batchWorkflowId`). */
export async function batchHistories(stack: Stack, drillWorkflowId: string): Promise<History[]> {
  const query = `WorkflowType = 'drDrillBatch' AND WorkflowId STARTS_WITH '${drillWorkflowId}--'`;
  const histories: History[] = [];
  for await (const batch of stack.client.workflow.list({ query })) {
    histories.push(await stack.client.workflow.getHandle(batch.workflowId, batch.runId).fetchHistory());
  }
  return histories;
}

/**
 * From a drill's batch histories: when the activities that a crash at `hitAt` interrupted ran again. Such an activity
 * was scheduled before the crash, and its last attempt (a retry after a timeout) started after it. The
 * latest of those starts, with how many there were; undefined when the crash interrupted none.
 */
export function batchOrphansRecovered(batches: History[], hitAt: number): (Progress & { count: number }) | undefined {
  let latest: (Progress & { count: number }) | undefined;
  let count = 0;
  for (const history of batches) {
    const scheduled = new Map<string, number>();
    for (const event of history.events ?? []) {
      const at = event.eventTime ? tsToMs(event.eventTime) : 0;
      if (event.activityTaskScheduledEventAttributes) scheduled.set(String(event.eventId), at);
      const started = event.activityTaskStartedEventAttributes;
      // Retried because its worker went silent (a timeout), not because the service refused a call.
      if (!started || (started.attempt ?? 1) < 2 || !started.lastFailure?.timeoutFailureInfo) continue;
      // The event is written when the attempt ends, but carries the time the attempt started.
      const since = scheduled.get(String(started.scheduledEventId));
      if (since === undefined || since >= hitAt || at <= hitAt) continue;
      count += 1;
      if (!latest || at > latest.at) latest = { at, what: 'batch activities again', count: 0 };
    }
  }
  return latest && { ...latest, count };
}
