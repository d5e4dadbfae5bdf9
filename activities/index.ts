import { accountActivities } from './accounts';
import { approvalActivities } from './approvals';
import { credentialActivities } from './credentials';
import type { ActivityDeps } from './deps';
import { exportActivities } from './exports';
import { keptAlive } from './heartbeat';
import { inventoryActivities } from './inventory';
import { jobActivities } from './jobs';
import { queryActivities } from './queries';
import { reportActivities } from './reports';

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
export type { ActivityDeps } from './deps';
export type { JobSummary, StartRestoreResult } from './jobs';
export type { ApprovalState } from './approvals';
export type { ExportSummary } from './export-file';
