import type {
  CostDataInput,
  IdentityProviderDocument as IdentityProvider,
  IdpGroupDocument as IdpGroup,
  InventoryResourceDocument as InventoryResource,
  MpaRequestDocument as MpaRequest,
  MpaReview,
  ObjectStorageDestination,
  QueryDestination,
  RestoreAccountDocument as RestoreAccount,
  Role,
  SnapshotDocument as Snapshot,
  SourceAccountDocument as SourceAccount,
  VaultDocument as Vault,
} from '../api';
import type { FaultKind } from './faults';
import type { TableCorruption } from './seed-databases';

/**
 * The simulator's whole state: plain JSON, so that `--data-dir` can persist it and a restart restores it.
 * Times are epoch milliseconds on the simulated clock unless a field is an API record (ISO strings).
 */

export interface CredentialRecord {
  clientId: string;
  clientSecret: string;
  /** Permission types granted (the role bound to the credentials). */
  permissions: string[];
  roleId?: string;
  email: string;
  name: string;
}

export interface TokenRecord {
  clientId: string;
  expiresAt: number;
}

export interface PolicyRecord {
  id: string;
  operations: string[];
  requiredApprovals: number;
  approvalWindowHours: number;
  executionWindowHours: number;
  description?: string;
}

export interface ActionRequestRecord {
  /** The API record, kept up to date on every transition. */
  request: MpaRequest;
  requesterClientId: string;
  /** What the protected call was, so that a repeat can be compared with it. */
  operationKey: string;
  reviews: MpaReview[];
}

export interface ResourceRecord {
  resource: InventoryResource;
  /** Service-assigned ID of the source account it was discovered in. */
  sourceAccountId: string;
}

export type JobOutcome = 'JOB_COMPLETED' | 'JOB_FAILED' | 'JOB_PARTIAL' | 'JOB_REJECTED' | 'JOB_SKIPPED';

interface JobTimes {
  id: string;
  createdAt: number;
  /** Pending until `startAt`, running until `endAt`, then `outcome`. */
  startAt: number;
  endAt: number;
  outcome: JobOutcome;
  errorCode?: string;
  statusMessage?: string;
}

export interface BackupJobRecord extends JobTimes {
  resourceId: string;
  vaultId: string;
  retentionDays: number;
  /** Set once the job has completed and its snapshot exists. */
  snapshotId?: string;
  /** `ON_DEMAND` (take-snapshot, the default) or `SCHEDULED` (the seeded history). */
  backupType?: string;
}

export interface RestoreJobRecord extends JobTimes {
  restoreType: 'FILES' | 'BUCKET';
  resourceId: string;
  snapshotId: string;
  restoreAccountId: string;
  destination: ObjectStorageDestination;
}

export interface QueryRecord {
  id: string;
  snapshotId: string;
  resourceId: string;
  databaseName: string;
  query: string;
  restoreAccountId: string;
  destination: QueryDestination;
  createdAt: number;
  endAt: number;
  /** Set when the SQL engine refused the statement. */
  errorMessage?: string;
  /** Where the CSV was written, once completed. */
  outputLocation?: string;
  /** Which version of the seeded database was queried (seed-databases.ts), so results survive snapshot deletion. */
  growthDays?: number;
  /** Rows of `events_large` when the query read it (generated-table.ts): its results are generated, not stored. */
  generatedRows?: number;
  /** The snapshot's corruption when the query ran, so that its results stay the same if the corruption changes. */
  corruption?: TableCorruption;
}

export interface JobsConfig {
  backupSeconds: number;
  restoreSeconds: number;
  querySeconds: number;
  maxConcurrentBackups: number;
  outcomes: Record<string, Exclude<JobOutcome, 'JOB_COMPLETED'>>;
}

export interface FaultConfig {
  rate: number;
  kinds: FaultKind[];
  latencyMs?: number;
  retryAfterSeconds?: number;
  pathPrefix?: string;
  /** Upper-case HTTP method; other methods are never faulted. */
  method?: string;
  /** Faults left before the configuration removes itself; unlimited when absent. */
  times?: number;
}

/** Damage to a resource's snapshots (`PUT /_simulator/corruption/{resourceId}`), applied when they are queried. */
export interface CorruptionRecord extends TableCorruption {
  /** This snapshot and every snapshot of the resource at or after its point in time, later backups included. */
  from?: string;
  /** These snapshots too, whatever their time. */
  snapshotIds?: string[];
}

/** A bucket the control API declared for a restore account. */
export interface DeclaredBucket {
  name: string;
  region: string;
}

export interface SimState {
  projectId: string;
  seed: number;
  clockOffsetMs: number;
  credentials: Record<string, CredentialRecord>;
  tokens: Record<string, TokenRecord>;
  roles: Record<string, Role>;
  idps: Record<string, IdentityProvider>;
  idpGroups: Record<string, IdpGroup>;
  policies: Record<string, PolicyRecord>;
  actionRequests: Record<string, ActionRequestRecord>;
  sourceAccounts: Record<string, SourceAccount>;
  restoreAccounts: Record<string, RestoreAccount>;
  vaults: Record<string, Vault>;
  resources: Record<string, ResourceRecord>;
  snapshots: Record<string, Snapshot>;
  backupJobs: Record<string, BackupJobRecord>;
  restoreJobs: Record<string, RestoreJobRecord>;
  queries: Record<string, QueryRecord>;
  jobsConfig: JobsConfig;
  faults?: FaultConfig;
  /** Delay before every `/v1` request's route runs: the network and service latency a benchmark plays. */
  latencyMs?: number;
  /** Rows of the generated `events_large` table; DEFAULT_GENERATED_ROWS when unset. */
  generatedTableRows?: number;
  /** Restore account ID → its declared buckets; an account without an entry accepts any valid bucket name. */
  restoreAccountBuckets?: Record<string, DeclaredBucket[]>;
  /** Resource ID → the corruption of its snapshots. */
  corruption?: Record<string, CorruptionRecord>;
}

export type { CostDataInput };
