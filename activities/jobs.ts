import { activityInfo } from '@temporalio/activity';
import {
  JOB_ACTIVE_STATUSES,
  JOB_CANCELED_SPELLINGS,
  JOB_TERMINAL_STATUSES,
  ConflictError,
  type BackupJob,
  type JobExecutionDetails,
  type RestoreJob,
  type RestoreBucketInput,
  type RestoreFilesInput,
  type MpaRequest,
} from '../api';
import type { ActivityDeps } from './deps';
import { calling, isAmbiguous, notYet, toFailure } from './failures';

/**
 * Service clocks drift, so a job created slightly "before" the attempt may still be ours. Kept small: a wider window
 * could adopt the job of an earlier run of the same runbook.
 */
const CLOCK_SKEW_MS = 5_000;
/** A status this client does not know is waited on for this long, then reported as such. */
const UNKNOWN_STATUS_DEADLINE_MS = 60 * 60_000;

export type JobOutcome = 'COMPLETED' | 'PARTIAL' | 'FAILED' | 'CANCELED' | 'REJECTED' | 'SKIPPED' | 'UNKNOWN';

export interface JobSummary {
  jobId: string;
  status: string;
  outcome: JobOutcome;
  succeeded: boolean;
  errorCode?: string;
  statusMessage?: string;
  createdTime: string;
  startTime?: string;
  endTime?: string;
  durationSeconds?: number;
  snapshotId?: string;
  pointInTime?: string;
}

export interface StartBackupInput {
  resourceId: string;
  providerResourceId: string;
  vaultId: string;
  retentionDays: number;
}

export interface StartRestoreInput {
  resourceId: string;
  snapshotId: string;
  kind: 'bucket' | 'files';
  bucket?: RestoreBucketInput;
  files?: RestoreFilesInput;
  /** An approved action request, for the repeat of a protected restore. */
  approvalRequestId?: string;
}

export type StartRestoreResult =
  { kind: 'started'; jobId: string; adopted: boolean } | { kind: 'approvalRequired'; request: MpaRequest };

export function jobActivities({ client }: ActivityDeps) {
  /** When this activity was first scheduled: every job of ours was created after it. */
  const since = () => activityInfo().scheduledTimestampMs - CLOCK_SKEW_MS;

  async function findBackupJob(input: StartBackupInput): Promise<string | undefined> {
    const page = await client.listBackupJobsPage(
      {
        filters: { providerResourceId: { in: [input.providerResourceId] } },
        sorts: [{ field: 'createdTime', order: 'DESC' }],
      },
      { pageSize: 20 },
    );
    const ours = page.jobs.find(
      (job) =>
        Date.parse(job.jobExecutionDetails.createdTime) >= since() &&
        // Scheduled backups are the service's own, never ours.
        (job.backupType === undefined || job.backupType === 'ON_DEMAND') &&
        (job.vault?.id === undefined || job.vault.id === input.vaultId) &&
        (job.resourceDetails?.id === undefined || job.resourceDetails.id === input.resourceId),
    );
    return ours?.jobExecutionDetails.jobId;
  }

  async function findRestoreJob(input: StartRestoreInput): Promise<string | undefined> {
    const restoreAccountId = input.bucket?.restoreAccountId ?? input.files?.restoreAccountId;
    const page = await client.listRestoreJobsPage(
      { filters: { snapshotId: { in: [input.snapshotId] } }, sorts: [{ field: 'createdTime', order: 'DESC' }] },
      { pageSize: 20 },
    );
    const ours = page.jobs.find(
      (job) =>
        Date.parse(job.jobExecutionDetails.createdTime) >= since() &&
        job.destinationDetails.restoreAccountId === restoreAccountId,
    );
    return ours?.jobExecutionDetails.jobId;
  }

  /**
   * Calls a job-starting endpoint without ever starting the job twice: a retry, or an ambiguous failure, first looks
   * for a job this activity may already have started and adopts it.
   */
  async function startOnce<T>(
    find: () => Promise<string | undefined>,
    start: () => Promise<T>,
    adopt: (jobId: string) => T,
  ): Promise<T> {
    const attempt = activityInfo().attempt;
    if (attempt > 1) {
      const existing = await calling(attempt, find);
      if (existing) return adopt(existing);
    }
    try {
      return await start();
    } catch (err) {
      const mayHaveStarted = isAmbiguous(err) || (err instanceof ConflictError && attempt > 1);
      if (mayHaveStarted) {
        const existing = await find().catch(() => undefined);
        if (existing) return adopt(existing);
      }
      throw toFailure(err, attempt);
    }
  }

  return {
    async startBackup(input: StartBackupInput): Promise<{ jobId: string; adopted: boolean }> {
      return startOnce<{ jobId: string; adopted: boolean }>(
        () => findBackupJob(input),
        async () => ({
          jobId: await client.takeSnapshot(input.resourceId, {
            vaultId: input.vaultId,
            retentionDays: input.retentionDays,
          }),
          adopted: false,
        }),
        (jobId) => ({ jobId, adopted: true }),
      );
    },

    async startRestore(input: StartRestoreInput): Promise<StartRestoreResult> {
      return startOnce<StartRestoreResult>(
        () => findRestoreJob(input),
        async () => {
          if (input.kind === 'files') {
            if (!input.files) throw new Error('a files restore needs its files input');
            return {
              kind: 'started',
              jobId: await client.restoreFiles(input.resourceId, input.snapshotId, input.files),
              adopted: false,
            };
          }
          if (!input.bucket) throw new Error('a bucket restore needs its bucket input');
          const result = await client.restoreBucket(input.resourceId, input.snapshotId, input.bucket, {
            approvalRequestId: input.approvalRequestId,
          });
          return result.kind === 'started' ? { ...result, adopted: false } : result;
        },
        (jobId) => ({ kind: 'started', jobId, adopted: true }),
      );
    },

    /** One look at a backup job: "not yet" while it runs, its summary once it has ended. */
    async checkBackupJob(jobId: string): Promise<JobSummary> {
      const job = await calling(activityInfo().attempt, () => client.getBackupJob(jobId));
      return settled(summarize(job));
    },

    async checkRestoreJob(jobId: string): Promise<JobSummary> {
      const job = await calling(activityInfo().attempt, () => client.getRestoreJob(jobId));
      return settled(summarize(job));
    },
  };
}

function summarize(job: BackupJob | RestoreJob): JobSummary {
  const d: JobExecutionDetails = job.jobExecutionDetails;
  const outcome = outcomeOf(d.status);
  return {
    jobId: d.jobId,
    status: d.status,
    outcome,
    succeeded: outcome === 'COMPLETED' || outcome === 'PARTIAL',
    errorCode: d.errorCode,
    statusMessage: d.statusMessage,
    createdTime: d.createdTime,
    startTime: d.startTime,
    endTime: d.endTime,
    durationSeconds: d.durationSeconds,
    snapshotId: job.snapshotDetails?.id,
    pointInTime: job.snapshotDetails?.pointInTime,
  };
}

function outcomeOf(status: string): JobOutcome {
  if ((JOB_CANCELED_SPELLINGS as readonly string[]).includes(status)) return 'CANCELED';
  if ((JOB_TERMINAL_STATUSES as readonly string[]).includes(status)) return status.replace(/^JOB_/, '') as JobOutcome;
  return 'UNKNOWN';
}

function settled(summary: JobSummary): JobSummary {
  if ((JOB_ACTIVE_STATUSES as readonly string[]).includes(summary.status)) {
    throw notYet(`job ${summary.jobId} is ${summary.status}`);
  }
  if (summary.outcome === 'UNKNOWN' && Date.now() - activityInfo().scheduledTimestampMs < UNKNOWN_STATUS_DEADLINE_MS) {
    throw notYet(`job ${summary.jobId} has status ${summary.status}, which this client does not know yet`);
  }
  return summary;
}
