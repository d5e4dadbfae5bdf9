// Workflow-side: snapshot starts in slots of the project's limiter (workflow.ts). A run asks for a slot, waits for the
// grant signal (a wait that costs nothing: no activity runs meanwhile), starts its backup, and gives the slot back
// when the job has ended, or hands it to one of its own starts still waiting.
import {
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { StartBackupInput } from '../../steps/jobs';
import { serviceCalls } from '../../runtime/calls';
import type { SnapshotSlot, SnapshotSlotActivities } from './activities';
import { releaseSlotSignal, requestSlotSignal, slotGrantedSignal } from './contract';

/**
 * Starts still waiting for a grant ask again this often: a limiter that was terminated and started again knows no
 * earlier request. One timer for all of a run's waits, not one per wait.
 */
const ASK_AGAIN_MS = 10 * 60_000;

export interface SlottedBackup {
  jobId: string;
  adopted: boolean;
  /** To give back (`release`) once the job has ended. */
  slot: SnapshotSlot;
  /** 429s met on the way (each sent the start back to the head of the queue). */
  throttled: number;
}

/**
 * The lease of one snapshot start of this run, named by `key` (the resource): the same on every attempt, so that a
 * retried request never takes a second slot, and known here, so that the run can give the slot back whatever happens.
 */
export function snapshotSlotLease(key: string): string {
  const { workflowId, runId } = workflowInfo();
  return `${workflowId}/${runId}/${key}`;
}

/** One per run (it handles the run's grant signals): the run's snapshot starts, in slots of the project's limiter. */
export class SnapshotSlots {
  private readonly calls = serviceCalls<SnapshotSlotActivities>();
  /** Grants signalled and not yet used, by lease. */
  private readonly granted = new Map<string, number>();
  /** Leases given a slot of this run's by hand-over (see `release`), with the lease it came from. */
  private readonly handedFrom = new Map<string, string>();
  /** The last grant used by each lease: a grant told again later (an answer to asking again) is not used twice. */
  private readonly used = new Map<string, number>();
  private readonly asking = new Set<string>();
  private limiterId: string | undefined;
  private askingAgain = false;

  constructor() {
    setHandler(slotGrantedSignal, ({ leaseId, grant }) => {
      if (grant > (this.used.get(leaseId) ?? 0)) this.granted.set(leaseId, grant);
    });
  }

  /** This run's starts waiting for a slot now: what its status shows as "waiting for a snapshot slot". */
  get waiting(): number {
    return this.asking.size;
  }

  /**
   * Takes a snapshot of a resource in a slot: waits for the grant, starts the backup, and after a 429 waits again
   * (first in line, once the service's `Retry-After` has passed). The slot stays held: `release` it once the job
   * has ended, since the service's cap counts running backups. A start that fails gives its slot back itself.
   */
  async startBackup(key: string, input: StartBackupInput): Promise<SlottedBackup> {
    const leaseId = snapshotSlotLease(key);
    let throttled = 0;
    try {
      for (let ask = true; ; ask = false) {
        const grant = await this.grantFor(leaseId, ask);
        const from = this.handedFrom.get(leaseId);
        this.handedFrom.delete(leaseId);
        const handed = from === undefined ? {} : { handedFrom: from };
        const started = await this.calls.startBackupInSlot({ ...input, leaseId, grant, ...handed });
        if (started.kind === 'started') {
          const { jobId, adopted } = started;
          return { jobId, adopted, slot: { leaseId, grant, limiterId: this.limiterId ?? '' }, throttled };
        }
        throttled += 1;
      }
    } catch (err) {
      await this.release({ leaseId });
      throw err;
    }
  }

  /**
   * Gives a slot back (or withdraws from the queue): a signal to the limiter, two events, or the release activity
   * when this run has not learnt the limiter's ID. A slot whose backup has ended goes straight to this run's first
   * start still waiting, if one does, and the signal tells the limiter so: that start need not wait for a grant's
   * trip through Temporal. Never fails the run: a slot not given back returns when the run ends (the limiter checks
   * its holders).
   */
  async release(slot: { leaseId: string; grant?: number; limiterId?: string }): Promise<void> {
    const limiterId = slot.limiterId || this.limiterId;
    const handedTo = slot.grant === undefined ? undefined : this.firstWaiting();
    if (handedTo !== undefined && slot.grant !== undefined) {
      this.granted.set(handedTo, slot.grant);
      this.handedFrom.set(handedTo, slot.leaseId);
    }
    const released = { leaseId: slot.leaseId, ...(handedTo === undefined ? {} : { handedTo }) };
    await CancellationScope.nonCancellable(async () => {
      try {
        if (limiterId) await getExternalWorkflowHandle(limiterId).signal(releaseSlotSignal, released);
        else await this.calls.releaseSnapshotSlot(released);
      } catch (err) {
        log.warn('snapshot slot not released; the limiter reclaims it when this run ends', { error: String(err) });
      }
    });
  }

  /** The first of this run's starts that waits for a grant and has none yet (in the order they began to wait). */
  private firstWaiting(): string | undefined {
    for (const leaseId of this.asking) if (!this.granted.has(leaseId)) return leaseId;
    return undefined;
  }

  /** Asks for a slot (unless the limiter queued the lease already, after a 429) and waits for its grant. */
  private async grantFor(leaseId: string, ask: boolean): Promise<number> {
    this.asking.add(leaseId);
    try {
      if (ask) await this.ask(leaseId);
      this.askAgainWhileWaiting();
      await condition(() => this.granted.has(leaseId));
    } finally {
      this.asking.delete(leaseId);
    }
    const grant = this.granted.get(leaseId) ?? 0;
    this.granted.delete(leaseId);
    this.used.set(leaseId, grant);
    return grant;
  }

  /**
   * Asks for a slot: once the run knows the limiter, a signal straight to it (two events, no activity); the first
   * time, or when that limiter is gone, the activity that starts one if none runs (signal-with-start).
   */
  private async ask(leaseId: string): Promise<void> {
    if (this.limiterId) {
      const { workflowId, runId } = workflowInfo();
      try {
        await getExternalWorkflowHandle(this.limiterId).signal(requestSlotSignal, {
          leaseId,
          holder: { workflowId, runId },
        });
        return;
      } catch (err) {
        if (isCancellation(err)) throw err;
      }
    }
    const { limiterId } = await this.calls.requestSnapshotSlot({ leaseId });
    this.limiterId = limiterId;
  }

  /** While any start of this run waits, asks again for each every ASK_AGAIN_MS (a request again keeps its place). */
  private askAgainWhileWaiting(): void {
    if (this.askingAgain) return;
    this.askingAgain = true;
    const loop = async () => {
      try {
        while (this.asking.size > 0) {
          if (await condition(() => this.asking.size === 0, ASK_AGAIN_MS)) break;
          for (const leaseId of [...this.asking]) if (!this.granted.has(leaseId)) await this.ask(leaseId);
        }
      } finally {
        this.askingAgain = false;
      }
    };
    void loop().catch((err: unknown) => {
      // A cancelled run, or a request that failed for good: the waits themselves report what matters.
      if (!isCancellation(err)) log.warn('asking again for snapshot slots failed', { error: String(err) });
    });
  }
}
