import { activityInfo, Context } from '@temporalio/activity';
import { WithStartWorkflowOperation, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { TooManyRequestsError, type BackupServiceClient } from '../../api';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { checkpoint } from '../../runtime/heartbeat';
import { jobActivities, type StartBackupInput } from '../../steps/jobs';
import {
  acquireSlotUpdate,
  releaseSlotSignal,
  reportStartSignal,
  SNAPSHOT_SLOTS_WORKFLOW,
  snapshotSlotsWorkflowId,
  type SlotAnswer,
  type SlotHolder,
  type SnapshotSlotsInput,
  type SnapshotStartReport,
} from './contract';

/** A slot of the limiter, as the workflow keeps it to give it back. */
export interface SnapshotSlot {
  limiterId: string;
  leaseId: string;
}

export interface SlotBackupInput extends StartBackupInput {
  /** The slot's lease: the workflow names it (`snapshotSlotLease`), so that it can give the slot back whatever happens. */
  leaseId: string;
}

export interface SlotBackup extends SnapshotSlot {
  jobId: string;
  adopted: boolean;
  /** 429s this start met (each put it back at the head of the queue). */
  throttled: number;
}

/** What a waiting acquire heartbeats, for `temporal workflow describe` of the drill: its place in the queue. */
export interface WaitingForSlot {
  waitingForSnapshotSlot: true;
  waiting: number;
  position?: number;
  held: number;
  limit: number;
  pausedUntil?: string;
}

/** Failed calls to the limiter in a row before the attempt fails and the activity's retry policy takes over. */
const LIMITER_CALL_FAILURES = 5;

export function snapshotSlotActivities({ client }: Pick<ActivityDeps, 'client'>) {
  const limiterId = () => snapshotSlotsWorkflowId(client.projectId);
  const temporal = (): Client => Context.current().client;
  const holder = (): SlotHolder => {
    const run = activityInfo().workflowExecution;
    if (!run) throw ApplicationFailure.nonRetryable('a snapshot slot is held by a workflow run', 'SlotLimiter');
    return { workflowId: run.workflowId, runId: run.runId };
  };

  /** One acquire: update-with-start, so that the first caller of a project starts its limiter. */
  function askForSlot(leaseId: string, first: boolean): Promise<SlotAnswer> {
    const input: SnapshotSlotsInput = { projectId: client.projectId };
    return temporal().workflow.executeUpdateWithStart(acquireSlotUpdate, {
      args: [{ leaseId, holder: holder(), first }],
      startWorkflowOperation: new WithStartWorkflowOperation(SNAPSHOT_SLOTS_WORKFLOW, {
        workflowId: limiterId(),
        taskQueue: activityInfo().taskQueue,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    });
  }

  async function signalLimiter(send: (id: string) => Promise<void>): Promise<void> {
    try {
      await send(limiterId());
    } catch (err) {
      // No limiter running: it has no slot of ours to free or count.
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }

  const release = (leaseId: string) =>
    signalLimiter((id) => temporal().workflow.getHandle(id).signal(releaseSlotSignal, { leaseId }));
  const report = (r: SnapshotStartReport) =>
    signalLimiter((id) => temporal().workflow.getHandle(id).signal(reportStartSignal, r));

  /**
   * Waits in the limiter's queue until the lease holds a slot, heartbeating its place. Asking again with the same
   * lease (a retried attempt) finds the slot it was given, never a second one. A cancelled wait withdraws from the queue.
   */
  async function acquire(leaseId: string): Promise<SlotAnswer> {
    const context = Context.current();
    let first = true;
    let failures = 0;
    for (;;) {
      let answer: SlotAnswer;
      try {
        const asked = askForSlot(leaseId, first);
        // The client cannot abort an update: stop awaiting it instead, and withdraw.
        asked.catch(() => undefined);
        answer = await Promise.race([asked, context.cancelled]);
      } catch (err) {
        if (context.cancellationSignal.aborted) {
          await release(leaseId).catch(() => undefined);
          throw err;
        }
        // The limiter was continuing as new, or Temporal was briefly unreachable: ask again shortly.
        failures += 1;
        if (failures >= LIMITER_CALL_FAILURES) {
          throw ApplicationFailure.retryable(`the snapshot-slot limiter did not answer: ${String(err)}`, 'SlotLimiter');
        }
        await context.sleep(500 * failures);
        continue;
      }
      failures = 0;
      first = false;
      if (answer.granted) return answer;
      const waiting: WaitingForSlot = {
        waitingForSnapshotSlot: true,
        waiting: answer.waiting,
        held: answer.held,
        limit: answer.limit,
        ...(answer.position === undefined ? {} : { position: answer.position }),
        ...(answer.pausedUntil === undefined ? {} : { pausedUntil: answer.pausedUntil }),
      };
      checkpoint(waiting);
    }
  }

  return {
    /**
     * Takes a snapshot in a slot of the project's limiter: waits for a slot, starts the backup (exactly once, as
     * `startBackup` does), and reports how it went. A 429 halves the limit and puts this start back at the head of
     * the queue, until the service's `Retry-After` has passed. The slot stays held until `releaseSnapshotSlot`
     * (when the job has ended: the service's cap counts running backups).
     */
    async startBackupInSlot(input: SlotBackupInput): Promise<SlotBackup> {
      const { leaseId, ...backup } = input;
      // The 429 that take-snapshot met in this try, read past the failure it becomes.
      let refused: TooManyRequestsError | undefined;
      const refusal = () => refused;
      const jobs = jobActivities({
        client: onThrottle(client, (err) => {
          refused = err;
        }),
      });
      let throttled = 0;
      for (;;) {
        const slot = await acquire(leaseId);
        refused = undefined;
        try {
          const { jobId, adopted } = await jobs.startBackup(backup);
          await report({ leaseId, grant: slot.grant ?? 0, result: 'ok', jobId });
          return { limiterId: limiterId(), leaseId, jobId, adopted, throttled };
        } catch (err) {
          const why = refusal();
          if (!why) throw err;
          throttled += 1;
          await report({
            leaseId,
            grant: slot.grant ?? 0,
            result: 'throttled',
            ...(why.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: why.retryAfterSeconds }),
          });
        }
      }
    },

    /** Waits for a slot (see `startBackupInSlot`, which does this and the start in one). */
    async acquireSnapshotSlot(input: { leaseId: string }): Promise<SnapshotSlot & { grant: number }> {
      const answer = await acquire(input.leaseId);
      return { limiterId: limiterId(), leaseId: input.leaseId, grant: answer.grant ?? 0 };
    },

    /** How a start in a slot went: `ok` with its job, or `throttled` (the 429's `Retry-After`, when it had one). */
    async reportSnapshotStart(input: SnapshotStartReport): Promise<void> {
      await report(input);
    },

    /** Gives a slot back, or withdraws from the queue; a lease released already is ignored. */
    async releaseSnapshotSlot(input: { leaseId: string }): Promise<void> {
      await release(input.leaseId);
    },

    /** The limiter's check of the runs it lists as holders: the ones that have ended (or are unknown to Temporal). */
    async endedSlotHolders(holders: SlotHolder[]): Promise<SlotHolder[]> {
      const ended: SlotHolder[] = [];
      const BATCH = 20;
      for (let i = 0; i < holders.length; i += BATCH) {
        await Promise.all(
          holders.slice(i, i + BATCH).map(async (h) => {
            try {
              const described = await temporal().workflow.getHandle(h.workflowId, h.runId).describe();
              if (described.status.name !== 'RUNNING') ended.push(h);
            } catch (err) {
              if (err instanceof WorkflowNotFoundError) ended.push(h);
              // Any other error leaves the holder as it is, to be checked again at the next sweep.
            }
          }),
        );
      }
      return ended;
    },
  };
}

export type SnapshotSlotActivities = ReturnType<typeof snapshotSlotActivities>;

/** The client, telling `seen` of every 429 that take-snapshot meets (the error itself still propagates). */
function onThrottle(client: BackupServiceClient, seen: (err: TooManyRequestsError) => void): BackupServiceClient {
  return new Proxy(client, {
    get(target, name) {
      const value: unknown = Reflect.get(target, name, target);
      if (typeof value !== 'function') return value;
      const call = value as (...args: unknown[]) => unknown;
      if (name !== 'takeSnapshot') return call.bind(target);
      return async (...args: unknown[]) => {
        try {
          return await call.apply(target, args);
        } catch (err) {
          if (err instanceof TooManyRequestsError) seen(err);
          throw err;
        }
      };
    },
  });
}
