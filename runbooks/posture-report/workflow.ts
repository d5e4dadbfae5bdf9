import { continueAsNew, patched, workflowInfo } from '@temporalio/workflow';
import { heartbeatingCalls, serviceCalls } from '../../runtime/calls';
import { RunbookTracker, parseInput } from '../../runtime/tracker';
import type { Activities } from '../activities';
import type { PostureScanInput } from './activities';
import { PostureReportInput, postureReportContract } from './contract';
import { emptyCounts, mergeCounts, type PostureCounts, type PostureOffsets, type PostureReportResult } from './report';

const heartbeating = heartbeatingCalls<Activities>();
const service = serviceCalls<Activities>();

/**
 * Pages one run scans before it continues as new. A page costs six events (its activity's three and a workflow
 * task's three), so a run's history stays under about 140 events however large the inventory is.
 */
export const PAGES_PER_RUN = 20;
/** The patch that continues a long scan as new: runs that scanned past that many pages before it go on as they ran. */
export const POSTURE_CONTINUE_AS_NEW = 'posture-continue-as-new';

/** What a run hands to the next one: where the scan stands and what it has counted so far. */
export interface PostureScanCarried {
  pageToken: string;
  offsets: PostureOffsets;
  asOf: string;
  counts: PostureCounts;
  resources: number;
  unprotected: number;
  stale: number;
}

/**
 * Summarises the inventory's backup posture and lists what is unprotected or has no recent snapshot, as CSV and HTML
 * files. One activity per inventory page: each returns only counts and file offsets, so rows never enter history and
 * the status query shows progress page by page. Every `PAGES_PER_RUN` pages the run continues as new with what it has
 * counted (`carried`), so that the history of each run stays bounded.
 */
export async function postureReport(
  raw: PostureReportInput,
  carried?: PostureScanCarried,
): Promise<PostureReportResult> {
  const input = parseInput(PostureReportInput, raw);
  const tracker = new RunbookTracker(postureReportContract);
  const scan = scanInputOf(input);

  tracker.phase('scanning inventory', { detail: `snapshots older than ${input.maxSnapshotAgeHours} h count as stale` });
  const totals: PostureTotals = {
    counts: carried?.counts ?? emptyCounts(),
    resources: carried?.resources ?? 0,
    unprotected: carried?.unprotected ?? 0,
    stale: carried?.stale ?? 0,
  };
  let pages = 0;
  let page = await heartbeating.scanPosturePage(
    carried ? { ...scan, pageToken: carried.pageToken, offsets: carried.offsets, asOf: carried.asOf } : scan,
  );
  for (;;) {
    pages += 1;
    addPage(totals, page);
    tracker.progress(totals.resources, Math.max(totals.resources, page.total ?? totals.resources), 'resources');
    if (page.nextToken === null) break;
    if (pages >= PAGES_PER_RUN && patched(POSTURE_CONTINUE_AS_NEW)) {
      await continueAsNew<typeof postureReport>(raw, {
        pageToken: page.nextToken,
        offsets: page.offsets,
        asOf: page.asOf,
        ...totals,
      });
    }
    page = await heartbeating.scanPosturePage({
      ...scan,
      pageToken: page.nextToken,
      offsets: page.offsets,
      asOf: page.asOf,
    });
  }

  tracker.phase('writing report');
  const summary = summaryOf(input, page, totals);
  const files = await service.writePostureFiles({
    base: scan.base,
    run: scan.run,
    offsets: page.offsets,
    summary,
    filters: input.filters,
  });
  const { resources, unprotected, stale } = totals;
  tracker.phase('completed', {
    progress: { done: resources, total: resources, unit: 'resources' },
    detail: `${resources} resources: ${unprotected} unprotected, ${stale} without a recent snapshot; ${files.html.path}`,
  });
  return { ...summary, files };
}

type PostureInput = ReturnType<typeof parseInput<typeof PostureReportInput>>;
type PostureScanPage = Awaited<ReturnType<Activities['scanPosturePage']>>;

/** What the scan has counted so far, over this run's pages and those of the runs before it. */
type PostureTotals = Pick<PostureScanCarried, 'counts' | 'resources' | 'unprotected' | 'stale'>;

/** What every page's activity is given, besides where the scan stands. */
function scanInputOf(input: PostureInput): PostureScanInput {
  return {
    base: workflowInfo().workflowId,
    // The partial files belong to the whole chain of runs: the first run's ID names them.
    run: workflowInfo().firstExecutionRunId,
    filters: input.filters,
    protectedStatuses: input.protectedStatuses,
    maxSnapshotAgeHours: input.maxSnapshotAgeHours,
    pageSize: input.pageSize,
  };
}

function addPage(totals: PostureTotals, page: PostureScanPage): void {
  totals.counts = mergeCounts(totals.counts, page.counts);
  totals.resources += page.resources;
  totals.unprotected += page.unprotected;
  totals.stale += page.stale;
}

function summaryOf(input: PostureInput, page: PostureScanPage, totals: PostureTotals) {
  return {
    asOf: page.asOf,
    cutoff: page.cutoff,
    maxSnapshotAgeHours: input.maxSnapshotAgeHours,
    resources: totals.resources,
    counts: totals.counts,
    unprotected: totals.unprotected,
    stale: totals.stale,
  };
}
