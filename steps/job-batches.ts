import { activityInfo, Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { BackupServiceError, JOB_ACTIVE_STATUSES, type BackupJob, type OffsetBounds, type RestoreJob } from '../api';
import type { ActivityDeps } from '../runtime/activity-deps';
import { notYet, toFailure } from '../runtime/failures';
import { jobPollDelayMs, MIN_JOB_POLL_MS } from '../runtime/poll-delays';
import { summarize, UNKNOWN_STATUS_DEADLINE_MS, type JobSummary } from './jobs';

export type JobKind = 'backup' | 'restore';

/**
 * Job IDs named in one list call. Fifty is the lists' default page size: a chunk comes back in one page even from a
 * service that ignores the page size asked for, its body stays near 2 KB of IDs, and a drill's lanes (up to 50 jobs
 * in flight per kind) are looked at in one call. The interface states no limit on a filter's length.
 */
export const JOB_IDS_PER_LIST = 50;

/** An attempt looks on itself for this long at most, and only at gaps this short (as steps/jobs.ts's per-job wait). */
const LOOK_IN_ATTEMPT_MS = 10_000;
const GAP_IN_ATTEMPT_MS = 1_000;

/**
 * A look at the moment a running job is expected to end, from the jobs of its kind that this worker saw end: their
 * median time from creation to end, over the last EXPECTED_FROM of them (at least EXPECTED_AFTER). It replaces the look
 * its age asks for when it comes before twice that gap, and is at least MIN_JOB_POLL_MS after the look before, as
 * every look is: jobs expected to end close together share looks, and a watcher asks no more often than before. It is placed on our clock by the service's clock
 * bounds (api/service-clock.ts), at the latest moment the service can reach that end, and only while the bounds are
 * within MAX_CLOCK_UNCERTAINTY_MS.
 */
const EXPECTED_FROM = 20;
const EXPECTED_AFTER = 3;
const PREDICTED_MARGIN_MS = 10;
const MAX_CLOCK_UNCERTAINTY_MS = 250;

/** After the list was refused, per-job looks for this long before the list is tried again. */
const REFUSAL_MEMORY_MS = 10 * 60_000;

export interface LookAtJobsInput {
  kind: JobKind;
  /** In-flight jobs of that kind; a look names each of them once. */
  jobIds: string[];
  /** The first attempt's first look comes this much later: the newest job has just been started, it has not ended. */
  firstLookInMs?: number;
  /** Or at this moment (epoch ms), if sooner: when the look before asked for the next (`JobsLook.nextLookAt`). */
  firstLookAt?: number;
}

/** A job that has ended, with what the per-job look returns; or one that cannot be looked at (a 404, say). */
export type JobLookResult =
  { jobId: string; summary: JobSummary } | { jobId: string; failure: { type: string; message: string } };

export interface JobsLook {
  /** Only jobs that ended (or failed to be looked at); the others are still running. */
  finished: JobLookResult[];
  /** When the jobs still running ask to be looked at next (ms from now), if any is. */
  nextLookMs?: number;
  /** The same moment on the worker's clock (epoch ms): the next look keeps it, whatever its dispatch took. */
  nextLookAt?: number;
  /** Service calls this look made: list pages and per-job GETs. */
  calls: { listed: number; fetched: number };
}

type AnyJob = BackupJob | RestoreJob;

/**
 * Looks at many jobs of one kind with the paged job list filtered by `jobId in [...]`, one call per chunk of
 * JOB_IDS_PER_LIST, instead of one GET per job. The per-job GET stays the fallback: for a job the list does not
 * return (a list that lags behind, a job that does not exist), and for every job while the service refuses the filter.
 */
export function jobBatchActivities({ client }: Pick<ActivityDeps, 'client'>) {
  const refusedAt: Record<JobKind, number | undefined> = { backup: undefined, restore: undefined };
  const durations: Record<JobKind, number[]> = { backup: [], restore: [] };
  const ended = (kind: JobKind, summary: JobSummary) => {
    const ms = Date.parse(summary.endTime ?? '') - Date.parse(summary.createdTime);
    if (!summary.succeeded || !Number.isFinite(ms)) return;
    const seen = durations[kind];
    seen.push(ms);
    if (seen.length > EXPECTED_FROM) seen.shift();
  };
  const nextLookIn = (kind: JobKind, summary: JobSummary, ageMs: number) => {
    const seen = durations[kind];
    return lookGapMs({
      ageMs,
      createdMs: Date.parse(summary.createdTime),
      ...(seen.length >= EXPECTED_AFTER ? { expectedMs: median(seen) } : {}),
      offset: client.serviceOffsetBounds(),
      nowMs: Date.now(),
    });
  };
  const listRefused = (kind: JobKind) => {
    const at = refusedAt[kind];
    return at !== undefined && Date.now() - at < REFUSAL_MEMORY_MS;
  };

  const listPage = (kind: JobKind, jobIds: string[], pageToken: string | undefined) => {
    const input = { filters: { jobId: { in: jobIds } } };
    const page = { pageSize: jobIds.length, ...(pageToken ? { pageToken } : {}) };
    return kind === 'backup' ? client.listBackupJobsPage(input, page) : client.listRestoreJobsPage(input, page);
  };
  const getJob = (kind: JobKind, jobId: string): Promise<AnyJob> =>
    kind === 'backup' ? client.getBackupJob(jobId) : client.getRestoreJob(jobId);

  /**
   * The chunk's jobs as the list shows them. When the service refuses the filter or does not apply it, those found so
   * far: the others are looked at one by one, and the list rests for a while.
   */
  async function listed(kind: JobKind, chunk: string[], calls: JobsLook['calls']): Promise<Map<string, AnyJob>> {
    const wanted = new Set(chunk);
    const found = new Map<string, AnyJob>();
    let pageToken: string | undefined;
    do {
      let page: { jobs: AnyJob[]; nextToken?: string | null };
      try {
        calls.listed += 1;
        page = await listPage(kind, chunk, pageToken);
      } catch (err) {
        if (!refusesList(err)) throw err;
        refusedAt[kind] = Date.now();
        return found;
      }
      for (const job of page.jobs) {
        const id = job.jobExecutionDetails.jobId;
        // A job we did not name: the filter was not applied, and paging on would read the whole list.
        if (!wanted.has(id)) {
          refusedAt[kind] = Date.now();
          return found;
        }
        found.set(id, job);
      }
      pageToken = page.nextToken ?? undefined;
    } while (pageToken && found.size < wanted.size);
    return found;
  }

  /** One look at every job: those that ended (or cannot be looked at), and the gap the others ask for. */
  async function lookOnce(kind: JobKind, jobIds: string[], calls: JobsLook['calls']) {
    const attempt = activityInfo().attempt;
    const finished: JobLookResult[] = [];
    let nextLook = Infinity;
    const note = (job: AnyJob) => {
      const summary = summarize(job);
      const age = client.serviceNow() - Date.parse(summary.createdTime);
      if (hasEnded(summary, age)) {
        finished.push({ jobId: summary.jobId, summary });
        ended(kind, summary);
      } else nextLook = Math.min(nextLook, nextLookIn(kind, summary, age));
    };
    for (let at = 0; at < jobIds.length; at += JOB_IDS_PER_LIST) {
      const chunk = jobIds.slice(at, at + JOB_IDS_PER_LIST);
      const seen = listRefused(kind) ? new Map<string, AnyJob>() : await listed(kind, chunk, calls);
      for (const jobId of chunk) {
        const job = seen.get(jobId);
        if (job) {
          note(job);
          continue;
        }
        calls.fetched += 1;
        const fetched = await getJob(kind, jobId).catch((err: unknown) => failureOf(err, attempt));
        if (fetched instanceof ApplicationFailure) {
          finished.push({ jobId, failure: { type: fetched.type ?? 'Error', message: fetched.message } });
        } else note(fetched);
      }
    }
    return { finished, nextLook };
  }

  return {
    /**
     * Looks at every job named until one ends: those that ended come back. While the youngest running job asks for
     * looks a second apart or less (runtime/poll-delays.ts), the attempt looks on itself, as the per-job wait does
     * (steps/jobs.ts): a retry dispatched by the server comes later than that. Otherwise "not yet", with that gap. A
     * watcher that cancels the look for a newer set of jobs stops it at its next heartbeat, within about a second.
     */
    async lookAtJobs(input: LookAtJobsInput): Promise<JobsLook> {
      const began = Date.now();
      const jobIds = [...new Set(input.jobIds)];
      const calls = { listed: 0, fetched: 0 };
      const wait = async (ms: number) => {
        Context.current().heartbeat();
        await Context.current().sleep(ms);
      };
      const at = input.firstLookAt === undefined ? Infinity : Math.max(0, input.firstLookAt - Date.now());
      const firstLookIn = activityInfo().attempt === 1 ? Math.min(input.firstLookInMs ?? 0, at) : 0;
      if (firstLookIn > GAP_IN_ATTEMPT_MS) throw notYet(`first look at ${jobIds.length} jobs`, firstLookIn);
      if (firstLookIn > 0) await wait(firstLookIn);
      for (;;) {
        const { finished, nextLook } = await lookOnce(input.kind, jobIds, calls);
        if (finished.length > 0) {
          const next = finite(nextLook);
          return {
            finished,
            ...(next === undefined ? {} : { nextLookMs: next, nextLookAt: Date.now() + next }),
            calls,
          };
        }
        const inAttempt = nextLook <= GAP_IN_ATTEMPT_MS && Date.now() - began + nextLook <= LOOK_IN_ATTEMPT_MS;
        if (!inAttempt) {
          const running = `${jobIds.length} ${input.kind} jobs running`;
          throw notYet(`${running} (${calls.listed} listed, ${calls.fetched} fetched)`, finite(nextLook));
        }
        await wait(nextLook);
      }
    },
  };
}

/**
 * The look a running job asks for, in ms from now: by its age (runtime/poll-delays.ts), or at its expected end (its
 * creation plus `expectedMs`, on the service's clock) when that comes before twice the age's gap and the clock bounds
 * are narrow enough to place it on ours. The expected end is placed at the latest moment of ours the bounds allow.
 */
export function lookGapMs(job: {
  ageMs: number;
  createdMs: number;
  expectedMs?: number;
  offset: OffsetBounds | undefined;
  nowMs: number;
}): number {
  const byAge = jobPollDelayMs(job.ageMs);
  const { expectedMs, offset } = job;
  if (expectedMs === undefined || !offset || offset.hi - offset.lo > MAX_CLOCK_UNCERTAINTY_MS) return byAge;
  const untilEnd = job.createdMs + expectedMs - offset.lo - job.nowMs + PREDICTED_MARGIN_MS;
  if (untilEnd < 0 || untilEnd > 2 * byAge) return byAge;
  return Math.max(MIN_JOB_POLL_MS, untilEnd);
}

/** A job has ended when its status is not active; a status this client does not know counts once the job is old. */
function hasEnded(summary: JobSummary, ageMs: number): boolean {
  if ((JOB_ACTIVE_STATUSES as readonly string[]).includes(summary.status)) return false;
  return summary.outcome !== 'UNKNOWN' || ageMs >= UNKNOWN_STATUS_DEADLINE_MS;
}

/**
 * Whether a list call's error says the service will not list jobs this way: the filter or the body refused (400), no
 * such list (404, 405) or an answer that is no job list. Throttling, 5xx and network errors are retried instead.
 */
function refusesList(err: unknown): boolean {
  if (!(err instanceof BackupServiceError)) return false;
  return ['BAD_REQUEST', 'NOT_FOUND', 'UNEXPECTED_STATUS', 'INVALID_RESPONSE'].includes(err.code);
}

/**
 * A job that cannot be looked at for good (404, 403) is reported as such, so that only its own wait fails; an error
 * worth retrying (429, 5xx, network) fails the whole look, which the retry policy repeats.
 */
function failureOf(err: unknown, attempt: number): ApplicationFailure {
  const failure = toFailure(err, attempt);
  if (err instanceof BackupServiceError && !err.retryable && failure instanceof ApplicationFailure) return failure;
  throw failure;
}

const finite = (ms: number) => (Number.isFinite(ms) ? ms : undefined);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export type JobBatchActivities = ReturnType<typeof jobBatchActivities>;
