import type {
  BackupJobDocument as BackupJob,
  JobExecutionDetailsDocument as JobExecutionDetails,
  JobStatus,
  RestoreJobDocument as RestoreJob,
  SnapshotDocument as Snapshot,
} from '../api';
import type { SimContext } from './context';
import { SimError } from './errors';
import type { BackupJobRecord, JobOutcome, ResourceRecord, RestoreJobRecord, SimState } from './model';

/**
 * Backup and restore job lifecycle. Nothing runs on a timer: a job's status is a function of the simulated clock
 * (pending until `startAt`, running until `endAt`, then its outcome), and the snapshot a finished backup makes is
 * created lazily by `settleJobs`, which every route that reads jobs, snapshots or resources calls first.
 */

const DAY_MS = 86_400_000;
/** A job waits in JOB_PENDING for a short part of its duration: 10 %, at most 2 s. */
const MAX_PENDING_MS = 2_000;

type JobRecord = BackupJobRecord | RestoreJobRecord;

/** Outcomes a job reaches without ever running: it goes straight from pending to its outcome. */
const NEVER_RUNS: readonly JobOutcome[] = ['JOB_REJECTED', 'JOB_SKIPPED'];

/** Whether a job ran (has a start time) rather than being turned down before it could. */
export function jobRan(job: JobRecord): boolean {
  return !NEVER_RUNS.includes(job.outcome);
}

export function jobStatus(job: JobRecord, now: number): JobStatus {
  if (now < job.startAt) return 'JOB_PENDING';
  if (now < job.endAt) return 'JOB_RUNNING';
  return job.outcome;
}

/** The snapshots of a resource, oldest first. */
export function snapshotsOf(state: SimState, resourceId: string): Snapshot[] {
  return Object.values(state.snapshots)
    .filter((s) => s.resourceId === resourceId)
    .sort((a, b) => Date.parse(a.pointInTime ?? a.createdTime) - Date.parse(b.pointInTime ?? b.createdTime));
}

/**
 * Keeps a resource's snapshot fields consistent with the snapshots that exist. The stored size is the first
 * snapshot in full plus 8 % of the source size per later (incremental) snapshot.
 */
export function refreshSnapshotFields(state: SimState, resourceId: string): void {
  const resource = state.resources[resourceId]?.resource;
  if (!resource) return;
  const snapshots = snapshotsOf(state, resourceId);
  const first = snapshots[0];
  const last = snapshots[snapshots.length - 1];
  const source = resource.sourceStorage.sizeBytes ?? 0;
  resource.snapshotStorage.eonSnapshotCount = snapshots.length;
  resource.snapshotStorage.sizeBytes =
    snapshots.length === 0 ? 0 : Math.round(source * (1 + 0.08 * (snapshots.length - 1)));
  if (first && last) {
    resource.oldestSnapshotTime = first.pointInTime ?? first.createdTime;
    resource.latestSnapshotTime = last.pointInTime ?? last.createdTime;
  } else {
    delete resource.oldestSnapshotTime;
    delete resource.latestSnapshotTime;
  }
}

/**
 * The instant a job is shown at. `settleJobs` made the snapshots as of an instant a moment before this one (a list of
 * many jobs takes milliseconds): a backup that ended in between has no snapshot yet, so it is shown as of then, still
 * running, and never as finished without its snapshot. The next request settles it.
 */
export function shownAt(state: SimState, job: JobRecord, now: number): number {
  const unsettled =
    'vaultId' in job &&
    job.snapshotId === undefined &&
    (job.outcome === 'JOB_COMPLETED' || job.outcome === 'JOB_PARTIAL') &&
    state.resources[job.resourceId] !== undefined;
  return unsettled ? Math.min(now, job.endAt - 1) : now;
}

/** Creates the snapshot of every backup job that has completed (or partially completed) by now. */
export function settleJobs(ctx: SimContext): void {
  const now = ctx.clock.now();
  const state = ctx.state;
  for (const job of Object.values(state.backupJobs)) {
    if (job.snapshotId || now < job.endAt || (job.outcome !== 'JOB_COMPLETED' && job.outcome !== 'JOB_PARTIAL')) {
      continue;
    }
    // A resource removed meanwhile (its account disconnected) gets no snapshot.
    if (!state.resources[job.resourceId]) continue;
    const snapshot: Snapshot = {
      id: ctx.newId(),
      createdTime: ctx.clock.iso(job.endAt),
      resourceId: job.resourceId,
      projectId: state.projectId,
      pointInTime: ctx.clock.iso(job.startAt),
      jobId: job.id,
      vaultId: job.vaultId,
      expirationTime: ctx.clock.iso(job.startAt + job.retentionDays * DAY_MS),
    };
    state.snapshots[snapshot.id] = snapshot;
    job.snapshotId = snapshot.id;
    refreshSnapshotFields(state, job.resourceId);
  }
}

interface Timeline {
  createdAt: number;
  startAt: number;
  endAt: number;
}

function timeline(now: number, seconds: number, outcome: JobOutcome): Timeline {
  const total = Math.max(0, seconds * 1000);
  const startAt = now + Math.min(MAX_PENDING_MS, Math.round(total * 0.1));
  return { createdAt: now, startAt, endAt: NEVER_RUNS.includes(outcome) ? startAt : now + total };
}

type Kind = 'backup' | 'restore';

const OUTCOME_DETAILS: Record<Exclude<JobOutcome, 'JOB_COMPLETED'>, (kind: Kind) => Partial<JobRecord>> = {
  JOB_FAILED: (kind) => ({
    errorCode: 'CLOUD_OPERATION_FAILED',
    statusMessage: `the cloud provider failed the ${kind === 'backup' ? 'snapshot' : 'restore'} operation`,
  }),
  JOB_PARTIAL: (kind) => ({
    statusMessage:
      kind === 'backup'
        ? 'some volumes could not be captured; the snapshot is partial'
        : 'some items could not be restored',
  }),
  JOB_REJECTED: (kind) => ({
    errorCode: 'INVALID_INPUT_PARAMETERS',
    statusMessage: `the ${kind} job was rejected by the service`,
  }),
  JOB_SKIPPED: (kind) => ({ statusMessage: `the ${kind} job was skipped: another job of this resource was running` }),
};

function outcomeOf(ctx: SimContext, resourceId: string, kind: Kind) {
  const outcome: JobOutcome = ctx.state.jobsConfig.outcomes[resourceId] ?? 'JOB_COMPLETED';
  return { outcome, ...(outcome === 'JOB_COMPLETED' ? {} : OUTCOME_DETAILS[outcome](kind)) };
}

/** Backup jobs not yet finished now: the ones the concurrency cap counts. */
export function activeBackupJobs(ctx: SimContext): BackupJobRecord[] {
  const now = ctx.clock.now();
  return Object.values(ctx.state.backupJobs).filter((j) => now < j.endAt);
}

/** Starts an on-demand backup; 429 with `Retry-After` (seconds until a slot frees) when the cap is reached. */
export function startBackupJob(
  ctx: SimContext,
  resourceId: string,
  vaultId: string,
  retentionDays: number,
): BackupJobRecord {
  const now = ctx.clock.now();
  const config = ctx.state.jobsConfig;
  const active = activeBackupJobs(ctx);
  if (active.length >= config.maxConcurrentBackups) {
    const soonest = Math.min(...active.map((j) => j.endAt));
    const wait = Number.isFinite(soonest) ? Math.ceil((soonest - now) / 1000) : config.backupSeconds;
    throw new SimError(429, `too many simultaneous on-demand backup jobs (at most ${config.maxConcurrentBackups})`, {
      'retry-after': String(Math.max(1, wait)),
    });
  }
  const result = outcomeOf(ctx, resourceId, 'backup');
  const job: BackupJobRecord = {
    id: ctx.newId(),
    ...timeline(now, config.backupSeconds, result.outcome),
    ...result,
    resourceId,
    vaultId,
    retentionDays,
    backupType: 'ON_DEMAND',
  };
  ctx.state.backupJobs[job.id] = job;
  return job;
}

/**
 * Starts a restore. A restore account that is not connected or does not allow restores gets a job that ends
 * JOB_REJECTED, unless an outcome is configured for the resource.
 */
export function startRestoreJob(
  ctx: SimContext,
  input: Pick<RestoreJobRecord, 'restoreType' | 'resourceId' | 'snapshotId' | 'restoreAccountId' | 'destination'>,
): RestoreJobRecord {
  const account = ctx.state.restoreAccounts[input.restoreAccountId];
  let result = outcomeOf(ctx, input.resourceId, 'restore');
  if (!ctx.state.jobsConfig.outcomes[input.resourceId] && account && !restoreAllowed(account)) {
    result = {
      outcome: 'JOB_REJECTED',
      errorCode: 'INVALID_INPUT_PARAMETERS',
      statusMessage: `restore account ${account.id} is ${account.status} and does not accept restores`,
    };
  }
  const job: RestoreJobRecord = {
    id: ctx.newId(),
    ...timeline(ctx.clock.now(), ctx.state.jobsConfig.restoreSeconds, result.outcome),
    ...result,
    ...input,
  };
  ctx.state.restoreJobs[job.id] = job;
  return job;
}

function restoreAllowed(account: { status: string; isRestoreAllowed: boolean }): boolean {
  return account.status === 'CONNECTED' && account.isRestoreAllowed;
}

function executionDetails(job: JobRecord, now: number, iso: (ms: number) => string): JobExecutionDetails {
  const status = jobStatus(job, now);
  const ran = jobRan(job);
  const ended = now >= job.endAt;
  return {
    jobId: job.id,
    status,
    createdTime: iso(job.createdAt),
    expectedStartTime: iso(job.startAt),
    ...(ran && now >= job.startAt ? { startTime: iso(job.startAt) } : {}),
    ...(ended ? { endTime: iso(job.endAt) } : {}),
    ...(ended && ran ? { durationSeconds: (job.endAt - job.startAt) / 1000 } : {}),
    ...(ended && job.errorCode ? { errorCode: job.errorCode } : {}),
    ...(ended && job.statusMessage ? { statusMessage: job.statusMessage } : {}),
  };
}

/** The job's view of its resource; absent once the resource has left the inventory. */
export function resourceDetails(record: ResourceRecord | undefined) {
  if (!record) return {};
  const r = record.resource;
  return {
    resourceDetails: {
      id: r.id,
      providerResourceId: r.providerResourceId,
      resourceName: r.resourceName,
      resourceType: r.resourceType,
      providerAccountId: r.providerAccountId,
      cloudProvider: r.cloudProvider,
      region: r.region,
      ...(r.sourceStorage.sizeBytes !== undefined ? { sourceStorageSizeBytes: r.sourceStorage.sizeBytes } : {}),
    },
  };
}

function snapshotDetails(snapshot: Snapshot | undefined) {
  if (!snapshot) return {};
  return {
    snapshotDetails: {
      pointInTime: snapshot.pointInTime ?? snapshot.createdTime,
      id: snapshot.id,
      ...(snapshot.expirationTime ? { expirationTime: snapshot.expirationTime } : {}),
    },
  };
}

function vaultOf(ctx: SimContext, vaultId: string | undefined) {
  const vault = vaultId === undefined ? undefined : ctx.state.vaults[vaultId];
  return vault ? { vault } : {};
}

export function backupJobView(ctx: SimContext, job: BackupJobRecord): BackupJob {
  const snapshot = job.snapshotId === undefined ? undefined : ctx.state.snapshots[job.snapshotId];
  return {
    jobExecutionDetails: executionDetails(job, shownAt(ctx.state, job, ctx.clock.now()), (ms) => ctx.clock.iso(ms)),
    backupType: job.backupType ?? 'ON_DEMAND',
    ...resourceDetails(ctx.state.resources[job.resourceId]),
    ...snapshotDetails(snapshot),
    ...vaultOf(ctx, job.vaultId),
  };
}

export function restoreJobView(ctx: SimContext, job: RestoreJobRecord): RestoreJob {
  const state = ctx.state;
  const snapshot = state.snapshots[job.snapshotId];
  const resource = state.resources[job.resourceId]?.resource;
  const account = state.restoreAccounts[job.restoreAccountId];
  return {
    jobExecutionDetails: executionDetails(job, ctx.clock.now(), (ms) => ctx.clock.iso(ms)),
    restoreType: job.restoreType,
    destinationDetails: {
      restoreAccountId: job.restoreAccountId,
      providerAccountId: account?.providerAccountId ?? '',
      cloudProvider:
        account?.restoreAccountAttributes.cloudProvider ?? resource?.cloudProvider ?? 'PROVIDER_UNSPECIFIED',
      region: resource?.region ?? '',
    },
    ...resourceDetails(state.resources[job.resourceId]),
    ...snapshotDetails(snapshot),
    ...vaultOf(ctx, snapshot?.vaultId),
  };
}

/** The provider resource ID a job's list filter matches; '' once the resource is gone. */
export function providerResourceIdOf(state: SimState, resourceId: string): string {
  return state.resources[resourceId]?.resource.providerResourceId ?? '';
}
