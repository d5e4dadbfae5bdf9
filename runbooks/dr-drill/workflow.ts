import { isCancellation, patched, workflowInfo } from '@temporalio/workflow';
import type { ResourceRef } from './activities';
import type { DrillCheckResult, DrillReport, DrillResourceResult, DrillSummary } from './report';
import { PRE_CATEGORY_CHECKED_TYPE, resourceCategoryOf } from '../../api/dialect';
import { checkExpectation } from './expectations';
import {
  heartbeatingCalls,
  leanHistory,
  notify,
  peekCalls,
  resend,
  serviceCalls,
  waitingCalls,
} from '../../runtime/calls';
import { RunbookTracker, parseInput } from '../../runtime/tracker';
import type { Activities } from '../activities';
import { DrDrillInput, type DrDrillResult } from './contract';

const service = serviceCalls<Activities>();
const peek = peekCalls<Activities>();
const heartbeating = heartbeatingCalls<Activities>();

/** Measures RPO against the newest snapshot before the drill began (one lookup per resource), not the drill's own. */
export const RPO_PRIOR_SNAPSHOT_PATCH = 'drill-rpo-prior-snapshot';

/**
 * Runs the SQL check on every relational database, whatever its dialect's type token; before, only on one neutral
 * type, so histories without this marker replay that way.
 */
export const CHECK_BY_CATEGORY_PATCH = 'drill-check-by-category';

/** A disaster-recovery drill: back up, restore and check each resource, and write the evidence. */
export async function drDrill(raw: DrDrillInput): Promise<DrDrillResult> {
  const input = parseInput(DrDrillInput, raw);
  const tracker = new RunbookTracker('drDrill');
  const wait = waitingCalls<Activities>();
  const startedAt = new Date();

  tracker.phase('selecting resources');
  const resources = await service.resolveResources(input.resources);
  const results: DrillResourceResult[] = new Array<DrillResourceResult>(resources.length);
  let done = 0;
  tracker.phase('drilling', { progress: { done, total: resources.length, unit: 'resources' } });

  // Bounded parallelism: a fixed number of lanes take resources in order.
  let next = 0;
  const lane = async () => {
    while (next < resources.length) {
      const index = next++;
      const resource = resources[index];
      if (!resource) continue;
      results[index] = await drillOne(resource);
      tracker.progress(++done, resources.length, 'resources');
    }
  };
  await Promise.all(Array.from({ length: Math.min(input.parallelism, resources.length) }, lane));

  tracker.phase('writing report');
  const summary = summarize(results);
  const report: DrillReport = {
    name: input.name,
    workflowId: workflowInfo().workflowId,
    runId: workflowInfo().runId,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    targets: input.targets,
    resources: results,
    summary,
  };
  // The report's activity sends drill.passed or drill.failed itself (see `leanHistory`).
  const inline = leanHistory();
  const written = await service.writeDrillReport({
    report,
    baseName: workflowInfo().workflowId,
    ...(inline ? { announce: true } : {}),
  });
  const { notified, ...paths } = written;
  tracker.phase('completed', { detail: `${summary.verdict}: ${summary.passed}/${summary.total} passed` });
  if (inline) resend(notified);
  else {
    notify({
      event: summary.verdict === 'PASS' ? 'drill.passed' : 'drill.failed',
      data: { name: input.name, ...summary, report: paths },
    });
  }
  return { report: paths, summary };

  /** One resource, start to end; its failure is recorded, never thrown, so the others go on. */
  async function drillOne(resource: ResourceRef): Promise<DrillResourceResult> {
    const result: DrillResourceResult = {
      resourceId: resource.id,
      resourceName: resource.resourceName,
      resourceType: resource.resourceType,
      snapshotReused: false,
      verdict: 'FAIL',
      reasons: [],
    };
    try {
      const measuresPrior = patched(RPO_PRIOR_SNAPSHOT_PATCH);
      if (measuresPrior) {
        const prior = await service.newestSnapshotBefore({ resourceId: resource.id, before: startedAt.toISOString() });
        if (prior) {
          result.rpoPoint = { snapshotId: prior.id, pointInTime: prior.pointInTime };
          result.rpoSeconds = (startedAt.getTime() - Date.parse(prior.pointInTime)) / 1000;
          result.rpoMet = result.rpoSeconds <= input.targets.rpoSeconds;
        } else {
          result.rpoMet = false;
        }
      }
      const notBefore = new Date(startedAt.getTime() - input.targets.rpoSeconds * 1000).toISOString();
      const recent = input.reuseRecentSnapshot
        ? await service.latestSnapshot({ resourceId: resource.id, notBefore })
        : undefined;
      if (recent) {
        Object.assign(result, { snapshotId: recent.id, snapshotPointInTime: recent.pointInTime, snapshotReused: true });
      } else {
        const backup = await service.startBackup({
          resourceId: resource.id,
          providerResourceId: resource.providerResourceId,
          vaultId: input.vaultId,
          retentionDays: input.retentionDays,
        });
        result.backupJobId = backup.jobId;
        const job = await tracker.waitNudgeable(
          () => wait.checkBackupJob(backup.jobId),
          () => peek.checkBackupJob(backup.jobId),
        );
        result.backupStatus = job.status;
        if (!job.succeeded || !job.snapshotId) {
          result.reasons.push(
            `backup ${job.status}${job.errorCode ? ` ${job.errorCode}` : ''}: ${job.statusMessage ?? 'no snapshot'}`,
          );
          return result;
        }
        if (job.outcome === 'PARTIAL') result.reasons.push(`backup partial: ${job.statusMessage ?? ''}`);
        result.snapshotId = job.snapshotId;
        result.snapshotPointInTime = job.pointInTime ?? job.endTime;
      }
      const snapshotId = result.snapshotId;
      if (!snapshotId) return result;
      if (!measuresPrior && result.snapshotPointInTime) {
        result.rpoSeconds = Math.max(0, (startedAt.getTime() - Date.parse(result.snapshotPointInTime)) / 1000);
        result.rpoMet = result.rpoSeconds <= input.targets.rpoSeconds;
      }

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
        return result;
      }
      result.restoreJobId = started.jobId;
      const restore = await tracker.waitNudgeable(
        () => wait.checkRestoreJob(started.jobId),
        () => peek.checkRestoreJob(started.jobId),
      );
      result.restoreStatus = restore.status;
      result.restoreStatusMessage = restore.statusMessage;
      // An end time the service left out (null in the public dialect) is unknown: no RTO is measured from it.
      if (restore.endTime) {
        result.rtoSeconds = (Date.parse(restore.endTime) - Date.parse(restore.createdTime)) / 1000;
        result.rtoMet = result.rtoSeconds <= input.targets.rtoSeconds;
      } else if (restore.succeeded) {
        result.reasons.push('RTO not measured: the service gave no end time for the restore job');
      }
      if (!restore.succeeded) {
        result.reasons.push(
          `restore ${restore.status}${restore.errorCode ? ` ${restore.errorCode}` : ''}: ${restore.statusMessage ?? ''}`,
        );
        return result;
      }
      if (restore.outcome === 'PARTIAL') result.reasons.push(`restore partial: ${restore.statusMessage ?? ''}`);

      if (input.sqlCheck) {
        const notCheckable = whyNotCheckable(resource.resourceType);
        result.check =
          notCheckable === undefined
            ? await runCheck(snapshotId, input.sqlCheck)
            : {
                query: input.sqlCheck.query,
                expectation: input.sqlCheck.expectation,
                passed: false,
                status: 'notRun',
                detail: `check not run: ${notCheckable}`,
              };
      }
      if (result.rpoMet === false) result.reasons.push(rpoMissed(result, input.targets.rpoSeconds));
      if (result.rtoMet === false) result.reasons.push(`RTO ${result.rtoSeconds ?? '?'} s over target`);
      if (result.check?.status === 'failed') result.reasons.push(`check failed: ${result.check.detail}`);
      if (result.check?.status === 'notRun') {
        result.reasons.push(input.requireChecks ? `${result.check.detail} (requireChecks)` : result.check.detail);
      }
      const checkHeld =
        result.check === undefined ||
        result.check.status === 'passed' ||
        (result.check.status === 'notRun' && !input.requireChecks);
      const clean = result.rpoMet !== false && result.rtoMet !== false && checkHeld;
      result.verdict = clean && (restore.outcome === 'COMPLETED' || restore.outcome === 'PARTIAL') ? 'PASS' : 'FAIL';
      return result;
    } catch (err) {
      if (isCancellation(err)) throw err;
      result.reasons.push(err instanceof Error ? err.message : String(err));
      return result;
    }
  }

  /** Why the SQL check cannot run on a resource of this type, or `undefined` when it can. A pure table lookup. */
  function whyNotCheckable(resourceType: string): string | undefined {
    if (!patched(CHECK_BY_CATEGORY_PATCH)) {
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

function rpoMissed(r: DrillResourceResult, targetSeconds: number): string {
  if (r.rpoSeconds === undefined) return 'RPO missed: no restorable snapshot before the drill began';
  const against = r.rpoPoint ? ` (snapshot ${r.rpoPoint.snapshotId} at ${r.rpoPoint.pointInTime})` : '';
  return `RPO ${Math.round(r.rpoSeconds)} s over target ${targetSeconds} s${against}`;
}

function summarize(results: DrillResourceResult[]): DrillSummary {
  const passed = results.filter((r) => r.verdict === 'PASS').length;
  const rpos = results.flatMap((r) => (r.rpoSeconds === undefined ? [] : [r.rpoSeconds]));
  const rtos = results.flatMap((r) => (r.rtoSeconds === undefined ? [] : [r.rtoSeconds]));
  return {
    total: results.length,
    passed,
    failed: results.length - passed,
    verdict: passed === results.length && results.length > 0 ? 'PASS' : 'FAIL',
    worstRpoSeconds: rpos.length ? Math.max(...rpos) : undefined,
    worstRtoSeconds: rtos.length ? Math.max(...rtos) : undefined,
  };
}
