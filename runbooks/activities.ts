import type { ActivityDeps } from '../runtime/activity-deps';
import { keptAlive } from '../runtime/heartbeat';
import { approvalActivities } from '../steps/approvals';
import { jobBatchActivities } from '../steps/job-batches';
import { jobActivities } from '../steps/jobs';
import { notificationActivities } from '../steps/notifications';
import { queryActivities } from '../steps/queries';
import { cleanPointActivities } from './clean-point/activities';
import { costExportActivities } from './cost-export/activities';
import { drillActivities } from './dr-drill/activities';
import { drillPartActivities } from './dr-drill/parts';
import { recoveryPointActivities } from './dr-drill/recovery-points';
import { timestampActivities } from './dr-drill/timestamp-activities';
import { accountActivities } from './offboard-source-account/activities';
import { postureActivities } from './posture-report/activities';
import { queryExportActivities } from './query-export/activities';
import { recoveryPlanActivities } from './recovery-plan/activities';
import { planRestoreActivities } from './recovery-plan/restore-runs';
import { credentialActivities } from './rotate-credentials/activities';
import { snapshotSlotActivities } from './snapshot-slots/activities';

/** Every activity of the runbooks, bound to the worker's client and output directory. */
export function createActivities(deps: ActivityDeps) {
  return keptAlive({
    ...jobActivities(deps),
    ...jobBatchActivities(deps),
    ...approvalActivities(deps),
    ...queryActivities(deps),
    ...drillActivities(deps),
    ...drillPartActivities(deps),
    ...recoveryPointActivities(deps),
    ...cleanPointActivities(deps),
    ...timestampActivities(deps),
    ...queryExportActivities(deps),
    ...costExportActivities(deps),
    ...credentialActivities(deps),
    ...accountActivities(deps),
    ...postureActivities(deps),
    ...notificationActivities(deps),
    ...snapshotSlotActivities(deps),
    ...recoveryPlanActivities(deps),
    ...planRestoreActivities(),
  });
}

export type Activities = ReturnType<typeof createActivities>;
