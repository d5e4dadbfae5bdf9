import { activityInfo, Context } from '@temporalio/activity';
import { mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { NotFoundError, type InventoryResource, type ResourceFilters } from '../../api';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { renameDurably } from '../../runtime/atomic-file';
import { csvRecord } from '../../runtime/csv';
import { exportPath } from '../../runtime/export-file';
import { calling, toFailure } from '../../runtime/failures';
import { reportBaseName } from '../dr-drill/activities';
import { allExist, appendAt, describe, finish, STALE_ROWS, UNPROTECTED_ROWS, writeHtml } from './files';
import { page, section, table, tableRow } from './html';
import {
  emptyCounts,
  countValue,
  mergeCounts,
  NO_ENVIRONMENT,
  POSTURE_DIMENSIONS,
  type PostureCounts,
  type PostureOffsets,
  type PostureReportResult,
} from './report';

/** The resource's own columns, first in both CSVs: the scanned resource's fields and its environment. */
const RESOURCE_COLUMNS = ['id', 'resourceName', 'resourceType', 'cloudProvider', 'region', 'environment'] as const;

export const UNPROTECTED_COLUMNS = [...RESOURCE_COLUMNS, 'providerAccountId', 'backupStatus'] as const;

export const STALE_COLUMNS = [
  ...RESOURCE_COLUMNS,
  'backupStatus',
  'newestSnapshotId',
  'newestSnapshotTime',
  'ageHours',
] as const;

const FOLDER = 'posture-reports';
/** Snapshot look-ups in flight at once: one page's worth finishes in a few round trips without flooding the service. */
const SNAPSHOT_CONCURRENCY = 8;
const HOUR_MS = 3_600_000;

export interface PostureScanInput {
  /** Names the files: `<base>-unprotected.csv`, `<base>-stale.csv`, `<base>.html`. */
  base: string;
  /** Names the partial files: the first run of the report's chain of runs (absent: this activity's run). */
  run?: string;
  filters?: ResourceFilters;
  protectedStatuses: string[];
  maxSnapshotAgeHours: number;
  pageSize: number;
  /** The page to scan; absent for the first. */
  pageToken?: string;
  /** Where the earlier pages ended; absent for the first page, which starts the files. */
  offsets?: PostureOffsets;
  /** Fixed by the first page, from the service's clock. */
  asOf?: string;
}

export interface PostureScanPage {
  nextToken: string | null;
  /** Resources the service says match, for progress. */
  total?: number;
  resources: number;
  unprotected: number;
  stale: number;
  counts: PostureCounts;
  offsets: PostureOffsets;
  asOf: string;
  cutoff: string;
}

export interface PostureWriteInput {
  base: string;
  run?: string;
  offsets: PostureOffsets;
  summary: Omit<PostureReportResult, 'files'>;
  filters?: ResourceFilters;
}

interface Newest {
  id?: string;
  time?: string;
}

/**
 * The files of a report: the final paths and the partial ones of this report's runs (retries and the runs it
 * continued as share them, other reports with the same workflow ID not). Final names are per run, as drill reports'
 * are (`reportBaseName`: the whole workflow ID and the first run's ID), so that two workflow IDs ending in the same
 * name (`team-a/weekly`, `team-b/weekly`) or two runs of one ID never replace each other's report. Partial names
 * keep their earlier form (they already hold the run ID), so that a run in flight across an upgrade finds them.
 */
export function filesOf(outputDir: string, base: string, run: string | undefined) {
  const runId = run ?? activityInfo().workflowExecution?.runId ?? activityInfo().activityId;
  // Never hidden: a leading dot would keep the report out of listings.
  const name = reportBaseName({ workflowId: base, runId }).replace(/^\./, '_');
  const final = {
    unprotectedCsv: exportPath(outputDir, FOLDER, `${name}-unprotected.csv`),
    staleCsv: exportPath(outputDir, FOLDER, `${name}-stale.csv`),
    html: exportPath(outputDir, FOLDER, `${name}.html`),
  };
  const partialOf = (suffix: string) => exportPath(outputDir, FOLDER, `${base}${suffix}`);
  return {
    run: runId,
    final,
    partial: {
      unprotectedCsv: `${partialOf('-unprotected.csv')}.${runId}.partial`,
      staleCsv: `${partialOf('-stale.csv')}.${runId}.partial`,
      unprotectedHtml: `${partialOf('.html')}.${runId}.unprotected.partial`,
      staleHtml: `${partialOf('.html')}.${runId}.stale.partial`,
    } satisfies Record<keyof PostureOffsets, string>,
  };
}

export function postureActivities({ client, outputDir }: ActivityDeps) {
  /** The newest snapshot of a resource: one page of one, newest first. A resource gone meanwhile has none. */
  async function newestSnapshot(resourceId: string, attempt: number): Promise<Newest> {
    try {
      const { snapshots } = await client.listSnapshotsPage(
        resourceId,
        { sorts: [{ field: 'pointInTime', order: 'DESC' }] },
        { pageSize: 1 },
      );
      const newest = snapshots[0];
      return newest ? { id: newest.id, time: newest.pointInTime ?? newest.createdTime } : {};
    } catch (err) {
      if (err instanceof NotFoundError) return {};
      throw toFailure(err, attempt);
    }
  }

  return {
    /**
     * Scans one inventory page: counts it, looks up each resource's newest snapshot and appends the unprotected and
     * stale rows to the partial files, from the offsets given (so that a retried page writes its rows once).
     */
    async scanPosturePage(input: PostureScanInput): Promise<PostureScanPage> {
      const attempt = activityInfo().attempt;
      const inventory = await calling(attempt, () =>
        client.listResourcesPage({ filters: input.filters }, { pageSize: input.pageSize, pageToken: input.pageToken }),
      );
      // The service's clock, not the worker's: ages are measured on the clock that stamped the snapshots.
      const asOf = input.asOf ?? new Date(client.serviceNow()).toISOString();
      const cutoffMs = Date.parse(asOf) - input.maxSnapshotAgeHours * HOUR_MS;
      const resources = inventory.resources;

      const newest = await mapLimited(resources, SNAPSHOT_CONCURRENCY, (r) => {
        Context.current().cancellationSignal.throwIfAborted();
        return newestSnapshot(r.id, attempt);
      });

      const counts = emptyCounts();
      const rows = { unprotectedCsv: '', staleCsv: '', unprotectedHtml: '', staleHtml: '' };
      let unprotected = 0;
      let stale = 0;
      resources.forEach((r, i) => {
        const environment = environmentOf(r);
        const values = { ...r, environment };
        for (const dimension of POSTURE_DIMENSIONS) {
          countValue(counts, dimension, String(values[dimension]));
        }
        if (!input.protectedStatuses.includes(r.backupStatus)) {
          unprotected += 1;
          const cells = UNPROTECTED_COLUMNS.map((c) => values[c]);
          rows.unprotectedCsv += csvRecord(cells);
          rows.unprotectedHtml += tableRow(cells);
        }
        const snap = newest[i] ?? {};
        const time = snap.time === undefined ? NaN : Date.parse(snap.time);
        if (!(time >= cutoffMs)) {
          stale += 1;
          const age = Number.isNaN(time) ? undefined : ((Date.parse(asOf) - time) / HOUR_MS).toFixed(2);
          const staleCells = [...RESOURCE_COLUMNS.map((c) => values[c]), r.backupStatus, snap.id, snap.time, age];
          rows.staleCsv += csvRecord(staleCells);
          rows.staleHtml += tableRow(staleCells);
        }
      });

      const files = filesOf(outputDir, input.base, input.run);
      const first = input.offsets === undefined;
      const from: PostureOffsets = input.offsets ?? {
        unprotectedCsv: 0,
        staleCsv: 0,
        unprotectedHtml: 0,
        staleHtml: 0,
      };
      if (first) {
        rows.unprotectedCsv = csvRecord(UNPROTECTED_COLUMNS) + rows.unprotectedCsv;
        rows.staleCsv = csvRecord(STALE_COLUMNS) + rows.staleCsv;
      }
      await mkdir(dirname(files.partial.unprotectedCsv), { recursive: true });
      const offsets = { ...from };
      for (const key of Object.keys(rows) as (keyof PostureOffsets)[]) {
        offsets[key] = from[key] + (await appendAt(files.partial[key], from[key], rows[key], first));
      }
      return {
        nextToken: inventory.nextToken || null,
        total: inventory.totalCount,
        resources: resources.length,
        unprotected,
        stale,
        counts: mergeCounts(emptyCounts(), counts),
        offsets,
        asOf,
        cutoff: new Date(cutoffMs).toISOString(),
      };
    },

    /**
     * Renders the HTML page from the row fragments and moves every file to its final name. A retry after some of it
     * was done finds the files already final and reports them.
     */
    async writePostureFiles(input: PostureWriteInput): Promise<PostureReportResult['files']> {
      const files = filesOf(outputDir, input.base, input.run);
      const fragments = [
        { path: files.partial.unprotectedHtml, bytes: input.offsets.unprotectedHtml },
        { path: files.partial.staleHtml, bytes: input.offsets.staleHtml },
      ];
      if (await allExist(fragments.map((f) => f.path))) {
        const html = `${files.final.html}.${files.run}.partial`;
        await writeHtml(html, renderReport(input, UNPROTECTED_ROWS, STALE_ROWS), fragments);
        await renameDurably(html, files.final.html);
      }
      await finish(files.partial.unprotectedCsv, files.final.unprotectedCsv, input.offsets.unprotectedCsv);
      await finish(files.partial.staleCsv, files.final.staleCsv, input.offsets.staleCsv);
      await rm(files.partial.unprotectedHtml, { force: true });
      await rm(files.partial.staleHtml, { force: true });
      const { unprotected, stale } = input.summary;
      return {
        unprotectedCsv: await describe(files.final.unprotectedCsv, unprotected),
        staleCsv: await describe(files.final.staleCsv, stale),
        html: await describe(files.final.html, unprotected + stale),
      };
    },
  };
}

function environmentOf(r: InventoryResource): string {
  return r.classifications?.environmentDetails?.environment ?? NO_ENVIRONMENT;
}

/** The page, with `unprotectedRows` and `staleRows` where the lists' rows go (nothing for an empty list). */
function renderReport(input: PostureWriteInput, unprotectedRows: string, staleRows: string): string {
  const s = input.summary;
  const rowsOr = (rows: string, bytes: number) => (bytes > 0 ? rows : '');
  const overview = table(
    ['', 'value'],
    [
      tableRow(['as of (service clock)', s.asOf]),
      tableRow(['resources', s.resources]),
      tableRow(['unprotected', s.unprotected]),
      tableRow([`no snapshot in the last ${s.maxSnapshotAgeHours} h (since ${s.cutoff})`, s.stale]),
      tableRow(['inventory filters', input.filters ? JSON.stringify(input.filters) : 'none']),
    ].join(''),
    '',
  );
  const countTables = POSTURE_DIMENSIONS.map((dimension) =>
    section(
      `By ${dimension}`,
      table(
        [dimension, 'resources'],
        Object.entries(s.counts[dimension])
          .map(([value, n]) => tableRow([value, n]))
          .join(''),
        'no resources',
      ),
    ),
  ).join('');
  return page(
    'Backup posture',
    section('Summary', overview) +
      countTables +
      section(
        'Unprotected resources',
        table(UNPROTECTED_COLUMNS, rowsOr(unprotectedRows, input.offsets.unprotectedHtml), 'none'),
      ) +
      section(
        `Resources with no snapshot newer than ${s.maxSnapshotAgeHours} h`,
        table(STALE_COLUMNS, rowsOr(staleRows, input.offsets.staleHtml), 'none'),
      ),
  );
}

/** `fn` over every item, at most `limit` at a time, results in the items' order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}
