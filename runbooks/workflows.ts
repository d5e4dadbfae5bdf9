// The runbooks the worker serves, each counted by runtime/metrics (runs started and finished). The export names are
// the workflow types; `interceptors` carries a trace from the client through the workflow to its activities (the
// spans leave the sandbox through the worker's sink, and only headers change, never commands).
export { interceptors } from '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors';
import { measured } from '../runtime/metrics';
import { approvalGatedRestore as restore } from './approval-gated-restore/workflow';
import { drDrill as drill } from './dr-drill/workflow';
import { drDrillBatch as drillBatch } from './dr-drill/batch';
import { queryExport as query } from './query-export/workflow';
import { costExport as cost } from './cost-export/workflow';
import { rotateCredentials as rotate } from './rotate-credentials/workflow';
import { offboardSourceAccount as offboard } from './offboard-source-account/workflow';
import { postureReport as posture } from './posture-report/workflow';
import { cleanPoint as clean } from './clean-point/workflow';
import { recoveryPlan as plan } from './recovery-plan/workflow';

export const approvalGatedRestore = measured(restore);
export const drDrill = measured(drill);
/** A batch of a drill's resources: started by drDrill only (./dr-drill/fan-out.ts). */
export const drDrillBatch = measured(drillBatch);
export const queryExport = measured(query);
export const costExport = measured(cost);
export const rotateCredentials = measured(rotate);
export const offboardSourceAccount = measured(offboard);
export const postureReport = measured(posture);
export const cleanPoint = measured(clean);
export const recoveryPlan = measured(plan);
// Not a runbook: adds the timestamps a drill's evidence could not have when it was sealed (./dr-drill/timestamps.ts).
export { drillEvidenceTimestamps } from './dr-drill/timestamps';
// Not a runbook: the limiter of snapshot starts that runbooks share, one per service project (never ends by itself).
export { snapshotSlots } from './snapshot-slots/workflow';
