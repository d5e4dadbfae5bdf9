import { executeChild, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { cleanPoint } from '../clean-point/workflow';
import type { ResourceRef } from './activities';
import type { JobOutcome, JobSummary } from '../../steps/jobs';
import type { DrillCheckResult, DrillResourceResult, RecoveryPoint } from './report';
import type { ValidationDesk } from '../../steps/validation-desk';
import { concludeResource } from './verdicts';
import { PRE_CATEGORY_CHECKED_TYPE, resourceCategoryOf } from '../../api/dialect';
import { checkExpectation } from './expectations';
import { heartbeatingCalls, peekCalls, resend, serviceCalls, waitingCalls } from '../../runtime/calls';
import type { JobWatcher } from '../../steps/job-watcher';
import type { SnapshotSlots } from '../snapshot-slots/calls';
import type { RunbookTracker } from '../../runtime/tracker';
import type { NotifyingRun } from '../../contracts';
import type { Activities } from '../activities';
import type { DrillInput, DrillPhase } from './contract';
import type { DrillSettings } from './fan-out-contract';
import {
  CHECK_BY_CATEGORY_PATCH,
  CLEAN_POINT_BY_VALIDATION_PATCH,
  RPO_BESIDE_BACKUP_PATCH,
  RPO_PRIOR_SNAPSHOT_PATCH,
} from './patches';

const service = serviceCalls<Activities>();
const peek = peekCalls<Activities>();
const heartbeating = heartbeatingCalls<Activities>();

/** What drilling one resource needs of the workflow it runs in (the whole drill, or one batch of it). */
export interface DrillContext {
  input: DrillSettings;
  /** The recovery point selection this run follows (`fresh` for runs from before selections). */
  selection: DrillInput['recoveryPoint'] | { select: 'fresh' };
  startedAt: Date;
  /** The drill's workflow ID: verdicts are sent to it (`runbooks drill validate`). */
  drillWorkflowId: string;
  tracker: RunbookTracker<DrillPhase>;
  desk: ValidationDesk;
  /** `patched` in a run that may replay an older history; always true in workflows that began with this code. */
  patched: (patchId: string) => boolean;
  /** The drill's run, when it is not this workflow: notifications speak for it. */
  onBehalfOf?: NotifyingRun;
  /** The resources waiting for a verdict changed. */
  onWaiting: (resourceIds: string[]) => void;
  /** Watchers that look at every job of a kind in flight with one list call; without them, a wait per job. */
  jobWatchers?: { backup: JobWatcher; restore: JobWatcher };
  /** The project's limiter of snapshot starts; without it, each start retries a 429 on its own. */
  snapshotSlots?: SnapshotSlots;
}

export type Drilled = DrillResourceResult | { validating: Promise<DrillResourceResult> };

/** What the steps of drilling a resource share: the workflow's context, and what the driller learns on the way. */
interface Driller {
  ctx: DrillContext;
  wait: ReturnType<typeof waitingCalls<Activities>>;
  /** Resources whose drill snapshot came out partial: their restore cannot pass. */
  partialBackups: Set<string>;
}

/** Drills resources one by one, start to end, with the commands the drill has always issued for each. */
export function resourceDriller(ctx: DrillContext): (resource: ResourceRef) => Promise<Drilled> {
  const driller: Driller = { ctx, wait: waitingCalls<Activities>(), partialBackups: new Set<string>() };
  // Returns drillOne's own promise: a lane awaits it as it always has.
  return (resource) => drillOne(driller, resource);
}

/**
 * One resource, start to end; its failure is recorded, never thrown, so the others go on. A resource that waits for
 * an external verdict comes back as `validating`, to be finished outside its lane.
 */
async function drillOne(d: Driller, resource: ResourceRef): Promise<Drilled> {
  const { input, startedAt } = d.ctx;
  const result: DrillResourceResult = {
    resourceId: resource.id,
    resourceName: resource.resourceName,
    resourceType: resource.resourceType,
    snapshotReused: false,
    verdict: 'FAIL',
    reasons: [],
  };
  const failed = (err: unknown) => {
    if (isCancellation(err)) throw err;
    result.reasons.push(err instanceof Error ? err.message : String(err));
    return result;
  };
  try {
    const point = await recoveryPointOf(d, resource, result);
    if (!point) return result;
    result.recoveryPoint = point;
    Object.assign(result, { snapshotId: point.snapshotId, snapshotPointInTime: point.pointInTime });
    result.snapshotReused = point.selection === 'reused';
    // A snapshot the drill took is captured after the drill began: nothing is lost, so 0.
    result.rpoSeconds = Math.max(0, (startedAt.getTime() - Date.parse(point.pointInTime)) / 1000);
    result.rpoMet = result.rpoSeconds <= input.targets.rpoSeconds;

    const restore = await restoreOf(d, resource, point.snapshotId, result);
    if (!restore?.succeeded) return result;
    if (restore.outcome === 'PARTIAL') result.reasons.push(`restore partial: ${restore.statusMessage ?? ''}`);

    if (input.sqlCheck && whyNotCheckable(d, resource.resourceType) === undefined) {
      const began = Date.now();
      result.check = await runCheck(d, point.snapshotId, input.sqlCheck);
      result.rtoValidationSeconds = (Date.now() - began) / 1000;
    } else if (input.validation && input.validation.windowHours > 0) {
      const windowHours = input.validation.windowHours;
      const validated = validateOutside(d, resource, point, restore.jobId, windowHours, result).then(
        () => concluded(d, result, restore.outcome),
        failed,
      );
      return { validating: validated };
    } else if (input.sqlCheck) {
      const why = whyNotCheckable(d, resource.resourceType) ?? '';
      const { query, expectation } = input.sqlCheck;
      result.check = { query, expectation, passed: false, status: 'notRun', detail: `check not run: ${why}` };
    }
    return concluded(d, result, restore.outcome);
  } catch (err) {
    return failed(err);
  }
}

/**
 * The newest point of the window that passes the input's check: a cleanPoint search of the resource (a child
 * workflow, its answers in its own history), whose evidence the report keeps. None clean: the reason is recorded.
 */
async function cleanPointOf(
  d: Driller,
  resource: ResourceRef,
  result: DrillResourceResult,
  selection: Extract<DrillContext['selection'], { select: 'latest-clean' }>,
): Promise<RecoveryPoint | undefined> {
  const { windowDays, check } = selection;
  const { input } = d.ctx;
  // The check queries the snapshots' databases; other types are searched by restores the drill's validation judges.
  const why = whyNotCheckable(d, resource.resourceType);
  const validating = input.validation && input.validation.windowHours > 0 ? input.validation : undefined;
  const byValidation = why !== undefined && validating !== undefined && d.ctx.patched(CLEAN_POINT_BY_VALIDATION_PATCH);
  if (why !== undefined && !byValidation) {
    result.reasons.push(
      `latest-clean: ${why}, and a clean point is found by queries on its snapshots' database ` +
        "(or by restores the drill's validation judges, when it has one)",
    );
    return undefined;
  }
  const judgedBy =
    byValidation && validating
      ? {
          validation: {
            name: `${input.name} validation`,
            restoreKind: input.restoreKind,
            destination: input.destination,
            files: input.files,
            windowHours: validating.windowHours,
            ...(validating.notify ? { notify: validating.notify } : {}),
            ...(selection.maxRestores ? { maxRestores: selection.maxRestores } : {}),
          },
        }
      : { check };
  const search = await executeChild<typeof cleanPoint>('cleanPoint', {
    workflowId: `${workflowInfo().workflowId}--clean-point--${resource.id}`,
    args: [
      {
        resourceId: resource.id,
        ...judgedBy,
        restoreAccountId: input.restoreAccountId,
        windowDays,
        before: d.ctx.startedAt.toISOString(),
      },
    ],
  });
  const clean = {
    check: search.check,
    verdict: search.verdict,
    candidates: search.window.candidates,
    examined: search.examined.map(({ snapshotId, pointInTime, verdict }) => ({ snapshotId, pointInTime, verdict })),
    queries: search.queries.run,
    ...(search.restores ? { restores: search.restores.run } : {}),
    nonMonotone: search.nonMonotone,
  };
  if (!search.clean) {
    result.reasons.push(search.verdict);
    result.cleanSearch = clean;
    return undefined;
  }
  const { snapshotId, pointInTime, behindNewest } = search.clean;
  return { snapshotId, pointInTime, selection: 'latest-clean', windowDays, clean: { ...clean, behindNewest } };
}

/** The point to restore, as the input selects it; undefined (with the reason recorded) when there is none. */
async function recoveryPointOf(
  d: Driller,
  resource: ResourceRef,
  result: DrillResourceResult,
): Promise<RecoveryPoint | undefined> {
  const { ctx } = d;
  const { input, selection, startedAt } = ctx;
  if (selection.select === 'latest-clean') return cleanPointOf(d, resource, result, selection);
  if (selection.select !== 'fresh') {
    const { select, windowDays } = selection;
    const chosen = await service.chooseRecoveryPoint({
      resourceId: resource.id,
      select,
      windowDays,
      before: startedAt.toISOString(),
      // Drawn here, so that the draw is part of the run's history and a retry restores the same point.
      ...(select === 'random' ? { draw: Math.random() } : {}),
    });
    if (!chosen) {
      result.reasons.push(`no recovery point in the last ${windowDays} days`);
      return undefined;
    }
    const { id: snapshotId, pointInTime, draw } = chosen;
    return { snapshotId, pointInTime, selection: select, windowDays, ...(draw ? { draw } : {}) };
  }
  // The newest snapshot before the drill, for its RPO: looked up beside the backup, which does not depend on it.
  const besides = ctx.patched(RPO_PRIOR_SNAPSHOT_PATCH) && ctx.patched(RPO_BESIDE_BACKUP_PATCH);
  const prior = ctx.patched(RPO_PRIOR_SNAPSHOT_PATCH)
    ? service.newestSnapshotBefore({ resourceId: resource.id, before: startedAt.toISOString() })
    : undefined;
  // Awaited below; a start that fails first leaves it handled.
  prior?.catch(() => undefined);
  if (prior && !besides) notePrior(result, await prior, startedAt);
  const notBefore = new Date(startedAt.getTime() - input.targets.rpoSeconds * 1000).toISOString();
  const recent = input.reuseRecentSnapshot
    ? await service.latestSnapshot({ resourceId: resource.id, notBefore })
    : undefined;
  if (recent) {
    if (prior && besides) notePrior(result, await prior, startedAt);
    return { snapshotId: recent.id, pointInTime: recent.pointInTime, selection: 'reused' };
  }
  const start = backupStartOf(d, resource);
  const slots = ctx.snapshotSlots;
  const slotted = slots ? await slots.startBackup(resource.id, start) : undefined;
  const backup = slotted ?? (await service.startBackup(start));
  result.backupJobId = backup.jobId;
  let job: JobSummary;
  try {
    job = ctx.jobWatchers
      ? await ctx.jobWatchers.backup.finished(backup.jobId)
      : await ctx.tracker.waitNudgeable(
          () => d.wait.checkBackupJob(backup.jobId),
          () => peek.checkBackupJob(backup.jobId),
        );
  } finally {
    // The service's cap counts running backups: the slot is held until the job has ended.
    if (slots && slotted) await slots.release(slotted.slot);
  }
  // Long since answered: a lookup that failed fails the resource, as it did before the backup.
  if (prior && besides) notePrior(result, await prior, startedAt);
  return pointOfBackup(d, resource, job, result);
}

/** The newest snapshot before the drill, which RPO is measured against when the drill takes its own. */
function notePrior(
  result: DrillResourceResult,
  prior: { id: string; pointInTime: string } | undefined,
  startedAt: Date,
): void {
  if (!prior) return;
  result.rpoPoint = { snapshotId: prior.id, pointInTime: prior.pointInTime };
  result.newestBeforeDrillSeconds = (startedAt.getTime() - Date.parse(prior.pointInTime)) / 1000;
}

/** The fresh snapshot a drill takes of a resource. */
function backupStartOf(d: Driller, resource: ResourceRef) {
  return {
    resourceId: resource.id,
    providerResourceId: resource.providerResourceId,
    vaultId: d.ctx.input.vaultId,
    retentionDays: d.ctx.input.retentionDays,
  };
}

/** The point the drill's own backup job made, or undefined (with the reason recorded) when it made none. */
function pointOfBackup(
  d: Driller,
  resource: ResourceRef,
  job: JobSummary,
  result: DrillResourceResult,
): RecoveryPoint | undefined {
  result.backupStatus = job.status;
  if (!job.succeeded || !job.snapshotId) {
    const code = job.errorCode ? ` ${job.errorCode}` : '';
    result.reasons.push(`backup ${job.status}${code}: ${job.statusMessage ?? 'no snapshot'}`);
    return undefined;
  }
  if (job.outcome === 'PARTIAL') {
    d.partialBackups.add(resource.id);
    result.reasons.push(`backup partial: ${job.statusMessage ?? ''}`);
  }
  // A snapshot taken now holds no later than now, should the service leave both times out.
  const pointInTime = job.pointInTime ?? job.endTime ?? new Date().toISOString();
  return { snapshotId: job.snapshotId, pointInTime, selection: 'fresh' };
}

/** Restores the snapshot and waits for the job; the restore part of RTO is the job's own duration. */
async function restoreOf(d: Driller, resource: ResourceRef, snapshotId: string, result: DrillResourceResult) {
  const { ctx } = d;
  const { input } = ctx;
  const started = await service.startRestore({
    resourceId: resource.id,
    snapshotId,
    kind: input.restoreKind,
    bucket: { destination: input.destination, restoreAccountId: input.restoreAccountId },
    files: { destination: input.destination, files: input.files, restoreAccountId: input.restoreAccountId },
  });
  if (started.kind !== 'started') {
    // A drill does not wait days for reviewers; the approval-gated restore runbook does.
    await service.withdrawRequest(started.requestId);
    result.reasons.push(`restore needs approval (request ${started.requestId} withdrawn)`);
    return undefined;
  }
  result.restoreJobId = started.jobId;
  const restore = ctx.jobWatchers
    ? await ctx.jobWatchers.restore.finished(started.jobId)
    : await ctx.tracker.waitNudgeable(
        () => d.wait.checkRestoreJob(started.jobId),
        () => peek.checkRestoreJob(started.jobId),
      );
  result.restoreStatus = restore.status;
  result.restoreStatusMessage = restore.statusMessage;
  // An end time the service left out (null in the public dialect) is unknown: no RTO is measured from it.
  if (restore.endTime) {
    result.rtoRestoreSeconds = (Date.parse(restore.endTime) - Date.parse(restore.createdTime)) / 1000;
  } else if (restore.succeeded) {
    result.reasons.push('RTO not measured: the service gave no end time for the restore job');
  }
  if (!restore.succeeded) {
    const code = restore.errorCode ? ` ${restore.errorCode}` : '';
    result.reasons.push(`restore ${restore.status}${code}: ${restore.statusMessage ?? ''}`);
  }
  return { ...restore, jobId: started.jobId };
}

/** Asks for a verdict on the restored resource (drill.validation.requested) and waits for it, up to the window. */
async function validateOutside(
  d: Driller,
  resource: ResourceRef,
  point: RecoveryPoint,
  restoreJobId: string,
  windowHours: number,
  result: DrillResourceResult,
): Promise<void> {
  const { ctx } = d;
  const { input } = ctx;
  const requestedAt = new Date();
  const deadline = new Date(requestedAt.getTime() + windowHours * 3600 * 1000);
  const answerWith = `runbooks drill validate ${ctx.drillWorkflowId} --resource ${resource.id} --result pass|fail`;
  const base = { requestedAt: requestedAt.toISOString(), deadline: deadline.toISOString() };
  try {
    const sent = await service.requestDrillValidation({
      notice: {
        name: input.name,
        resourceId: resource.id,
        resourceName: resource.resourceName,
        resourceType: resource.resourceType,
        restoreJobId,
        restoredTo: input.destination,
        recoveryPoint: { snapshotId: point.snapshotId, pointInTime: point.pointInTime },
        deadline: base.deadline,
        answerWith,
      },
      ...(input.validation?.notify ? { target: input.validation.notify } : {}),
      ...(ctx.onBehalfOf ? { onBehalfOf: ctx.onBehalfOf } : {}),
    });
    // A retry goes to the named target alone, as the first delivery did.
    resend(sent, input.validation?.notify);
  } catch (err) {
    if (isCancellation(err)) throw err;
    const why = err instanceof Error ? err.message : String(err);
    result.validation = { ...base, status: 'failed', detail: `validation not requested: ${why}` };
    return;
  }
  // The desk marks the resource waiting as it is asked, before the status query is told.
  const answering = ctx.desk.verdictOn(resource.id, deadline);
  showWaiting(d);
  const answer = await answering;
  showWaiting(d);
  result.rtoValidationSeconds = (Date.now() - requestedAt.getTime()) / 1000;
  result.validation = validationOf(base, windowHours, answer);
}

/** The validation as the verdict said, or as timed out when none came within the window. */
function validationOf(
  base: { requestedAt: string; deadline: string },
  windowHours: number,
  answer: Awaited<ReturnType<ValidationDesk['verdictOn']>>,
): NonNullable<DrillResourceResult['validation']> {
  if (!answer) {
    return {
      ...base,
      status: 'timedOut',
      detail: `validation timed out: no verdict within ${windowHours} h`,
    };
  }
  const said = answer.message ? `: ${answer.message}` : '';
  return {
    ...base,
    status: answer.result === 'pass' ? 'passed' : 'failed',
    answeredAt: answer.answeredAt,
    ...(answer.message ? { message: answer.message } : {}),
    detail: `validation ${answer.result === 'pass' ? 'passed' : 'failed'}${said}`,
  };
}

function showWaiting(d: Driller): void {
  d.ctx.onWaiting(d.ctx.desk.waiting);
}

/** RTO, the reasons and the verdict, once the restore (which succeeded) and its validation are known. */
function concluded(d: Driller, result: DrillResourceResult, restoreOutcome: JobOutcome): DrillResourceResult {
  const { input } = d.ctx;
  // Partial data restored is not a recovery: never PASS, whatever else held.
  const partial = restoreOutcome === 'PARTIAL' || d.partialBackups.has(result.resourceId);
  return concludeResource(result, { targets: input.targets, requireChecks: input.requireChecks, partial });
}

/** Why the SQL check cannot run on a resource of this type, or `undefined` when it can. A pure table lookup. */
function whyNotCheckable(d: Driller, resourceType: string): string | undefined {
  if (!d.ctx.patched(CHECK_BY_CATEGORY_PATCH)) {
    return resourceType === PRE_CATEGORY_CHECKED_TYPE ? undefined : 'not a relational database';
  }
  const category = resourceCategoryOf(resourceType);
  if (category === 'relationalDatabase') return undefined;
  return category === 'unknown'
    ? `resource type ${resourceType} is not known to be a relational database`
    : 'not a relational database';
}

async function runCheck(
  d: Driller,
  snapshotId: string,
  check: NonNullable<DrillSettings['sqlCheck']>,
): Promise<DrillCheckResult> {
  const base = { query: check.query, expectation: check.expectation };
  try {
    const queryId = await service.startQuery({
      snapshotId,
      query: {
        databaseName: check.databaseName,
        query: check.query,
        restoreAccountId: d.ctx.input.restoreAccountId,
        destination: check.destination,
      },
    });
    await heartbeating.waitForQuery(queryId);
    const { rows } = await heartbeating.countQueryRows(queryId);
    const passed = checkExpectation(check.expectation, rows);
    const status = passed ? 'passed' : 'failed';
    return { ...base, rows, passed, status, detail: `${rows} rows; expected ${check.expectation}` };
  } catch (err) {
    if (isCancellation(err)) throw err;
    return { ...base, passed: false, status: 'failed', detail: err instanceof Error ? err.message : String(err) };
  }
}

/** What a run of lanes tells its workflow: a resource taken, its result, and a lane that found none left. */
export interface LaneHooks {
  taken?: () => void;
  finished: (index: number, result: DrillResourceResult) => void;
  /** A lane found no resource left to take and ended: it is free for other work. */
  left?: () => void;
  /** Called once with a way to open more lanes on the same resources, for a workflow that is given lanes later. */
  grow?: (addLanes: (count: number) => void) => void;
}

/**
 * Drills resources in lanes, in order. A wait for someone's validation verdict leaves its lane, so that hours of
 * waiting do not hold up the restores of the others: once the lanes are free, this returns those waits, each settling
 * with its resource's `finished`. Lanes opened later (`grow`) take from the same resources.
 */
export async function drillInLanes(
  resources: readonly ResourceRef[],
  lanes: number,
  drillOne: (resource: ResourceRef) => Promise<Drilled>,
  hooks: LaneHooks,
): Promise<Promise<void>[]> {
  const validating: Promise<void>[] = [];
  let next = 0;
  const lane = async () => {
    while (next < resources.length) {
      const index = next++;
      const resource = resources[index];
      if (!resource) continue;
      hooks.taken?.();
      const drilled = await drillOne(resource);
      if ('validating' in drilled) {
        const settled = drilled.validating.then((r) => hooks.finished(index, r));
        // Awaited by the caller once the lanes are done; until then a cancellation must not count as unhandled.
        settled.catch(() => undefined);
        validating.push(settled);
      } else hooks.finished(index, drilled);
    }
    hooks.left?.();
  };
  const added: Promise<void>[] = [];
  hooks.grow?.((count) => {
    for (let i = 0; i < count; i++) added.push(lane());
  });
  await Promise.all(Array.from({ length: Math.min(lanes, resources.length) }, lane));
  // Lanes opened later: awaited only when there are some, so that runs without them resume as they always did.
  for (let awaited = 0; awaited < added.length;) {
    const opened = added.slice(awaited);
    awaited += opened.length;
    await Promise.all(opened);
  }
  return validating;
}
