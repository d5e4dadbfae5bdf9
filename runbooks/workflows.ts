// The runbooks the worker serves.
export { approvalGatedRestore } from './approval-gated-restore/workflow';
export { drDrill } from './dr-drill/workflow';
export { queryExport } from './query-export/workflow';
export { costExport } from './cost-export/workflow';
export { rotateCredentials } from './rotate-credentials/workflow';
export { offboardSourceAccount } from './offboard-source-account/workflow';
