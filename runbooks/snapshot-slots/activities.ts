import { activityInfo, Context } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { TooManyRequestsError, type BackupServiceClient } from '../../api';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { runStatus } from '../../runtime/run-status';
import { jobActivities, type StartBackupInput } from '../../steps/jobs';
import {
  releaseSlotSignal,
  reportStartSignal,
  requestSlotSignal,
  requestSlotsSignal,
  SNAPSHOT_SLOTS_WORKFLOW,
  snapshotSlotsWorkflowId,
  type ReleaseSlot,
  type SlotHolder,
  type SnapshotSlotsInput,
  type SnapshotStartReport,
} from './contract';

/** A slot of the limiter, as the workflow keeps it to give it back. */
export interface SnapshotSlot {
  limiterId: string;
  leaseId: string;
  /** The grant the slot was given under (handed over with it). */
  grant: number;
}

export interface SlotBackupInput extends StartBackupInput {
  leaseId: string;
  /** The grant the limiter signalled: the start is reported against it. */
  grant: number;
  /** The lease that handed its slot over to this one (see `ReleaseSlot.handedTo`). */
  handedFrom?: string;
}

/** A start in a granted slot: the job, or the 429 that sent the lease back to the head of the queue. */
export type SlotBackup =
  { kind: 'started'; jobId: string; adopted: boolean } | { kind: 'throttled'; retryAfterSeconds?: number };

export function snapshotSlotActivities({ client }: Pick<ActivityDeps, 'client'>) {
  const limiterId = () => snapshotSlotsWorkflowId(client.projectId);
  const temporal = (): Client => Context.current().client;

  async function signalLimiter(send: (id: string) => Promise<void>): Promise<void> {
    try {
      await send(limiterId());
    } catch (err) {
      // No limiter running: it has no slot of ours to free or count.
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }
  const report = (r: SnapshotStartReport) =>
    signalLimiter((id) => temporal().workflow.getHandle(id).signal(reportStartSignal, r));

  return {
    /**
     * Asks the project's limiter for a slot, or for one slot per lease of `leaseIds` (the starts a run asks for
     * together), starting the limiter if none runs (signal-with-start); grants come back to the run by signal. Asking
     * again with the same lease keeps its place.
     */
    async requestSnapshotSlot(input: {
      leaseId: string;
      leaseIds?: string[];
    }): Promise<{ limiterId: string; leaseId: string }> {
      const run = activityInfo().workflowExecution;
      if (!run) throw ApplicationFailure.nonRetryable('a snapshot slot is held by a workflow run', 'SlotLimiter');
      const holder: SlotHolder = { workflowId: run.workflowId, runId: run.runId };
      const start: SnapshotSlotsInput = { projectId: client.projectId };
      const options = { workflowId: limiterId(), taskQueue: activityInfo().taskQueue, args: [start] as [typeof start] };
      if (input.leaseIds) {
        await temporal().workflow.signalWithStart(SNAPSHOT_SLOTS_WORKFLOW, {
          ...options,
          signal: requestSlotsSignal,
          signalArgs: [{ leaseIds: input.leaseIds, holder }],
        });
      } else {
        await temporal().workflow.signalWithStart(SNAPSHOT_SLOTS_WORKFLOW, {
          ...options,
          signal: requestSlotSignal,
          signalArgs: [{ leaseId: input.leaseId, holder }],
        });
      }
      return { limiterId: limiterId(), leaseId: input.leaseId };
    },

    /**
     * Takes a snapshot in a granted slot, exactly once (as `startBackup`: a retry first looks for the job an earlier
     * attempt may have started), and reports how it went: a start grows the limit; a 429 halves it, pauses grants
     * for its `Retry-After`, and puts this lease back at the head of the queue (the run waits for its next grant).
     */
    async startBackupInSlot(input: SlotBackupInput): Promise<SlotBackup> {
      const { leaseId, grant, handedFrom, ...backup } = input;
      const slot = { leaseId, grant, ...(handedFrom === undefined ? {} : { handedFrom }) };
      let refused: TooManyRequestsError | undefined;
      const refusal = () => refused;
      const jobs = jobActivities({
        client: onThrottle(client, (err) => {
          refused = err;
        }),
      });
      try {
        const { jobId, adopted } = await jobs.startBackup(backup);
        await report({ ...slot, result: 'ok', jobId });
        return { kind: 'started', jobId, adopted };
      } catch (err) {
        const why = refusal();
        if (!why) throw err;
        const retryAfter = why.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: why.retryAfterSeconds };
        await report({ ...slot, result: 'throttled', ...retryAfter });
        return { kind: 'throttled', ...retryAfter };
      }
    },

    /** Gives a slot back, or withdraws from the queue; a lease released already is ignored. */
    async releaseSnapshotSlot(input: ReleaseSlot): Promise<void> {
      await signalLimiter((id) => temporal().workflow.getHandle(id).signal(releaseSlotSignal, input));
    },

    /** The limiter's check of the runs it lists as holders: the ones that have ended (or are unknown to Temporal). */
    async endedSlotHolders(holders: SlotHolder[]): Promise<SlotHolder[]> {
      const ended: SlotHolder[] = [];
      const BATCH = 20;
      for (let i = 0; i < holders.length; i += BATCH) {
        await Promise.all(
          holders.slice(i, i + BATCH).map(async (h) => {
            // Any other error than an unknown run leaves the holder as it is, to be checked again at the next sweep.
            const status = await runStatus(temporal(), h.workflowId, h.runId).catch(() => 'RUNNING');
            if (status !== 'RUNNING') ended.push(h);
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
