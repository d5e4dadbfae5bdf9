import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { activityInfo } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { collect, type InventoryResource, type ResourceFilters } from '../../api';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { FailureType, type Notified } from '../../contracts';
import { notifyFromActivity } from '../../steps/notifications';
import { writeFileAtomic } from '../../runtime/atomic-file';
import { calling } from '../../runtime/failures';
import { runUri, writeAttestations } from '../../runtime/evidence-attestation';
import { sealReport } from '../../runtime/evidence-seal';
import { stampSealedReport, type ReportTimestamps } from '../../runtime/evidence-stamps';
import { exportPath } from '../../runtime/export-file';
import { ATTESTATION_FILES, drillStatements } from './attestations';
import { MAX_DRILL_RESOURCES } from './contract';
import { recordDrill } from './metrics';
import { renderHtml } from './render-html';
import { renderMarkdown } from './render-markdown';
import { isSelection, type Selection } from './selection';
import { listSelected } from './selection-listing';
import { DRILL_REPORT_SCHEMA_VERSION, type DrillReport, type DrillReportPaths } from './report';

/** The little a runbook needs to know of a resource; whole records stay out of history. */
export interface ResourceRef {
  id: string;
  providerResourceId: string;
  resourceName: string;
  resourceType: string;
  region: string;
}

export interface SnapshotRef {
  id: string;
  pointInTime: string;
  vaultId?: string;
}

export function drillActivities(deps: ActivityDeps) {
  const { client } = deps;
  return {
    /**
     * Resolves a drill's selection (IDs, inventory filters, or conditions) to resources, in a stable order; see
     * `resolveSelection`.
     */
    async resolveResources(selection: DrillSelection): Promise<ResourceRef[]> {
      return resolveSelection(client, selection);
    },

    /** The newest snapshot of a resource taken at or after `notBefore`, if any. */
    async latestSnapshot(input: { resourceId: string; notBefore: string }): Promise<SnapshotRef | undefined> {
      const page = await calling(activityInfo().attempt, () =>
        client.listSnapshotsPage(
          input.resourceId,
          {
            filters: { pointInTime: { startDate: input.notBefore.slice(0, 10) } },
            sorts: [{ field: 'pointInTime', order: 'DESC' }],
          },
          { pageSize: 1 },
        ),
      );
      const newest = page.snapshots[0];
      if (!newest?.pointInTime || Date.parse(newest.pointInTime) < Date.parse(input.notBefore)) return undefined;
      return { id: newest.id, pointInTime: newest.pointInTime, vaultId: newest.vaultId };
    },

    /**
     * The newest snapshot whose point in time is before `before`: the restore point a disaster at that moment would
     * have had. Snapshots taken since (the drill's own among them) are skipped.
     */
    async newestSnapshotBefore(input: { resourceId: string; before: string }): Promise<SnapshotRef | undefined> {
      const before = Date.parse(input.before);
      const listing = {
        filters: { pointInTime: { endDate: input.before.slice(0, 10) } },
        sorts: [{ field: 'pointInTime' as const, order: 'DESC' as const }],
      };
      return calling(activityInfo().attempt, async () => {
        for await (const s of client.listSnapshots(input.resourceId, listing, { pageSize: 20 })) {
          if (s.pointInTime && Date.parse(s.pointInTime) < before) {
            return { id: s.id, pointInTime: s.pointInTime, vaultId: s.vaultId };
          }
        }
        return undefined;
      });
    },

    /**
     * Writes the drill's evidence as JSON (for machines), Markdown and an HTML page (for people), each atomically, and
     * seals it; then sets the drill's metrics from it (./metrics.ts); with `announce`, sends drill.passed or
     * drill.failed. The files are named for the run (`reportBaseName`), so that a rerun under the same workflow ID keeps
     * the earlier run's evidence.
     */
    async writeDrillReport(input: {
      report: DrillReport;
      /** Passed by runs recorded before the files were named per run; the name comes from the report's run now. */
      baseName?: string;
      announce?: boolean;
    }): Promise<DrillReportPaths & Notified & { timestamps?: ReportTimestamps }> {
      return writeReport(deps, input.report, input.announce ?? false);
    },
  };
}

export type DrillSelection = { ids?: string[]; filters?: ResourceFilters; maxResources?: number } & Selection;

/**
 * Resolves a drill's selection (IDs, inventory filters, or a selection by conditions: ./selection.ts) to resources, in
 * a stable order: by name for IDs and filters, as always; by ID for a selection. A selection by filters or conditions
 * that matches more than `maxResources` is refused whole, before anything is taken: drilling the first few of a loose
 * filter would look like a complete drill. Called at each run of a drill, so that a selection follows the inventory.
 */
export async function resolveSelection(client: ActivityDeps['client'], selection: DrillSelection) {
  const attempt = activityInfo().attempt;
  if (isSelection(selection)) return refsOf(await resolveConditions(client, selection, attempt));
  const filters: ResourceFilters = selection.ids ? { id: { in: selection.ids } } : (selection.filters ?? {});
  const found = await calling(attempt, () =>
    collect(client.listResources({ filters, sorts: [{ field: 'resourceName', order: 'ASC' }] }, { pageSize: 100 })),
  );
  const bound = Math.min(selection.maxResources ?? MAX_DRILL_RESOURCES, MAX_DRILL_RESOURCES);
  if (found.length > bound) {
    throw ApplicationFailure.create({
      type: FailureType.InvalidInput,
      nonRetryable: true,
      message:
        `invalid input resources.maxResources: the filters match ${found.length} resources, more than ` +
        `maxResources (${bound}); nothing was taken. Narrow resources.filters, or raise resources.maxResources ` +
        `(at most ${MAX_DRILL_RESOURCES}) to drill them all`,
      details: [{ field: 'resources.maxResources', matched: found.length, maxResources: bound }],
    });
  }
  return refsOf(found);
}

/**
 * A selection by conditions against the inventory as it is now: the resources its conditions take (listed with the
 * inventory filters that say part of them, `serverFiltersOf`, and decided here by `selectIds`), with its includes
 * that exist, less its excludes, sorted by ID so that every attempt resolves the same list.
 */
async function resolveConditions(
  client: ActivityDeps['client'],
  selection: DrillSelection,
  attempt: number,
): Promise<InventoryResource[]> {
  const selected = await listSelected(client, selection, (list) => calling(attempt, list));
  const bound = Math.min(selection.maxResources ?? MAX_DRILL_RESOURCES, MAX_DRILL_RESOURCES);
  if (selected.length > bound) throw tooMany(selected.length, bound);
  return selected;
}

/** The refusal of a selection that takes more than its bound. */
function tooMany(matched: number, bound: number) {
  return ApplicationFailure.create({
    type: FailureType.InvalidInput,
    nonRetryable: true,
    message:
      `invalid input resources.maxResources: the selection takes ${matched} resources, more than ` +
      `maxResources (${bound}); nothing was taken. Narrow the selection (its conditions, or exclude), or raise ` +
      `resources.maxResources (at most ${MAX_DRILL_RESOURCES}) to drill them all`,
    details: [{ field: 'resources.maxResources', matched, maxResources: bound }],
  });
}

const refsOf = (found: readonly InventoryResource[]) =>
  found.map((r): ResourceRef => ({
    id: r.id,
    providerResourceId: r.providerResourceId,
    resourceName: r.resourceName,
    resourceType: r.resourceType,
    region: r.region,
  }));

/**
 * Writes a drill's evidence as JSON (for machines), Markdown and an HTML page (for people), each atomically, and seals
 * it; then sets the drill's metrics from it (./metrics.ts); with `announce`, sends drill.passed or drill.failed.
 */
export async function writeReport(
  deps: Pick<ActivityDeps, 'outputDir' | 'evidenceKey' | 'webhooks' | 'timestampAuthority'>,
  given: DrillReport,
  announce: boolean,
  input?: unknown,
): Promise<DrillReportPaths & Notified & { timestamps?: ReportTimestamps }> {
  const { outputDir, evidenceKey, webhooks } = deps;
  const report: DrillReport = { schemaVersion: DRILL_REPORT_SCHEMA_VERSION, ...given };
  const base = reportBaseName(report);
  const path = (ext: string) => exportPath(outputDir, 'drill-reports', `${base}.${ext}`);
  const paths = { json: path('json'), markdown: path('md'), html: path('html') };
  await mkdir(join(outputDir, 'drill-reports'), { recursive: true });
  await writeFileAtomic(paths.json, JSON.stringify(report, null, 2) + '\n');
  await writeFileAtomic(paths.markdown, renderMarkdown(report));
  await writeFileAtomic(paths.html, renderHtml(report));
  // The report's in-toto attestations beside it (`cosign verify-blob-attestation` checks them against its JSON).
  const statements = drillStatements({
    report,
    reportFile: basename(paths.json),
    reportBytes: await readFile(paths.json),
    input,
    runUrl: runUri(activityInfo().workflowNamespace ?? 'default', report.workflowId, report.runId),
  });
  await writeAttestations(evidenceKey, paths.json, {
    [ATTESTATION_FILES.testResult]: statements.testResult,
    [ATTESTATION_FILES.drill]: statements.drill,
  });
  // Last, once every file is written: the seal covers them all and links the report into its drill's chain.
  const dir = dirname(paths.json);
  const seal = await sealReport(evidenceKey, { dir, baseName: basename(paths.json, '.json'), ...chainOf(report) });
  // Asked once and briefly; what is still missing goes to a run of its own (./timestamps.ts).
  const timestamps = deps.timestampAuthority && (await stampSealedReport(deps.timestampAuthority, dir, seal));
  recordDrill(report);
  const written = { ...paths, ...(timestamps ? { timestamps } : {}) };
  if (!announce) return written;
  const { summary, name } = report;
  const event = summary.verdict === 'PASS' ? ('drill.passed' as const) : ('drill.failed' as const);
  const data = { name, ...summary, report: paths };
  return { ...written, notified: await notifyFromActivity(webhooks, { event, data }) };
}

const chainOf = ({ name, workflowId, runId }: DrillReport) => ({ chain: name, workflowId, runId });

/** Room left in a file name (255 bytes) for the run ID, the separator and the longest suffix (`.seal.json`). */
const MAX_WORKFLOW_PART = 180;

/**
 * The base name of a run's report files: `<workflowId>--<runId>`, with characters a file name cannot hold as `_`
 * (see `exportPath`). The run ID is unique, so two runs never share files, whatever their workflow ID. A workflow ID
 * too long for a file name is cut, with a hash of the whole so that two long IDs stay apart.
 */
export function reportBaseName({ workflowId, runId }: Pick<DrillReport, 'workflowId' | 'runId'>): string {
  const workflowPart =
    workflowId.length <= MAX_WORKFLOW_PART
      ? workflowId
      : `${workflowId.slice(0, MAX_WORKFLOW_PART - 17)}-${createHash('sha256').update(workflowId).digest('hex').slice(0, 16)}`;
  return `${workflowPart}--${runId}`.replace(/[^A-Za-z0-9._-]/g, '_');
}
