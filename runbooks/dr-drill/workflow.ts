import { isCancellation, workflowInfo } from '@temporalio/workflow';
import { z } from 'zod';
import type { ResourceRef } from './activities';
import { ResourceFilters } from '../../api/schemas/filters';
import { FilePath } from '../../api/schemas/restore';
import type { DrillCheckResult, DrillReport, DrillResourceResult, DrillSummary } from './report';
import { checkExpectation, EXPECTATION } from './expectations';
import { NonBlank, QueryTarget, QueryText, RestoreTarget, strictDeep } from '../../runtime/input-rules';
import { heartbeatingCalls, parseInput, peekCalls, RunbookTracker, serviceCalls, waitingCalls } from '../../runtime/calls';

/** The most resources one drill takes, whichever way they are selected. */
export const MAX_DRILL_RESOURCES = 200;
/** A selection by filters takes at most this many resources unless `maxResources` says otherwise. */
export const DEFAULT_MAX_RESOURCES = 25;

/** Resource IDs, or inventory filters bounded by `maxResources`: a loose filter must not drill the whole inventory. */
const DrillSelection = z
  .strictObject({
    ids: z.array(NonBlank).min(1).max(MAX_DRILL_RESOURCES).optional(),
    filters: strictDeep(ResourceFilters).optional(),
    /** With filters: when more resources match, the drill refuses to start. */
    maxResources: z.number().int().min(1).max(MAX_DRILL_RESOURCES).optional(),
  })
  .refine((s) => s.ids !== undefined || s.filters !== undefined, { message: 'give resource ids or inventory filters' })
  .refine((s) => s.ids === undefined || s.filters === undefined, {
    message: 'give resource ids or inventory filters, not both',
    path: ['filters'],
  })
  .refine((s) => s.ids === undefined || s.maxResources === undefined, {
    message: 'bounds a selection by filters only (ids name every resource already)',
    path: ['maxResources'],
  })
  .refine((s) => new Set(s.ids).size === (s.ids?.length ?? 0), {
    message: 'names a resource twice',
    path: ['ids'],
  })
  .transform((s) => (s.filters ? { ...s, maxResources: s.maxResources ?? DEFAULT_MAX_RESOURCES } : s));

export const DrDrillInput = strictDeep(
  z.strictObject({
    name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lowercase letters, digits and dashes'),
    resources: DrillSelection,
    vaultId: NonBlank,
    restoreAccountId: NonBlank,
    destination: RestoreTarget,
    restoreKind: z.enum(['bucket', 'files']).default('files'),
    files: z
      .array(FilePath)
      .min(1)
      .default([{ path: '/', isDirectory: true }]),
    targets: z.strictObject({ rpoSeconds: z.number().int().min(1), rtoSeconds: z.number().int().min(1) }),
    retentionDays: z.number().int().min(1).default(7),
    /** Use the newest snapshot inside the RPO target instead of taking one, when there is such a snapshot. */
    reuseRecentSnapshot: z.boolean().default(false),
    sqlCheck: z
      .strictObject({
        databaseName: NonBlank,
        query: QueryText,
        expectation: z.string().regex(EXPECTATION, "like 'rows >= 1'"),
        destination: QueryTarget,
      })
      .optional(),
    parallelism: z.number().int().min(1).max(20).default(3),
  }),
);
export type DrDrillInput = z.input<typeof DrDrillInput>;

export interface DrDrillResult {
  report: { json: string; markdown: string };
  summary: DrillSummary;
}

/** A disaster-recovery drill: back up, restore and check each resource, and write the evidence. */
export async function drDrill(raw: DrDrillInput): Promise<DrDrillResult> {
  const input = parseInput(DrDrillInput, raw);
  const tracker = new RunbookTracker('drDrill');
  const wait = waitingCalls();
  const startedAt = new Date();

  tracker.phase('selecting resources');
  const resources = await serviceCalls.resolveResources(input.resources);
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
  const paths = await serviceCalls.writeDrillReport({ report, baseName: workflowInfo().workflowId });
  tracker.phase('completed', { detail: `${summary.verdict}: ${summary.passed}/${summary.total} passed` });
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
      const notBefore = new Date(startedAt.getTime() - input.targets.rpoSeconds * 1000).toISOString();
      const recent = input.reuseRecentSnapshot
        ? await serviceCalls.latestSnapshot({ resourceId: resource.id, notBefore })
        : undefined;
      if (recent) {
        Object.assign(result, { snapshotId: recent.id, snapshotPointInTime: recent.pointInTime, snapshotReused: true });
      } else {
        const backup = await serviceCalls.startBackup({
          resourceId: resource.id,
          providerResourceId: resource.providerResourceId,
          vaultId: input.vaultId,
          retentionDays: input.retentionDays,
        });
        result.backupJobId = backup.jobId;
        const job = await tracker.waitNudgeable(
          () => wait.checkBackupJob(backup.jobId),
          () => peekCalls.checkBackupJob(backup.jobId),
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
      if (result.snapshotPointInTime) {
        result.rpoSeconds = Math.max(0, (startedAt.getTime() - Date.parse(result.snapshotPointInTime)) / 1000);
        result.rpoMet = result.rpoSeconds <= input.targets.rpoSeconds;
      }

      const started = await serviceCalls.startRestore({
        resourceId: resource.id,
        snapshotId,
        kind: input.restoreKind,
        bucket: { destination: input.destination, restoreAccountId: input.restoreAccountId },
        files: { destination: input.destination, files: input.files, restoreAccountId: input.restoreAccountId },
      });
      if (started.kind !== 'started') {
        // A drill does not wait days for reviewers; the approval-gated restore runbook does.
        await serviceCalls.withdrawRequest(started.requestId);
        result.reasons.push(`restore needs approval (request ${started.requestId} withdrawn)`);
        return result;
      }
      result.restoreJobId = started.jobId;
      const restore = await tracker.waitNudgeable(
        () => wait.checkRestoreJob(started.jobId),
        () => peekCalls.checkRestoreJob(started.jobId),
      );
      result.restoreStatus = restore.status;
      result.restoreStatusMessage = restore.statusMessage;
      if (restore.endTime) {
        result.rtoSeconds = (Date.parse(restore.endTime) - Date.parse(restore.createdTime)) / 1000;
        result.rtoMet = result.rtoSeconds <= input.targets.rtoSeconds;
      }
      if (!restore.succeeded) {
        result.reasons.push(
          `restore ${restore.status}${restore.errorCode ? ` ${restore.errorCode}` : ''}: ${restore.statusMessage ?? ''}`,
        );
        return result;
      }
      if (restore.outcome === 'PARTIAL') result.reasons.push(`restore partial: ${restore.statusMessage ?? ''}`);

      if (input.sqlCheck && resource.resourceType === 'PA_RELATIONAL_DB') {
        result.check = await runCheck(snapshotId, input.sqlCheck);
      }
      if (result.rpoMet === false) result.reasons.push(`RPO ${result.rpoSeconds ?? '?'} s over target`);
      if (result.rtoMet === false) result.reasons.push(`RTO ${result.rtoSeconds ?? '?'} s over target`);
      if (result.check && !result.check.passed) result.reasons.push(`check failed: ${result.check.detail}`);
      const clean = result.rpoMet !== false && result.rtoMet !== false && (result.check?.passed ?? true);
      result.verdict = clean && (restore.outcome === 'COMPLETED' || restore.outcome === 'PARTIAL') ? 'PASS' : 'FAIL';
      return result;
    } catch (err) {
      if (isCancellation(err)) throw err;
      result.reasons.push(err instanceof Error ? err.message : String(err));
      return result;
    }
  }

  async function runCheck(snapshotId: string, check: NonNullable<typeof input.sqlCheck>): Promise<DrillCheckResult> {
    const base = { query: check.query, expectation: check.expectation };
    try {
      const queryId = await serviceCalls.startQuery({
        snapshotId,
        query: {
          databaseName: check.databaseName,
          query: check.query,
          restoreAccountId: input.restoreAccountId,
          destination: check.destination,
        },
      });
      await heartbeatingCalls.waitForQuery(queryId);
      const { rows } = await heartbeatingCalls.countQueryRows(queryId);
      const passed = checkExpectation(check.expectation, rows);
      return { ...base, rows, passed, detail: `${rows} rows; expected ${check.expectation}` };
    } catch (err) {
      if (isCancellation(err)) throw err;
      return { ...base, passed: false, detail: err instanceof Error ? err.message : String(err) };
    }
  }
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
