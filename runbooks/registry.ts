import { approvalGatedRestoreContract } from './approval-gated-restore/contract';
import { cleanPointContract } from './clean-point/contract';
import { costExportContract } from './cost-export/contract';
import { drDrillContract } from './dr-drill/contract';
import { offboardSourceAccountContract } from './offboard-source-account/contract';
import { postureReportContract } from './posture-report/contract';
import { queryExportContract } from './query-export/contract';
import { recoveryPlanContract } from './recovery-plan/contract';
import { rotateCredentialsContract } from './rotate-credentials/contract';

/** Every runbook by its name (its workflow type), for the CLI, schedules and the worker. Adding one is one line. */
export const RUNBOOKS = {
  approvalGatedRestore: approvalGatedRestoreContract,
  drDrill: drDrillContract,
  queryExport: queryExportContract,
  costExport: costExportContract,
  rotateCredentials: rotateCredentialsContract,
  offboardSourceAccount: offboardSourceAccountContract,
  postureReport: postureReportContract,
  cleanPoint: cleanPointContract,
  recoveryPlan: recoveryPlanContract,
} as const;

export type RunbookName = keyof typeof RUNBOOKS;
export const RUNBOOK_NAMES = Object.keys(RUNBOOKS) as RunbookName[];

export function isRunbookName(name: string): name is RunbookName {
  return Object.hasOwn(RUNBOOKS, name);
}
