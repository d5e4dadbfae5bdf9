import { workflowInfo } from '@temporalio/workflow';
import { heartbeatingCalls, serviceCalls } from '../../runtime/calls';
import { RunbookTracker, parseInput } from '../../runtime/tracker';
import type { Activities } from '../activities';
import type { PostureScanInput } from './activities';
import { PostureReportInput } from './contract';
import { emptyCounts, mergeCounts, type PostureReportResult } from './report';

const heartbeating = heartbeatingCalls<Activities>();
const service = serviceCalls<Activities>();

/**
 * Summarises the inventory's backup posture and lists what is unprotected or has no recent snapshot, as CSV and HTML
 * files. One activity per inventory page: each returns only counts and file offsets, so rows never enter history and
 * the status query shows progress page by page.
 */
export async function postureReport(raw: PostureReportInput): Promise<PostureReportResult> {
  const input = parseInput(PostureReportInput, raw);
  const tracker = new RunbookTracker('postureReport');
  const base = workflowInfo().workflowId;
  const scan: PostureScanInput = {
    base,
    filters: input.filters,
    protectedStatuses: input.protectedStatuses,
    maxSnapshotAgeHours: input.maxSnapshotAgeHours,
    pageSize: input.pageSize,
  };

  tracker.phase('scanning inventory', { detail: `snapshots older than ${input.maxSnapshotAgeHours} h count as stale` });
  let counts = emptyCounts();
  let resources = 0;
  let unprotected = 0;
  let stale = 0;
  let page = await heartbeating.scanPosturePage(scan);
  for (;;) {
    counts = mergeCounts(counts, page.counts);
    resources += page.resources;
    unprotected += page.unprotected;
    stale += page.stale;
    tracker.progress(resources, Math.max(resources, page.total ?? resources), 'resources');
    if (page.nextToken === null) break;
    page = await heartbeating.scanPosturePage({
      ...scan,
      pageToken: page.nextToken,
      offsets: page.offsets,
      asOf: page.asOf,
    });
  }

  tracker.phase('writing report');
  const summary = {
    asOf: page.asOf,
    cutoff: page.cutoff,
    maxSnapshotAgeHours: input.maxSnapshotAgeHours,
    resources,
    counts,
    unprotected,
    stale,
  };
  const files = await service.writePostureFiles({ base, offsets: page.offsets, summary, filters: input.filters });
  tracker.phase('completed', {
    progress: { done: resources, total: resources, unit: 'resources' },
    detail: `${resources} resources: ${unprotected} unprotected, ${stale} without a recent snapshot; ${files.html.path}`,
  });
  return { ...summary, files };
}
