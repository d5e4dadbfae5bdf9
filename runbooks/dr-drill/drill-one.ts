import { isCancellation } from '@temporalio/workflow';
import type { ResourceRef } from './activities';
import type { JobOutcome, JobSummary } from '../../steps/jobs';
import type { DrillCheckResult, DrillResourceResult, RecoveryPoint } from './report';
import type { ValidationDesk } from './validation-desk';
import { concludeResource } from './verdicts';
import { PRE_CATEGORY_CHECKED_TYPE, resourceCategoryOf } from '../../api/dialect';
import { checkExpectation } from './expectations';
import { heartbeatingCalls, peekCalls, resend, serviceCalls, waitingCalls } from '../../runtime/calls';
import type { JobWatcher } from '../../runtime/job-watcher';
import type { SnapshotSlots } from '../snapshot-slots/calls';
import type { RunbookTracker } from '../../runtime/tracker';
import type { NotifyingRun } from '../../contracts';
import type { Activities } from '../activities';
import type { DrillInput } from './contract';
import type { DrillSettings } from './fan-out-contract';
import { CHECK_BY_CATEGORY_PATCH, RPO_PRIOR_SNAPSHOT_PATCH } from './patches';

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
  tracker: RunbookTracker;
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

/** Drills resources one by one, start to end, with the commands the drill has always issued for each. */
export function resourceDriller(ctx: DrillContext): (resource: ResourceRef) => Promise<Drilled> {
  const { input, selection, startedAt, tracker, desk } = ctx;
  const workflowId = ctx.drillWorkflowId;
  const wait = waitingCalls<Activities>();
  /** Resources whose drill snapshot came out partial: their restore cannot pass. */
  const partialBackups = new Set<string>();
  return drillOne;

  /**
   * One resource, start to end; its failure is recorded, never thrown, so the others go on. A resource that waits
   * for an external verdict comes back as `validating`, to be finished outside its lane.
   */
  async function drillOne(resource: ResourceRef): Promise<Drilled> {
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
      const point = await recoveryPointOf(resource, result);
      if (!point) return result;
      result.recoveryPoint = point;
      Object.assign(result, { snapshotId: point.snapshotId, snapshotPointInTime: point.pointInTime });
      result.snapshotReused = point.selection === 'reused';
      // A snapshot the drill took is captured after the drill began: nothing is lost, so 0.
      result.rpoSeconds = Math.max(0, (startedAt.getTime() - Date.parse(point.pointInTime)) / 1000);
      result.rpoMet = result.rpoSeconds <= input.targets.rpoSeconds;

      const restore = await restoreOf(resource, point.snapshotId, result);
      if (!restore?.succeeded) return result;
      if (restore.outcome === 'PARTIAL') result.reasons.push(`restore partial: ${restore.statusMessage ?? ''}`);

      if (input.sqlCheck && whyNotCheckable(resource.resourceType) === undefined) {
        const began = Date.now();
        result.check = await runCheck(point.snapshotId, input.sqlCheck);
        result.rtoValidationSeconds = (Date.now() - began) / 1000;
      } else if (input.validation && input.validation.windowHours > 0) {
        const windowHours = input.validation.windowHours;
        const validated = validateOutside(resource, point, restore.jobId, windowHours, result).then(
          () => concluded(result, restore.outcome),
          failed,
        );
        return { validating: validated };
      } else if (input.sqlCheck) {
        const why = whyNotCheckable(resource.resourceType) ?? '';
        const { query, expectation } = input.sqlCheck;
        result.check = { query, expectation, passed: false, status: 'notRun', detail: `check not run: ${why}` };
      }
      return concluded(result, restore.outcome);
    } catch (err) {
      return failed(err);
    }
  }

  /** The point to restore, as the input selects it; undefined (with the reason recorded) when there is none. */
  async function recoveryPointOf(
    resource: ResourceRef,
    result: DrillResourceResult,
  ): Promise<RecoveryPoint | undefined> {
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
    if (ctx.patched(RPO_PRIOR_SNAPSHOT_PATCH)) {
      const prior = await service.newestSnapshotBefore({ resourceId: resource.id, before: startedAt.toISOString() });
      if (prior) {
        result.rpoPoint = { snapshotId: prior.id, pointInTime: prior.pointInTime };
        result.newestBeforeDrillSeconds = (startedAt.getTime() - Date.parse(prior.pointInTime)) / 1000;
      }
    }
    const notBefore = new Date(startedAt.getTime() - input.targets.rpoSeconds * 1000).toISOString();
    const recent = input.reuseRecentSnapshot
      ? await service.latestSnapshot({ resourceId: resource.id, notBefore })
      : undefined;
    if (recent) return { snapshotId: recent.id, pointInTime: recent.pointInTime, selection: 'reused' };
    const start = {
      resourceId: resource.id,
      providerResourceId: resource.providerResourceId,
      vaultId: input.vaultId,
      retentionDays: input.retentionDays,
    };
    const slots = ctx.snapshotSlots;
    const slotted = slots ? await slots.startBackup(resource.id, start) : undefined;
    const backup = slotted ?? (await service.startBackup(start));
    result.backupJobId = backup.jobId;
    let job: JobSummary;
    try {
      job = ctx.jobWatchers
        ? await ctx.jobWatchers.backup.finished(backup.jobId)
        : await tracker.waitNudgeable(
            () => wait.checkBackupJob(backup.jobId),
            () => peek.checkBackupJob(backup.jobId),
          );
    } finally {
      // The service's cap counts running backups: the slot is held until the job has ended.
      if (slots && slotted) await slots.release(slotted.slot);
    }
    result.backupStatus = job.status;
    if (!job.succeeded || !job.snapshotId) {
      const code = job.errorCode ? ` ${job.errorCode}` : '';
      result.reasons.push(`backup ${job.status}${code}: ${job.statusMessage ?? 'no snapshot'}`);
      return undefined;
    }
    if (job.outcome === 'PARTIAL') {
      partialBackups.add(resource.id);
      result.reasons.push(`backup partial: ${job.statusMessage ?? ''}`);
    }
    // A snapshot taken now holds no later than now, should the service leave both times out.
    const pointInTime = job.pointInTime ?? job.endTime ?? new Date().toISOString();
    return { snapshotId: job.snapshotId, pointInTime, selection: 'fresh' };
  }

  /** Restores the snapshot and waits for the job; the restore part of RTO is the job's own duration. */
  async function restoreOf(resource: ResourceRef, snapshotId: string, result: DrillResourceResult) {
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
      : await tracker.waitNudgeable(
          () => wait.checkRestoreJob(started.jobId),
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
    resource: ResourceRef,
    point: RecoveryPoint,
    restoreJobId: string,
    windowHours: number,
    result: DrillResourceResult,
  ): Promise<void> {
    const requestedAt = new Date();
    const deadline = new Date(requestedAt.getTime() + windowHours * 3600 * 1000);
    const answerWith = `runbooks drill validate ${workflowId} --resource ${resource.id} --result pass|fail`;
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
    const answering = desk.verdictOn(resource.id, deadline);
    showWaiting();
    const answer = await answering;
    showWaiting();
    result.rtoValidationSeconds = (Date.now() - requestedAt.getTime()) / 1000;
    if (!answer) {
      result.validation = {
        ...base,
        status: 'timedOut',
        detail: `validation timed out: no verdict within ${windowHours} h`,
      };
      return;
    }
    const said = answer.message ? `: ${answer.message}` : '';
    result.validation = {
      ...base,
      status: answer.result === 'pass' ? 'passed' : 'failed',
      answeredAt: answer.answeredAt,
      ...(answer.message ? { message: answer.message } : {}),
      detail: `validation ${answer.result === 'pass' ? 'passed' : 'failed'}${said}`,
    };
  }

  function showWaiting(): void {
    ctx.onWaiting(desk.waiting);
  }

  /** RTO, the reasons and the verdict, once the restore (which succeeded) and its validation are known. */
  function concluded(result: DrillResourceResult, restoreOutcome: JobOutcome): DrillResourceResult {
    // Partial data restored is not a recovery: never PASS, whatever else held.
    const partial = restoreOutcome === 'PARTIAL' || partialBackups.has(result.resourceId);
    return concludeResource(result, { targets: input.targets, requireChecks: input.requireChecks, partial });
  }

  /** Why the SQL check cannot run on a resource of this type, or `undefined` when it can. A pure table lookup. */
  function whyNotCheckable(resourceType: string): string | undefined {
    if (!ctx.patched(CHECK_BY_CATEGORY_PATCH)) {
      return resourceType === PRE_CATEGORY_CHECKED_TYPE ? undefined : 'not a relational database';
    }
    const category = resourceCategoryOf(resourceType);
    if (category === 'relationalDatabase') return undefined;
    return category === 'unknown'
      ? `resource type ${resourceType} is not known to be a relational database`
      : 'not a relational database';
  }

  async function runCheck(snapshotId: string, check: NonNullable<typeof input.sqlCheck>): Promise<DrillCheckResult> {
    const base = { query: check.query, expectation: check.expectation };
    try {
      const queryId = await service.startQuery({
        snapshotId,
        query: {
          databaseName: check.databaseName,
          query: check.query,
          restoreAccountId: input.restoreAccountId,
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
}
