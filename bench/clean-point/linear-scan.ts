// The baseline: a scan from the newest snapshot that checks one point after the other until one passes. Each point
// is checked by the runbook's own activity (run outside any workflow), so a point costs the scan what it costs the
// search.
import { MockActivityEnvironment } from '@temporalio/testing';
import type { BackupServiceClient } from '../../api';
import { cleanPointActivities } from '../../runbooks/clean-point/activities';
import type { CleanCheck } from '../../runbooks/clean-point/check';

export interface ScanResult {
  /** The first point that passed, or 'none'. */
  clean: number | 'none';
  /** Queries run: the check's queries on each point checked. */
  queries: number;
}

export async function linearScan(
  client: BackupServiceClient,
  snapshotIds: readonly string[],
  check: CleanCheck,
  restoreAccountId: string,
): Promise<ScanResult> {
  const activities = cleanPointActivities({ client });
  type Point = Awaited<ReturnType<typeof activities.checkRecoveryPoint>>;
  let queries = 0;
  for (const [index, snapshotId] of snapshotIds.entries()) {
    // In an activity context of its own, as a worker would run it.
    const point = await new MockActivityEnvironment().run<[], Point, () => Promise<Point>>(() =>
      activities.checkRecoveryPoint({ snapshotId, check, restoreAccountId }),
    );
    queries += point.queries.length;
    if (point.verdict === 'pass') return { clean: index, queries };
  }
  return { clean: 'none', queries };
}
