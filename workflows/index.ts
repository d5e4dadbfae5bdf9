// The runbooks the worker serves.
export { approvalGatedRestore } from './approval-gated-restore';
export { drDrill } from './dr-drill';
export { queryExport } from './query-export';
export { costExport } from './cost-export';
export { rotateCredentials } from './rotate-credentials';
export { offboardSourceAccount } from './offboard-source-account';
