// The evidence a rotating drill leaves behind, made the way the drill makes it: one sealed report a day, written by the
// drill's own report activity (`writeReport`), each of the resources the worker's reading of the reports before it
// picked (DrillReader, coverageByResource, nextToDrill), a few of them failing.
import { createHash } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { coverageByResource, DAY_MS } from '../../history/coverage';
import { DrillReader, type DrillEntry } from '../../history/drill-index';
import { nextToDrill, type RotationPick } from '../../history/rotation';
import { writeReport, type ResourceRef } from '../../runbooks/dr-drill/activities';
import type { DrillReport, DrillReportPaths, DrillResourceResult } from '../../runbooks/dr-drill/report';
import type { EvidenceKey } from '../../runtime/evidence-key';

export const DRILL_NAME = 'payments-rotation';
/** The drill's coverage period: every resource of its scope passes within it. */
export const WITHIN_DAYS = 90;
/** A run starts at 02:00 and takes 40 minutes. */
const START_OFFSET_MS = 2 * 3_600_000;
const RUN_MS = 40 * 60_000;
const TARGETS = { rpoSeconds: 86_400, rtoSeconds: 3_600 };

/** When the run of day `day` (0 the first) starts. */
export const runStart = (firstDayMs: number, day: number) => new Date(firstDayMs + day * DAY_MS + START_OFFSET_MS);

/** Whether a resource's drill on a day fails: about one in twenty, the same at every run of the benchmark. */
export function failsOn(resourceId: string, day: number): boolean {
  return createHash('sha256').update(`${resourceId}/${day}`).digest().readUInt16BE(0) % 20 === 0;
}

/** The next resources to drill as the worker chooses them: the folder's reports, their coverage, the rotation. */
export async function chooseNext(
  reader: DrillReader,
  scope: readonly string[],
  perRun: number,
  now: Date,
): Promise<{ picks: RotationPick[]; drills: DrillEntry[] }> {
  const { drills } = await reader.read();
  return { picks: pickFrom(drills, scope, perRun, now), drills };
}

/** The part of the choice that reads no file: coverage of the scope from the entries, and the rotation over it. */
export function pickFrom(drills: readonly DrillEntry[], scope: readonly string[], perRun: number, now: Date) {
  const coverage = coverageByResource(drills, { now, withinDays: WITHIN_DAYS, drill: DRILL_NAME, scope });
  return nextToDrill(coverage.resources, perRun);
}

function resultOf(resource: ResourceRef, day: number): DrillResourceResult {
  const base = {
    resourceId: resource.id,
    resourceName: resource.resourceName,
    resourceType: resource.resourceType,
    snapshotReused: false,
    rpoSeconds: 3_600 + (day % 12) * 300,
    rpoMet: true,
  };
  if (failsOn(resource.id, day)) {
    return { ...base, restoreStatus: 'JOB_FAILED', verdict: 'FAIL', reasons: ['the restore job failed'] };
  }
  const rtoSeconds = 600 + (day % 7) * 60;
  return { ...base, restoreStatus: 'JOB_COMPLETED', rtoSeconds, rtoMet: true, verdict: 'PASS', reasons: [] };
}

/** A day's report, with the rotation the drill records: its scope's size, the period and whom it picked, and why. */
function reportOf(
  day: number,
  start: Date,
  resources: readonly ResourceRef[],
  rotation: { scope: number; perRun: number; picked: RotationPick[] },
): DrillReport {
  const results = resources.map((r) => resultOf(r, day));
  const failed = results.filter((r) => r.verdict === 'FAIL').length;
  const date = start.toISOString().slice(0, 10);
  return {
    name: DRILL_NAME,
    workflowId: `drill-${DRILL_NAME}-${date}`,
    runId: `run-${String(day).padStart(3, '0')}`,
    startedAt: start.toISOString(),
    finishedAt: new Date(start.getTime() + RUN_MS).toISOString(),
    targets: TARGETS,
    resources: results,
    summary: {
      total: results.length,
      passed: results.length - failed,
      partial: 0,
      failed,
      verdict: failed > 0 ? 'FAIL' : 'PASS',
      worstRpoSeconds: Math.max(...results.map((r) => r.rpoSeconds ?? 0)),
      worstRtoSeconds: Math.max(...results.map((r) => r.rtoSeconds ?? 0)),
    },
    rotation: { ...rotation, withinDays: WITHIN_DAYS },
  };
}

/**
 * Writes `days` daily reports of a rotating drill over `scope`, each of the `perRun` resources the reports before it
 * made most due; one reader throughout, as a worker keeps one. Returns how many resource results were written.
 */
export async function writeRotationHistory(input: {
  outputDir: string;
  evidenceKey: EvidenceKey;
  scope: readonly ResourceRef[];
  days: number;
  perRun: number;
  firstDayMs: number;
}): Promise<{ results: number; failed: number }> {
  const { outputDir, evidenceKey, scope, days, perRun, firstDayMs } = input;
  const reader = new DrillReader({ outputDir });
  const byId = new Map(scope.map((r) => [r.id, r]));
  const ids = scope.map((r) => r.id);
  const env = new MockActivityEnvironment();
  let results = 0;
  let failed = 0;
  for (let day = 0; day < days; day++) {
    const start = runStart(firstDayMs, day);
    const { picks } = await chooseNext(reader, ids, perRun, start);
    const drilled = picks.flatMap((p) => byId.get(p.resourceId) ?? []);
    const report = reportOf(day, start, drilled, { scope: scope.length, perRun, picked: picks });
    await env.run<[], DrillReportPaths, () => Promise<DrillReportPaths>>(() =>
      writeReport({ outputDir, evidenceKey }, report, false),
    );
    results += report.summary.total;
    failed += report.summary.failed;
  }
  return { results, failed };
}
