import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { activityInfo } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../../contracts';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { writeFileAtomic } from '../../runtime/atomic-file';
import { runUri, writeAttestations } from '../../runtime/evidence-attestation';
import { sealReport } from '../../runtime/evidence-seal';
import { stampSealedReport, type ReportTimestamps } from '../../runtime/evidence-stamps';
import { exportPath } from '../../runtime/export-file';
import { calling } from '../../runtime/failures';
import { capturedAt, newestFirst, snapshotsInWindow } from '../../steps/snapshot-window';
import { resolveSelection, type DrillSelection } from '../dr-drill/activities';
import { canonicalCheck } from '../clean-point/check';
import { PLAN_ATTESTATION_FILES, planStatements } from './attestations';
import type { CommonPoint, PlanReport, PlanReportPaths } from './contract';
import { recordPlan } from './metrics';
import type { RecoveryPlan } from './plan';
import { renderPlanHtml } from './render-html';
import { renderPlanMarkdown } from './render-markdown';
import { PLAN_REPORT_SCHEMA_VERSION, planReportBaseName } from './report-version';

/** A resource a restore step restores, with the point chosen for it. */
export interface PlanResource {
  stepId: string;
  resourceId: string;
  resourceName: string;
  resourceType: string;
  snapshotId: string;
  pointInTime: string;
}

export interface PlanPointsInput {
  restores: {
    stepId: string;
    resource: { id: string } | { filters: DrillSelection['filters']; maxResources: number };
  }[];
  target: string;
  maxSkewMinutes: number;
  windowDays: number;
}

export function recoveryPlanActivities(
  deps: Pick<ActivityDeps, 'client' | 'outputDir' | 'evidenceKey' | 'timestampAuthority'>,
) {
  const { client } = deps;
  return {
    /**
     * Resolves every restore step's resources and chooses one common point for them all: with a time, each resource's
     * newest snapshot at or before it; with `latest`, the oldest of the resources' newest points, each resource taking
     * its snapshot nearest to it (no resource can come back to a later moment than its newest, so the skew is as small
     * as the snapshots allow). Refuses, restoring nothing, a resource with no snapshot in the window, or a skew over
     * the bound, naming the resources.
     */
    async choosePlanPoints(
      input: PlanPointsInput,
    ): Promise<{ resources: PlanResource[]; commonPoint: CommonPoint; serviceNow: string }> {
      const attempt = activityInfo().attempt;
      // `latest` looks up to now on the service's clock (the snapshots' times are on it), a second ahead so that a
      // snapshot of this second is in.
      // A time: the window ends just after it, so that a snapshot of that very moment is in ("at or before").
      const windowEnd = () =>
        new Date(input.target === 'latest' ? client.serviceNow() + 1000 : Date.parse(input.target) + 1).toISOString();
      const chosen: (PlanResource & { newestFirst: { id: string; at: string }[] })[] = [];
      for (const { stepId, resource } of input.restores) {
        for (const r of await resourcesOfStep(client, stepId, resource)) {
          const before = windowEnd();
          const snapshots = await calling(attempt, async () => {
            const all = [];
            for await (const s of snapshotsInWindow(client, {
              resourceId: r.id,
              windowDays: input.windowDays,
              before,
            })) {
              all.push(s);
            }
            return all.sort(newestFirst).map((s) => ({ id: s.id, at: capturedAt(s) }));
          });
          const newest = snapshots[0];
          if (!newest) {
            refuse(
              `step ${stepId}: resource ${r.id} (${r.resourceName}) has no snapshot in the ${input.windowDays} days ` +
                `before ${before}`,
            );
          }
          chosen.push({
            stepId,
            resourceId: r.id,
            resourceName: r.resourceName,
            resourceType: r.resourceType,
            snapshotId: newest.id,
            pointInTime: newest.at,
            newestFirst: snapshots,
          });
        }
      }
      const at =
        input.target === 'latest'
          ? new Date(Math.min(...chosen.map((c) => Date.parse(c.pointInTime)))).toISOString()
          : input.target;
      for (const c of chosen) {
        const point =
          input.target === 'latest'
            ? nearest(c.newestFirst, at)
            : c.newestFirst.find((s) => Date.parse(s.at) <= Date.parse(at));
        if (!point) refuse(`step ${c.stepId}: resource ${c.resourceId} has no snapshot at or before ${at}`);
        c.snapshotId = point.id;
        c.pointInTime = point.at;
      }
      const times = chosen.map((c) => Date.parse(c.pointInTime));
      const skewSeconds = (Math.max(...times) - Math.min(...times)) / 1000;
      const maxSkewSeconds = input.maxSkewMinutes * 60;
      if (skewSeconds > maxSkewSeconds) {
        const byTime = [...chosen].sort((a, b) => Date.parse(a.pointInTime) - Date.parse(b.pointInTime));
        const oldest = byTime[0];
        const newest = byTime.at(-1);
        refuse(
          `the points chosen are ${Math.round(skewSeconds / 60)} min apart, over maxSkewMinutes ` +
            `(${input.maxSkewMinutes}): ${oldest?.resourceId} (step ${oldest?.stepId}) at ${oldest?.pointInTime}, ` +
            `${newest?.resourceId} (step ${newest?.stepId}) at ${newest?.pointInTime}; nothing was restored`,
          { skewSeconds, maxSkewSeconds, resources: byTime.map((c) => [c.resourceId, c.pointInTime]) },
        );
      }
      const resources = chosen.map(({ newestFirst: _, ...c }) => c);
      return {
        serviceNow: new Date(client.serviceNow()).toISOString(),
        resources,
        commonPoint: {
          target: input.target,
          at,
          skewSeconds,
          maxSkewSeconds,
          resources: resources.map(({ resourceId, stepId, snapshotId, pointInTime }) => ({
            resourceId,
            stepId,
            snapshotId,
            pointInTime,
          })),
        },
      };
    },

    /**
     * The resources of these restore steps, as the inventory has them now (what `latest-clean` searches), and the
     * service's time, a second ahead: the searches' windows end there, on the clock of the snapshots' times.
     */
    async planStepResources(
      input: Pick<PlanPointsInput, 'restores'>,
    ): Promise<{ resources: { stepId: string; resourceId: string }[]; serviceNow: string }> {
      const resources = [];
      for (const { stepId, resource } of input.restores) {
        for (const r of await resourcesOfStep(client, stepId, resource)) resources.push({ stepId, resourceId: r.id });
      }
      return { resources, serviceNow: new Date(client.serviceNow() + 1000).toISOString() };
    },

    /** The sha256 of the plan's canonical JSON (keys sorted): what the report says ran. */
    async planDigest(input: { plan: RecoveryPlan }): Promise<string> {
      return createHash('sha256').update(canonicalCheck(input.plan)).digest('hex');
    },

    /**
     * Writes the plan's report as JSON, Markdown and HTML, each atomically, with its in-toto attestations, and seals
     * them all into the plan's chain; with a time-stamping authority, asks it once for the seal's and attestations'
     * tokens, as a drill's report activity does (what is still missing is in `timestamps.pending`).
     */
    async writePlanReport(input: {
      report: Omit<PlanReport, 'schemaVersion'>;
    }): Promise<PlanReportPaths & { timestamps?: ReportTimestamps }> {
      const report: PlanReport = { schemaVersion: PLAN_REPORT_SCHEMA_VERSION, ...input.report };
      const base = planReportBaseName(report);
      const path = (ext: string) => exportPath(deps.outputDir, 'plan-reports', `${base}.${ext}`);
      const paths = { json: path('json'), markdown: path('md'), html: path('html') };
      await mkdir(join(deps.outputDir, 'plan-reports'), { recursive: true });
      await writeFileAtomic(paths.json, JSON.stringify(report, null, 2) + '\n');
      await writeFileAtomic(paths.markdown, renderPlanMarkdown(report));
      await writeFileAtomic(paths.html, renderPlanHtml(report));
      // The report's in-toto attestations beside it (`cosign verify-blob-attestation` checks them against its JSON).
      const statements = planStatements({
        report,
        reportFile: basename(paths.json),
        reportBytes: await readFile(paths.json),
        runUrl: runUri(activityInfo().workflowNamespace ?? 'default', report.workflowId, report.runId),
      });
      await writeAttestations(deps.evidenceKey, paths.json, {
        [PLAN_ATTESTATION_FILES.testResult]: statements.testResult,
        [PLAN_ATTESTATION_FILES.plan]: statements.plan,
      });
      // Last, once every file is written: the seal covers them all and links the report into its plan's chain.
      const dir = dirname(paths.json);
      const seal = await sealReport(deps.evidenceKey, {
        dir,
        baseName: basename(paths.json, '.json'),
        chain: `plan:${report.name}`,
        workflowId: report.workflowId,
        runId: report.runId,
      });
      const timestamps =
        deps.timestampAuthority && (await stampSealedReport(deps.timestampAuthority, dir, seal, 'plan-reports'));
      // Once sealed: the dashboard shows only what a sealed report says.
      recordPlan(report);
      return { ...paths, ...(timestamps ? { timestamps } : {}) };
    },
  };
}

/** A restore step's resources: its one by ID, or its filters' matches; none refuses the plan, naming the step. */
async function resourcesOfStep(
  client: ActivityDeps['client'],
  stepId: string,
  resource: PlanPointsInput['restores'][number]['resource'],
) {
  const selection: DrillSelection = 'id' in resource ? { ids: [resource.id] } : resource;
  const found = await resolveSelection(client, selection);
  if ('id' in resource && found.length === 0) refuse(`step ${stepId}: no resource ${resource.id} in the inventory`);
  if (found.length === 0) refuse(`step ${stepId}: its filters match no resource`);
  return found;
}

/** The snapshot nearest to `at`; of two as near, the older. */
function nearest(snapshots: { id: string; at: string }[], at: string): { id: string; at: string } | undefined {
  const distance = (s: { at: string }) => Math.abs(Date.parse(s.at) - Date.parse(at));
  let best: { id: string; at: string } | undefined;
  for (const s of snapshots) {
    if (
      !best ||
      distance(s) < distance(best) ||
      (distance(s) === distance(best) && Date.parse(s.at) < Date.parse(best.at))
    )
      best = s;
  }
  return best;
}

/** No common point: a finding about the backups, not worth a retry. */
function refuse(message: string, details?: Record<string, unknown>): never {
  throw ApplicationFailure.create({
    type: FailureType.NoCommonPoint,
    nonRetryable: true,
    message,
    ...(details ? { details: [details] } : {}),
  });
}

export type RecoveryPlanActivities = ReturnType<typeof recoveryPlanActivities>;
