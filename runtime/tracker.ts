import { ApplicationFailure } from '@temporalio/common';
import {
  CancellationScope,
  condition,
  isCancellation,
  patched,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { z } from 'zod';
import {
  FailureType,
  nudgeSignal,
  RunbookKindKey,
  RunbookResourceKey,
  statusQuery,
  type DrillProgress,
  type RunbookIds,
  type CommonPhase,
  type RunbookStatus,
} from '../contracts';
import { issueField, issueMessage, issuesInOrder } from '../api/validate';

/** The patch that makes nudged looks wait for each other (see `RunbookTracker.look`). */
export const ONE_LOOK_AT_A_TIME = 'one-look-at-a-time';

/** Validates a runbook's input; a bad one fails the run at once, naming the field. */
export function parseInput<T extends z.ZodType>(schema: T, raw: unknown): z.output<T> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issue = issuesInOrder(result.error.issues)[0];
  const field = issue ? issueField(issue) : 'input';
  throw ApplicationFailure.create({
    type: FailureType.InvalidInput,
    nonRetryable: true,
    message: `invalid input${field === 'input' ? '' : ` ${field}`}: ${issue ? issueMessage(issue) : 'invalid'}`,
    details: [{ field }],
  });
}

/** What a tracker reports: the runbook's name (its workflow type) and its phases, as its contract declares them. */
export interface TrackedRunbook<P extends string> {
  workflowType: string;
  phases: readonly P[];
}

/**
 * The runbook's `status` query, its kind and resource search attributes, and a counter of `nudge` signals. Its phases
 * are the contract's, so that a phase the contract does not declare does not compile.
 */
export class RunbookTracker<P extends string> {
  private status: RunbookStatus;
  private nudges = 0;
  /** The look in flight, when one is (see `look`). */
  private looking: Promise<unknown> | undefined;

  /** `tag: false`: no search attributes (a drill's batches are not runbooks of their own in `runbooks list`). */
  constructor(tracked: TrackedRunbook<P>, options: { resource?: string; now?: () => Date; tag?: boolean } = {}) {
    const runbook = tracked.workflowType;
    this.now = options.now ?? (() => new Date());
    this.status = { runbook, phase: 'starting', ids: {}, updatedAt: this.now().toISOString() };
    setHandler(statusQuery, () => this.status);
    setHandler(nudgeSignal, () => {
      this.nudges += 1;
    });
    if (options.tag === false) return;
    // One upsert, one history event.
    upsertSearchAttributes([
      { key: RunbookKindKey, value: runbook },
      ...(options.resource === undefined ? [] : [{ key: RunbookResourceKey, value: options.resource }]),
    ]);
  }

  private readonly now: () => Date;

  /** The `nudge` signals this run has had: a watcher of many waits (steps/job-watcher.ts) looks again on each. */
  get nudged(): number {
    return this.nudges;
  }

  /** Enters a phase: its progress and texts replace the last phase's; IDs add to those already known. */
  phase(phase: P | CommonPhase, extra: Partial<Omit<RunbookStatus, 'runbook' | 'phase' | 'updatedAt'>> = {}): void {
    const ids: RunbookIds = { ...this.status.ids, ...extra.ids };
    const { runbook, warning } = this.status;
    this.status = {
      runbook,
      phase,
      ...extra,
      ids,
      ...(warning ? { warning } : {}),
      updatedAt: this.now().toISOString(),
    };
  }

  /** A warning the status keeps from now on, whatever the phase. */
  warn(warning: string): void {
    this.status = { ...this.status, warning, updatedAt: this.now().toISOString() };
  }

  /** Shows a drill's progress over its batches, besides `progress` in resources. */
  drillProgress(drill: DrillProgress): void {
    const progress = { done: drill.done, total: drill.total, unit: 'resources' };
    this.status = { ...this.status, progress, drill, updatedAt: this.now().toISOString() };
  }

  progress(done: number, total: number, unit: string): void {
    this.status = { ...this.status, progress: { done, total, unit }, updatedAt: this.now().toISOString() };
  }

  /** Says what the runbook waits for (a person's answer, say), or clears it; `verdicts`: the resources it is about. */
  waitingFor(text: string | undefined, verdicts: string[] = []): void {
    const { waitingFor: _text, awaitingVerdict: _verdicts, ...status } = this.status;
    this.status = {
      ...status,
      ...(text ? { waitingFor: text } : {}),
      ...(verdicts.length > 0 ? { awaitingVerdict: verdicts } : {}),
      updatedAt: this.now().toISOString(),
    };
  }

  tag(key: typeof RunbookKindKey, value: string): void {
    upsertSearchAttributes([{ key, value }]);
  }

  /**
   * Waits with `poll` (a waiting activity); each `nudge` signal takes one extra look with `peek` (one activity, no
   * retry). When the look finds the answer the poll is cancelled; when it does not, the poll goes on untouched. A nudge
   * thus costs a signal, a workflow task and one activity, and polling itself adds nothing to history.
   */
  async waitNudgeable<T>(poll: () => Promise<T>, peek: () => Promise<T>): Promise<T> {
    const scope = new CancellationScope();
    const polling = scope.run(poll);
    for (;;) {
      const seen = this.nudges;
      const polled = await Promise.race([
        polling.then((value) => ({ value })),
        condition(() => this.nudges > seen).then(() => undefined),
      ]);
      if (polled) return polled.value;
      const peeked = await this.look(peek).then(
        (value) => ({ value }),
        (err: unknown) => {
          if (isCancellation(err)) throw err;
          // "Not yet", or the look failed: the poll will tell.
          return undefined;
        },
      );
      if (peeked) {
        scope.cancel();
        polling.catch(() => undefined);
        return peeked.value;
      }
    }
  }
  /**
   * Takes one look, after any look still in flight. Looks taken at once (a drill's lanes, nudged together) resolved
   * in one activation on replay but in several when they ran, so their lanes' commands were replayed in another order.
   * One at a time, each look resolves alone. Runs that looked at once before this replay as they ran.
   */
  private async look<T>(peek: () => Promise<T>): Promise<T> {
    if (this.looking !== undefined && patched(ONE_LOOK_AT_A_TIME)) {
      while (this.looking !== undefined) await this.looking.catch(() => undefined);
    }
    const current = peek();
    this.looking = current;
    try {
      return await current;
    } finally {
      if (this.looking === current) this.looking = undefined;
    }
  }
}
