import { activityInfo, Context } from '@temporalio/activity';
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
} from '../api';
import { destinationConcepts, restoreTypeFits } from '../api/dialect';
import type { ActivityDeps } from '../runtime/activity-deps';
import { calling, isAmbiguous, notYet, toFailure } from '../runtime/failures';
import { isWatch, watchPause } from '../runtime/heartbeat';
import { jobPollDelayMs, MIN_JOB_POLL_MS } from '../runtime/poll-delays';

/**
 * Margin below the start of an attempt chain, on the service's clock: its `Date` header has whole seconds, and the
 * worker's clock and Temporal's may differ a little. Kept small: a wider window could adopt an earlier run's job.
 */
const WINDOW_MARGIN_MS = 3_000;
/** A status this client does not know is waited on for this long, then reported as such. */
export const UNKNOWN_STATUS_DEADLINE_MS = 60 * 60_000;

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

/**
 * How a restore call went. `possibleLeftoverRequests` counts earlier calls of this step whose answer never came: under an
 * approval policy each may have left an action request in CREATED, which nobody can list, so the run reports it.
 */
export type StartRestoreResult =
  | { kind: 'started'; jobId: string; adopted: boolean; possibleLeftoverRequests: number }
  | { kind: 'approvalRequired'; requestId: string; possibleLeftoverRequests: number };

export function jobActivities({ client, waitLooks = 'watch' }: Pick<ActivityDeps, 'client' | 'waitLooks'>) {
  /**
   * The earliest moment, on the service's clock, at which this activity can have started a job: when Temporal first
   * scheduled it. Measured as time elapsed here, taken off the service's own "now" (from its last answer).
   */
  const since = () => client.serviceNow() - (Date.now() - activityInfo().scheduledTimestampMs) - WINDOW_MARGIN_MS;

  async function findBackupJob(input: StartBackupInput): Promise<string | undefined> {
    const page = await client.listBackupJobsPage(
      {
        filters: { providerResourceId: { in: [input.providerResourceId] } },
        sorts: [{ field: 'createdTime', order: 'DESC' }],
      },
      { pageSize: 20 },
    );
    const from = since();
    const ours = page.jobs.find(
      (job) =>
        Date.parse(job.jobExecutionDetails.createdTime) >= from &&
        // Scheduled backups are the service's own, never ours.
        (job.backupType === undefined || job.backupType === 'ON_DEMAND') &&
        (job.vault?.id === undefined || job.vault.id === input.vaultId) &&
        (job.resourceDetails?.id === undefined || job.resourceDetails.id === input.resourceId),
    );
    return ours?.jobExecutionDetails.jobId;
  }

  /** A restore job that matches every parameter of the call, created at or after `from` (service clock). */
  async function findRestoreJob(input: StartRestoreInput, from: () => number): Promise<string | undefined> {
    const page = await client.listRestoreJobsPage(
      { filters: { snapshotId: { in: [input.snapshotId] } }, sorts: [{ field: 'createdTime', order: 'DESC' }] },
      { pageSize: 50 },
    );
    const earliest = from();
    const ours = page.jobs.find((job) => isRestoreOf(job, input, earliest));
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

  /**
   * The repeat of an approved restore. Executing the request and creating the job are one step on the service, so
   * the request's status tells whether an earlier attempt got through: EXECUTED means a job of ours exists (created
   * when the request was resolved); APPROVED means none does, and the call is safe to make again.
   */
  async function repeatApproved(input: StartRestoreInput, requestId: string): Promise<StartRestoreResult> {
    const attempt = activityInfo().attempt;
    const executedJob = async (): Promise<string | undefined> => {
      const request = await calling(attempt, () => client.getActionRequest(requestId));
      if (request.status !== 'EXECUTED') return undefined;
      const resolved = Date.parse(request.resolvedTime ?? '');
      const jobId = await calling(attempt, () =>
        findRestoreJob(input, () => (Number.isFinite(resolved) ? resolved : since()) - WINDOW_MARGIN_MS),
      );
      // Executed by us (only the requester can), so the job exists: the list has not caught up yet.
      if (!jobId) throw notYet(`action request ${requestId} was executed, but its restore job is not listed yet`);
      return jobId;
    };
    const adopted = (jobId: string): StartRestoreResult => ({
      kind: 'started',
      jobId,
      adopted: true,
      possibleLeftoverRequests: 0,
    });
    if (attempt > 1) {
      const jobId = await executedJob();
      if (jobId) return adopted(jobId);
    }
    try {
      const result = await client.restoreBucket(input.resourceId, input.snapshotId, requireInput(input.bucket), {
        approvalRequestId: requestId,
      });
      if (result.kind === 'started')
        return { kind: 'started', jobId: result.jobId, adopted: false, possibleLeftoverRequests: 0 };
      return { kind: 'approvalRequired', requestId: result.request.id, possibleLeftoverRequests: 0 };
    } catch (err) {
      if (isAmbiguous(err) || err instanceof ConflictError) {
        const jobId = await executedJob().catch(() => undefined);
        if (jobId) return adopted(jobId);
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

    /**
     * Starts a restore. A first call that may have got through is looked for among the jobs matching every one of
     * its parameters: under an approval policy it can only have made an action request, so no job of ours exists and
     * the runbook goes on with a new request, counting the one that may be left behind.
     */
    async startRestore(input: StartRestoreInput): Promise<StartRestoreResult> {
      if (input.approvalRequestId !== undefined) return repeatApproved(input, input.approvalRequestId);
      // Every earlier attempt of this step ended without an answer we could read.
      const possibleLeftoverRequests = input.kind === 'bucket' ? activityInfo().attempt - 1 : 0;
      return startOnce<StartRestoreResult>(
        () => findRestoreJob(input, since),
        async () => {
          if (input.kind === 'files') {
            const jobId = await client.restoreFiles(input.resourceId, input.snapshotId, requireInput(input.files));
            return { kind: 'started', jobId, adopted: false, possibleLeftoverRequests: 0 };
          }
          const result = await client.restoreBucket(input.resourceId, input.snapshotId, requireInput(input.bucket));
          return result.kind === 'started'
            ? { kind: 'started', jobId: result.jobId, adopted: false, possibleLeftoverRequests: 0 }
            : { kind: 'approvalRequired', requestId: result.request.id, possibleLeftoverRequests };
        },
        (jobId) => ({ kind: 'started', jobId, adopted: true, possibleLeftoverRequests: 0 }),
      );
    },

    /** Looks at a backup job: "not yet" while it runs, its summary once it has ended. */
    async checkBackupJob(jobId: string): Promise<JobSummary> {
      return lookAtJob(
        () => client.getBackupJob(jobId),
        () => client.serviceNow(),
        waitLooks === 'watch',
      );
    },

    async checkRestoreJob(jobId: string): Promise<JobSummary> {
      return lookAtJob(
        () => client.getRestoreJob(jobId),
        () => client.serviceNow(),
        waitLooks === 'watch',
      );
    },
  };
}

function requireInput<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('a restore needs the input of its kind (bucket or files)');
  return value;
}

/**
 * Whether a job is the one a call of ours would have made: created at or after `earliest` (service clock), same
 * restore type (as the dialect tables give it for the resource and kind), snapshot, restore account, resource and,
 * where the record carries it, destination. Anything less could adopt another run's restore. A restore type no table
 * knows decides nothing: the other parameters do, since re-issuing a restore over an unfamiliar name is the worse harm.
 */
export function isRestoreOf(job: RestoreJob, input: StartRestoreInput, earliest = -Infinity): boolean {
  const asked = input.kind === 'bucket' ? input.bucket : input.files;
  if (!asked) return false;
  const carried = destinationOf(job);
  return (
    Date.parse(job.jobExecutionDetails.createdTime) >= earliest &&
    restoreTypeFits(job.restoreType, input.kind, job.resourceDetails?.resourceType) &&
    job.destinationDetails.restoreAccountId === asked.restoreAccountId &&
    (job.snapshotDetails?.id === undefined || job.snapshotDetails.id === input.snapshotId) &&
    (job.resourceDetails?.id === undefined || job.resourceDetails.id === input.resourceId) &&
    (carried === undefined || sameDestination(carried, asked.destination))
  );
}

/** The destination a job record carries, if any: the interface does not promise one, so both likely places. */
function destinationOf(job: RestoreJob): unknown {
  const details = job.destinationDetails as Record<string, unknown>;
  const result = details.restoreResult as Record<string, unknown> | undefined;
  return details.destination ?? (typeof result === 'object' && result !== null ? result.destination : undefined);
}

/** Destinations compare by concept, so that a record in one dialect matches a call named in the other. */
function sameDestination(carried: unknown, asked: object): boolean {
  const named = (d: unknown) => (d !== null && typeof d === 'object' ? destinationConcepts(d) : d);
  return canonical(named(carried)) === canonical(named(asked));
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** What a look at a job returns: its status, outcome and times, as the runbooks read them. */
export function summarize(job: BackupJob | RestoreJob): JobSummary {
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

/**
 * How long one attempt goes on looking at a young job itself before it leaves the next look to a retry. A retry is
 * dispatched by the server: on 2 shared cores that added 0.3 to 0.9 s to each look (bench/drill's history profile),
 * more than the quarter-second schedule, so a drill's steps followed their jobs late. Ten seconds keeps an activity
 * slot for no longer than that.
 */
const LOOK_IN_ATTEMPT_MS = 10_000;
/** Only gaps this short (a job younger than 10 s) are waited in the attempt: heartbeats stay well inside their timeout. */
const GAP_IN_ATTEMPT_MS = 1_000;

/**
 * Looks at a job until it has ended. Scheduled as a watch (runtime/heartbeat.ts), every look is in this attempt;
 * otherwise in this attempt while the job is young, then through the retries' schedule.
 */
async function lookAtJob(
  get: () => Promise<BackupJob | RestoreJob>,
  serviceNow: () => number,
  watches: boolean,
): Promise<JobSummary> {
  const began = Date.now();
  const watching = watches && isWatch(activityInfo());
  for (;;) {
    const summary = summarize(await calling(activityInfo().attempt, get));
    if (!(JOB_ACTIVE_STATUSES as readonly string[]).includes(summary.status)) return ended(summary);
    const nextLook = jobPollDelayMs(serviceNow() - Date.parse(summary.createdTime));
    if (watching) {
      await watchPause(Number.isFinite(nextLook) ? nextLook : MIN_JOB_POLL_MS);
      continue;
    }
    const inAttempt = nextLook <= GAP_IN_ATTEMPT_MS && Date.now() - began + nextLook <= LOOK_IN_ATTEMPT_MS;
    if (!inAttempt) {
      throw notYet(`job ${summary.jobId} is ${summary.status}`, Number.isFinite(nextLook) ? nextLook : undefined);
    }
    // A cancelled wait (the workflow saw the end through a nudge) stops here: the heartbeat brings the cancellation.
    Context.current().heartbeat();
    await Context.current().sleep(nextLook);
  }
}

/** The summary of a job that has ended; "not yet" for a while if its status is one this client does not know. */
function ended(summary: JobSummary): JobSummary {
  if (summary.outcome === 'UNKNOWN' && Date.now() - activityInfo().scheduledTimestampMs < UNKNOWN_STATUS_DEADLINE_MS) {
    throw notYet(`job ${summary.jobId} has status ${summary.status}, which this client does not know yet`);
  }
  return summary;
}
