import { ApplicationFailure } from '@temporalio/common';
import { CancellationScope, condition, isCancellation } from '@temporalio/workflow';
import type { JobBatchActivities, JobKind, JobsLook, LookAtJobsInput } from './job-batches';
import type { JobSummary } from './jobs';
import { waitingCalls } from '../runtime/calls';
import { MIN_JOB_POLL_MS } from '../runtime/poll-delays';

/**
 * The patch for a runbook that starts waiting on its jobs through a JobWatcher instead of one waiting activity per
 * job. A workflow type new with the watcher needs none; one that waited job by job before asks once per run (before
 * its first job starts) and keeps the answer, so that its old runs replay their per-job waits.
 */
export const JOB_WATCHER_PATCH = 'job-watcher';

export interface JobWatcherOptions {
  /** How many `nudge` signals the run has had (RunbookTracker.nudged): each one makes the watcher look at once. */
  nudges?: () => number;
  /** The look activity; by default the waiting preset's `lookAtJobs`. */
  look?: (input: LookAtJobsInput) => Promise<JobsLook>;
}

interface Waiter {
  promise: Promise<JobSummary>;
  resolve: (summary: JobSummary) => void;
  reject: (err: unknown) => void;
}

/**
 * Watches a run's in-flight jobs of one kind with one waiting activity for all of them, in workflow code. A lane calls
 * `await watcher.finished(jobId)`; one look at a time (a paged list call per 50 jobs, steps/job-batches.ts) settles
 * each job that ended. A job that joins while a look waits for its retry restarts the look with every job, so no
 * job waits for another's schedule: the old look is cancelled (a cancel request and the cancellation in history) and
 * the new one's first call comes MIN_JOB_POLL_MS later, as a job just started has not ended. A nudge restarts it
 * with a look at once.
 */
export class JobWatcher {
  private readonly waiters = new Map<string, Waiter>();
  /** The scope the watcher was made in: its looks end when that scope is cancelled, whichever lane started them. */
  private readonly home = CancellationScope.current();
  private readonly nudges: () => number;
  private readonly look: (input: LookAtJobsInput) => Promise<JobsLook>;
  private watching = false;
  /** A job joined since the current look was scheduled. */
  private joined = false;
  /** Looks scheduled and looks given up for a newer set (for tests and benchmarks). */
  readonly counts = { looks: 0, restarts: 0 };

  constructor(
    private readonly kind: JobKind,
    options: JobWatcherOptions = {},
  ) {
    this.nudges = options.nudges ?? (() => 0);
    this.look = options.look ?? ((input) => waitingCalls<JobBatchActivities>().lookAtJobs(input));
  }

  /**
   * The job's summary once it has ended, as the per-job look returns it; rejects when it cannot be looked at (the
   * service's typed failure) or when the caller's scope is cancelled.
   */
  finished(jobId: string): Promise<JobSummary> {
    let waiter = this.waiters.get(jobId);
    if (waiter === undefined) {
      let resolve: Waiter['resolve'] = () => undefined;
      let reject: Waiter['reject'] = () => undefined;
      const promise = new Promise<JobSummary>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      waiter = { promise, resolve, reject };
      this.waiters.set(jobId, waiter);
      this.joined = true;
      if (!this.watching) {
        this.watching = true;
        void this.watch().catch((err: unknown) => this.rejectAll(err));
      }
    }
    // A lane in a scope of its own stops waiting when that scope is cancelled, even while the look goes on.
    const caller = CancellationScope.current();
    return caller === this.home ? waiter.promise : Promise.race([waiter.promise, caller.cancelRequested]);
  }

  /** Jobs registered and not yet settled, in the order they joined. */
  get inFlight(): string[] {
    return [...this.waiters.keys()];
  }

  private async watch(): Promise<void> {
    let firstLookInMs = MIN_JOB_POLL_MS;
    let firstLookAt: number | undefined;
    try {
      while (this.waiters.size > 0) {
        const jobIds = [...this.waiters.keys()];
        const nudged = this.nudges();
        this.joined = false;
        const outcome: { look?: JobsLook; error?: unknown; failed?: boolean } = {};
        const scope = new CancellationScope({ cancellable: true, parent: this.home });
        this.counts.looks += 1;
        const at = firstLookAt === undefined ? {} : { firstLookAt };
        const looking = scope.run(() => this.look({ kind: this.kind, jobIds, firstLookInMs, ...at }));
        looking.then(
          (look) => (outcome.look = look),
          (error: unknown) => Object.assign(outcome, { error, failed: true }),
        );
        await condition(
          () => outcome.look !== undefined || outcome.failed === true || this.joined || this.nudges() > nudged,
        );
        if (outcome.look === undefined && outcome.failed !== true) {
          // A newer set of jobs (or a nudge) replaces this look; its cancellation is not waited for.
          scope.cancel();
          this.counts.restarts += 1;
          firstLookInMs = this.nudges() > nudged ? 0 : MIN_JOB_POLL_MS;
          firstLookAt = undefined;
          continue;
        }
        // The jobs still running were seen just now: the next look comes when the youngest of them asks for it, or
        // soon for a job that joined meanwhile.
        const soonest = this.joined ? MIN_JOB_POLL_MS : Infinity;
        firstLookInMs = outcome.look ? Math.min(outcome.look.nextLookMs ?? MIN_JOB_POLL_MS, soonest) : 0;
        // The moment the look asked for, kept across the task and the next look's dispatch.
        firstLookAt = outcome.look?.nextLookAt;
        if (outcome.look) this.settle(outcome.look);
        else if (isCancellation(outcome.error) && this.home.consideredCancelled) throw outcome.error;
        // The look failed for good (a refusal the retries cannot mend): every job it named fails with it.
        else for (const jobId of jobIds) this.take(jobId)?.reject(outcome.error);
      }
    } finally {
      this.watching = false;
    }
  }

  private settle(look: JobsLook): void {
    for (const result of look.finished) {
      const waiter = this.take(result.jobId);
      if (!waiter) continue;
      if ('summary' in result) waiter.resolve(result.summary);
      else {
        const { type, message } = result.failure;
        waiter.reject(ApplicationFailure.create({ type, message, nonRetryable: true }));
      }
    }
  }

  private take(jobId: string): Waiter | undefined {
    const waiter = this.waiters.get(jobId);
    this.waiters.delete(jobId);
    return waiter;
  }

  private rejectAll(err: unknown): void {
    for (const jobId of this.inFlight) this.take(jobId)?.reject(err);
  }
}
