import { z } from 'zod';

/**
 * Every enum of the interface, once. Requests accept only the listed values (minus the responses-only ones);
 * responses decode through `openEnum`, so a value the service adds later is kept as a string instead of failing.
 */

type Values = readonly [string, ...string[]];

/** A decoded enum: one of the known values, or any other string the service sent. */
export type Open<T extends Values> = T[number] | (string & {});

export function openEnum<T extends Values>(values: T): z.ZodType<Open<T>> {
  // Known values are documentation for the type; decoding must never reject a new one.
  void values;
  const schema: z.ZodType<Open<T>> = z.string();
  return schema;
}

/**
 * The service's enums in request schemas, with the values this release knows: a runbook input refuses any other value
 * unless it says `allowUnknownValues: true` (runtime/input-rules.ts), for a value the service added since.
 */
export const SERVICE_ENUMS = new WeakMap<z.core.$ZodType, readonly string[]>();

export function serviceEnum<S extends z.core.$ZodType>(schema: S, known: readonly string[]): S {
  SERVICE_ENUMS.set(schema, known);
  return schema;
}

/** Values a request may carry: the enum without its responses-only members. */
export function requestEnum<T extends Values, U extends T[number]>(values: T, responsesOnly: readonly U[]) {
  const allowed = values.filter((v): v is Exclude<T[number], U> => !(responsesOnly as readonly string[]).includes(v));
  return serviceEnum(z.enum(allowed as [Exclude<T[number], U>, ...Exclude<T[number], U>[]]), allowed);
}

export const CLOUD_PROVIDERS = [
  'PROVIDER_A',
  'PROVIDER_B',
  'PROVIDER_C',
  'PROVIDER_D',
  'PROVIDER_UNSPECIFIED',
] as const;
export const CloudProviderInput = requestEnum(CLOUD_PROVIDERS, ['PROVIDER_UNSPECIFIED']);
export type CloudProvider = z.infer<typeof CloudProviderInput>;

export const RESOURCE_TYPES = [
  'PA_VM',
  'PA_RELATIONAL_DB',
  'PA_OBJECT_STORE',
  'PA_FILE_SYSTEM',
  'PA_MANAGED_FILE_SYSTEM',
  'PA_K8S_NAMESPACE',
  'PA_KEYVALUE_DB',
  'PB_VM',
  'PB_FILE_SHARE',
  'PB_STORAGE_ACCOUNT',
  'PB_DISK',
  'PB_SQL_DATABASE',
  'PB_SQL_MANAGED_INSTANCE',
  'PB_SQL_VM',
  'PB_MYSQL',
  'PB_POSTGRESQL',
  'PB_DOC_DB_A',
  'PB_DOC_DB_B',
  'PD_DOC_DB_CLUSTER',
  'PC_VM',
  'PC_SQL_INSTANCE',
  'PC_OBJECT_BUCKET',
  'RESOURCE_TYPE_UNSPECIFIED',
] as const;
export const ResourceTypeInput = requestEnum(RESOURCE_TYPES, ['RESOURCE_TYPE_UNSPECIFIED']);
export type ResourceType = z.infer<typeof ResourceTypeInput>;

export const BACKUP_STATUSES = [
  'BACKUP_POSTURE_STATUS_UNSPECIFIED',
  'NOT_BACKED_UP',
  'VIOLATIONS_DETECTED',
  'GENERIC_BACKUPS',
  'EXCLUDED_FROM_BACKUP',
  'ALL_VIOLATIONS_MUTED',
  'PROTECTED',
  'INITIAL_CLASSIFICATION',
  'TERMINATED',
  'UNSUPPORTED',
  'DISCONNECTED',
  'ACTION_REQUIRED',
] as const;
export const BackupStatusInput = requestEnum(BACKUP_STATUSES, ['BACKUP_POSTURE_STATUS_UNSPECIFIED']);
export type BackupStatus = z.infer<typeof BackupStatusInput>;

export const ENVIRONMENTS = ['PROD', 'PROD_INTERNAL', 'STAGE', 'ENVIRONMENT_UNSPECIFIED'] as const;
export const EnvironmentInput = requestEnum(ENVIRONMENTS, ['ENVIRONMENT_UNSPECIFIED']);

const METERING_BASES = [
  'PA_VM',
  'PA_VM_NATIVE',
  'PA_RELATIONAL_DB',
  'PA_OBJECT_STORE',
  'PA_KEYVALUE_DB',
  'PA_K8S',
  'PB_VM',
  'PB_STORAGE_ACCOUNT',
  'PB_SQL_VM',
  'PB_SQL_DATABASE',
  'PB_POSTGRESQL',
  'PC_VM',
  'PC_OBJECT_STORE',
  'PC_SQL_POSTGRES',
  'PC_SQL_MYSQL',
  'PC_SQL_SERVER',
  'PC_ANALYTICS_WAREHOUSE',
  'PD_CLUSTER',
  'DATA_TRANSFER',
  'CLASSIFICATION',
  'STORAGE_GATEWAY',
  'RANSOMWARE_PROTECTED_STORAGE',
  'PA_VM_TO_PB_VAULT',
  'PA_OBJECT_STORE_TO_PB_VAULT',
  'PA_RELATIONAL_DB_TO_PB_VAULT',
  'PA_KEYVALUE_DB_TO_PB_VAULT',
  'PA_K8S_TO_PB_VAULT',
  'PB_VM_TO_PA_VAULT',
  'PB_STORAGE_ACCOUNT_TO_PA_VAULT',
  'PB_SQL_VM_TO_PA_VAULT',
  'PC_VM_TO_PB_VAULT',
  'PC_OBJECT_STORE_TO_PB_VAULT',
  'PA_VM_TO_PC_VAULT',
  'PA_OBJECT_STORE_TO_PC_VAULT',
  'PA_K8S_TO_PC_VAULT',
  'PB_VM_TO_PC_VAULT',
  'PB_STORAGE_ACCOUNT_TO_PC_VAULT',
  'PC_VM_TO_PA_VAULT',
  'PC_OBJECT_STORE_TO_PA_VAULT',
] as const;
export const METERING_DIMENSIONS = METERING_BASES.map((v) => `${v}_METERING_DIMENSION` as const);

export const COST_UNITS = ['CREDITS', 'USD', 'UNSPECIFIED'] as const;
export const USAGE_UNITS = ['BYTE_MONTHS', 'BYTES', 'UNSPECIFIED'] as const;
export const GRANULARITIES = ['HOURLY', 'DAILY', 'MONTHLY', 'TOTAL'] as const;
export const COST_GROUP_BYS = [
  'SOURCE_ACCOUNT',
  'CLOUD_PROVIDER',
  'RESOURCE_TYPE',
  'RESOURCE',
  'RESOURCE_AND_VAULT',
] as const;

export const MPA_OPERATIONS = [
  'MPA_OPERATION_TYPE_UNSPECIFIED',
  'MPA_OPERATION_ADD_RESTORE_ACCOUNT',
  'MPA_OPERATION_RESTORE_RESOURCE',
  'MPA_OPERATION_UPDATE_BACKUP_POLICY',
  'MPA_OPERATION_DELETE_BACKUP_POLICY',
  'MPA_OPERATION_CREATE_BACKUP_POLICY',
] as const;
export const MpaOperationInput = requestEnum(MPA_OPERATIONS, ['MPA_OPERATION_TYPE_UNSPECIFIED']);

export const MPA_STATUSES = [
  'MPA_REQUEST_STATUS_UNSPECIFIED',
  'CREATED',
  'PENDING_APPROVAL',
  'APPROVED',
  'DENIED',
  'EXPIRED_PENDING_APPROVAL',
  'EXPIRED_APPROVED',
  'EXECUTED',
  'CANCELED_PENDING_APPROVAL',
  'CANCELED_APPROVED',
  'DISCARDED',
] as const;
export type MpaStatus = (typeof MPA_STATUSES)[number];

export const MPA_SUBMIT_ACTIONS = ['MPA_SUBMIT_ACTION_UNSPECIFIED', 'CONFIRM', 'DISCARD'] as const;
export const MpaSubmitActionInput = requestEnum(MPA_SUBMIT_ACTIONS, ['MPA_SUBMIT_ACTION_UNSPECIFIED']);

export const QUERY_STATUSES = ['UNSPECIFIED', 'IN_PROGRESS', 'COMPLETED', 'CANCELED', 'FAILED'] as const;
export type QueryStatus = (typeof QUERY_STATUSES)[number];

export const ACCOUNT_STATUSES = [
  'ACCOUNT_STATUS_UNSPECIFIED',
  'CONNECTED',
  'DISCONNECTED',
  'INSUFFICIENT_PERMISSIONS',
  'NOT_READY',
] as const;
export const AccountStatusInput = requestEnum(ACCOUNT_STATUSES, ['ACCOUNT_STATUS_UNSPECIFIED', 'NOT_READY']);
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

export const JOB_STATUSES = [
  'JOB_UNSPECIFIED',
  'JOB_PENDING',
  'JOB_RUNNING',
  'JOB_COMPLETED',
  'JOB_FAILED',
  'JOB_PARTIAL',
  'JOB_CANCELED',
  'JOB_REJECTED',
  'JOB_SKIPPED',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const JobStatusInput = requestEnum(JOB_STATUSES, ['JOB_UNSPECIFIED']);
/** Older servers spell the canceled status with two Ls; both mean the same. */
export const JOB_CANCELED_SPELLINGS = ['JOB_CANCELED', 'JOB_CANCELLED'] as const;
export const JOB_ACTIVE_STATUSES = ['JOB_PENDING', 'JOB_RUNNING'] as const;
/**
 * Known statuses that end a job: all but the unspecified and the active ones, and the older spelling of canceled. An
 * unknown status is treated as still running by the caller, up to a deadline.
 */
export const JOB_TERMINAL_STATUSES: readonly (JobStatus | (typeof JOB_CANCELED_SPELLINGS)[number])[] = [
  ...JOB_STATUSES.filter((s) => s !== 'JOB_UNSPECIFIED' && !(JOB_ACTIVE_STATUSES as readonly string[]).includes(s)),
  'JOB_CANCELLED',
];

export const JOB_ERROR_CODES = [
  'CLOUD_OPERATION_FAILED',
  'RESOURCE_CONFLICT',
  'BACKUP_CONFLICT',
  'TOO_MANY_REQUESTS',
  'INVALID_INPUT_PARAMETERS',
  'FAILED_TO_RUN_QUERY',
  'SNAPSHOT_QUOTA_EXCEEDED',
] as const;

export const SORT_ORDERS = ['ASC', 'DESC'] as const;
export const SortOrderInput = z.enum(SORT_ORDERS);

export const RESOURCE_SORT_FIELDS = [
  'resourceName',
  'latestSnapshotTime',
  'oldestSnapshotTime',
  'dateDiscovered',
  'createdTime',
  'resourceGroupName',
  'clusterName',
  'globalClusterIdentifier',
] as const;
export const JOB_SORT_FIELDS = ['createdTime', 'startTime', 'endTime'] as const;
export const RESOURCE_INCLUDES = ['DYNAMODB_INDEXES'] as const;
export const BILLING_MODES = ['UNSPECIFIED', 'PAY_PER_REQUEST', 'PROVISIONED'] as const;
export const KEY_TYPES = ['HASH', 'RANGE'] as const;
export const PROJECTION_TYPES = ['ALL', 'KEYS_ONLY', 'INCLUDE'] as const;
export const ACCESS_CONDITION_EFFECTS = ['INCLUSIVE', 'EXCLUSIVE'] as const;
export const REVIEW_DECISIONS = ['APPROVED', 'DENIED', 'CANCELLED'] as const;
