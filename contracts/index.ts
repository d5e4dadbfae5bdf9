// Pure definitions shared by the workflows, the activities, the worker and the CLI. No I/O and no imports of ours.
export * from './failures';
export * from './search-attributes';
export * from './status';
export * from './runbook';
export * from './metrics';
export * from './notifications';
export * from './validation';
