// The files a drill fanned out in batches works through (./fan-out.ts): the list of its resources, written once and
// read by each batch, and one part per batch with that batch's per-resource results, which the report is made from.
// Thousands of results never travel through workflow payloads: each file's path and sha256 do.
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Context } from '@temporalio/activity';
import { ScheduleNotFoundError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { FailureType, type Notified } from '../../contracts';
import { writeFileAtomic } from '../../runtime/atomic-file';
import { runStatus } from '../../runtime/run-status';
import { exportPath } from '../../runtime/export-file';
import { reportBaseName, resolveSelection, writeReport, type DrillSelection, type ResourceRef } from './activities';
import type { DrillFile } from './fan-out-contract';
import type { DrillReport, DrillReportPaths, DrillResourceResult, DrillRotation, DrillSummary } from './report';
import type { ReportTimestamps } from './timestamp-activities';
import { medianGapMs, rotationFeasibility } from './rotation-cadence';
import { summarize } from './verdicts';

/** Under drill-reports/, apart from the sealed reports (evidence verification reads the folder's own files). */
const PARTS_FOLDER = join('drill-reports', 'parts');

/** A batch's place in the drill: its part, or why it has none (its resources are reported failed with that reason). */
export interface BatchOutcome {
  batch: number;
  offset: number;
  count: number;
  part?: DrillFile;
  error?: string;
}

export interface ReportHeader {
  name: string;
  workflowId: string;
  runId: string;
  startedAt: string;
  finishedAt: string;
  targets: DrillReport['targets'];
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const jsonLines = (rows: readonly unknown[]) => rows.map((row) => JSON.stringify(row) + '\n').join('');

/**
 * How often the schedule that started this run starts it (the median gap of its next action times); undefined when no
 * schedule started it, or its schedule is gone or paused.
 */
export async function scheduleCadenceMs(workflowId: string): Promise<number | undefined> {
  const temporal = Context.current().client;
  const described = await temporal.workflow.getHandle(workflowId).describe();
  const scheduleId = described.searchAttributes.TemporalScheduledById?.[0];
  if (typeof scheduleId !== 'string') return undefined;
  try {
    const schedule = await temporal.schedule.getHandle(scheduleId).describe();
    return medianGapMs(schedule.info.nextActionTimes.map((t) => t.getTime()));
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return undefined;
    throw err;
  }
}

/** Reads a file another activity wrote, refusing it when it is not what that activity said it wrote. */
async function readChecked<T>(file: DrillFile): Promise<T[]> {
  const text = await readFile(file.path, 'utf8');
  if (sha256(text) !== file.sha256) {
    throw ApplicationFailure.create({
      nonRetryable: true,
      message: `${file.path} changed after it was written: its sha256 is not ${file.sha256}`,
    });
  }
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as T);
}

export function drillPartActivities(deps: ActivityDeps) {
  const { client, outputDir } = deps;
  const fileOf = async (drill: { workflowId: string; runId: string }, suffix: string, rows: readonly unknown[]) => {
    const path = exportPath(outputDir, PARTS_FOLDER, `${reportBaseName(drill)}--${suffix}.jsonl`);
    await mkdir(join(outputDir, PARTS_FOLDER), { recursive: true });
    const text = jsonLines(rows);
    await writeFileAtomic(path, text);
    return { path, sha256: sha256(text) };
  };

  return {
    /**
     * The batches among these that have closed, with how they closed: a drill asks after batches an earlier run of it
     * started, whose ends it cannot await (one terminated from outside never signals its end).
     */
    async closedDrillBatches(input: { workflowIds: string[] }): Promise<{ workflowId: string; status: string }[]> {
      const temporal = Context.current().client;
      const closed = await Promise.all(
        input.workflowIds.map(async (workflowId) => {
          const status = await runStatus(temporal, workflowId);
          return status === 'RUNNING' ? undefined : { workflowId, status };
        }),
      );
      return closed.filter((c) => c !== undefined);
    },

    /**
     * Resolves the drill's selection (see `resolveSelection`) and keeps the list in a file; returns its size. With
     * `coverage`, the list is the next `perRun` of the scope the evidence says are most due as of the run's start
     * (`at`), and `rotation` says why, the whole scope, and whether the drill runs often enough to cover it.
     */
    async selectDrillResources(input: {
      selection: DrillSelection;
      workflowId: string;
      runId: string;
      rotate?: { drill: string; withinDays: number; perRun: number; at?: string };
    }): Promise<{ total: number; resources: DrillFile; rotation?: DrillRotation }> {
      const scope = await resolveSelection(client, input.selection);
      if (!input.rotate) return { total: scope.length, resources: await fileOf(input, 'resources', scope) };
      if (!deps.nextToDrill) {
        throw ApplicationFailure.create({
          type: FailureType.InvalidInput,
          nonRetryable: true,
          message: "coverage (rotation) needs a worker that reads the output folder's drill reports",
        });
      }
      const { drill, withinDays, perRun, at } = input.rotate;
      const scopeIds = scope.map((r) => r.id).sort();
      const { picked, recentRunGapMs } = await deps.nextToDrill({
        drill,
        scope: scopeIds,
        withinDays,
        perRun,
        now: at === undefined ? new Date() : new Date(at),
      });
      const scheduleGapMs = await scheduleCadenceMs(input.workflowId);
      const cadence =
        scheduleGapMs !== undefined
          ? { gapMs: scheduleGapMs, basis: 'schedule' as const }
          : recentRunGapMs !== undefined
            ? { gapMs: recentRunGapMs, basis: 'recent-runs' as const }
            : undefined;
      const feasibility = rotationFeasibility({
        scope: scope.length,
        perRun,
        withinDays,
        ...(cadence ? { cadence } : {}),
      });
      const byId = new Map(scope.map((r) => [r.id, r]));
      const resources = picked.flatMap((p) => byId.get(p.resourceId) ?? []);
      const rotation: DrillRotation = {
        scope: scope.length,
        withinDays,
        perRun,
        picked,
        scopeIds,
        ...(feasibility ? { feasibility } : {}),
      };
      return { total: resources.length, resources: await fileOf(input, 'resources', resources), rotation };
    },

    /** The resources of one batch, from the drill's list. */
    async readDrillBatch(input: { resources: DrillFile; offset: number; count: number }): Promise<ResourceRef[]> {
      const all = await readChecked<ResourceRef>(input.resources);
      return all.slice(input.offset, input.offset + input.count);
    },

    /** Keeps one batch's per-resource results in its part file. */
    async writeDrillPart(input: {
      workflowId: string;
      runId: string;
      batch: number;
      results: DrillResourceResult[];
    }): Promise<DrillFile> {
      return fileOf(input, `batch-${String(input.batch + 1).padStart(4, '0')}`, input.results);
    },

    /**
     * Reads every batch's part (a batch without one reports its resources failed, with the reason) and writes the
     * drill's report from them, as `writeDrillReport` does; announces drill.passed or drill.failed.
     */
    async writeDrillReportFromParts(input: {
      header: ReportHeader;
      resources: DrillFile;
      batches: BatchOutcome[];
      /** The drill's input, for its attestation's configuration digest (runs before it passed none). */
      drillInput?: unknown;
      rotation?: DrillRotation;
    }): Promise<DrillReportPaths & Notified & { summary: DrillSummary; timestamps?: ReportTimestamps }> {
      const results: DrillResourceResult[] = [];
      let selected: ResourceRef[] | undefined;
      for (const batch of [...input.batches].sort((a, b) => a.batch - b.batch)) {
        if (batch.part) {
          results.push(...(await readChecked<DrillResourceResult>(batch.part)));
          continue;
        }
        selected ??= await readChecked<ResourceRef>(input.resources);
        for (const resource of selected.slice(batch.offset, batch.offset + batch.count)) {
          results.push({
            resourceId: resource.id,
            resourceName: resource.resourceName,
            resourceType: resource.resourceType,
            snapshotReused: false,
            verdict: 'FAIL',
            reasons: [`not drilled: ${batch.error ?? 'its batch ended without results'}`],
          });
        }
      }
      const summary = summarize(results);
      const rotation = input.rotation ? { rotation: input.rotation } : {};
      const report: DrillReport = { ...input.header, resources: results, summary, ...rotation };
      const written = await writeReport(deps, report, true, input.drillInput);
      return { ...written, summary };
    },
  };
}
