import { accountActivities } from './offboard-source-account/activities';
import { approvalActivities } from '../steps/approvals';
import { credentialActivities } from './rotate-credentials/activities';
import type { ActivityDeps } from '../runtime/activity-deps';
import { exportActivities } from './query-export/activities';
import { keptAlive } from '../runtime/heartbeat';
import { inventoryActivities } from './dr-drill/activities';
import { jobActivities } from '../steps/jobs';
import { queryActivities } from '../steps/queries';
import { reportActivities } from './dr-drill/report-file';

/** Every activity of the runbooks, bound to the worker's client and output directory. */
export function createActivities(deps: ActivityDeps) {
  return keptAlive({
    ...jobActivities(deps),
    ...approvalActivities(deps),
    ...inventoryActivities(deps),
    ...queryActivities(deps),
    ...exportActivities(deps),
    ...reportActivities(deps),
    ...credentialActivities(deps),
    ...accountActivities(deps),
  });
}

export type Activities = ReturnType<typeof createActivities>;
export type { ActivityDeps } from '../runtime/activity-deps';
export type { JobSummary, StartRestoreResult } from '../steps/jobs';
export type { ApprovalState } from '../steps/approvals';
export type { ExportSummary } from '../runtime/export-file';
