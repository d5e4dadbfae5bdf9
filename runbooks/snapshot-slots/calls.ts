// Workflow-side: snapshot starts in slots of the project's limiter (workflow.ts). A run asks for a slot, waits for the
// grant signal (a wait that costs nothing: no activity runs meanwhile), starts its backup, and gives the slot back
// when the job has ended, or hands it to one of its own starts still waiting.
import {
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { StartBackupInput } from '../../steps/jobs';
import { serviceCalls } from '../../runtime/calls';
import type { SnapshotSlot, SnapshotSlotActivities } from './activities';
import {
  releaseSlotSignal,
  releaseSlotsSignal,
  requestSlotSignal,
  requestSlotsSignal,
  slotGrantedSignal,
  slotsGrantedSignal,
  type ReleaseSlot,
  type SlotGranted,
} from './contract';

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
 * A run's starts ask together: those that ask before the limiter is known wait for the first ask's activity (which
 * starts the limiter if none runs, and names it) instead of each running one, and the asks of one task go to the
 * limiter in one signal, so that it grants them together. Runs recorded before ask one by one.
 */
export const ASKS_TOGETHER_PATCH = 'snapshot-slots-asks-together';

/**
 * A run goes on as soon as its release is signalled, without waiting for the limiter to have it: the restore after a
 * backup starts in the same task as the backup's slot is given back. Runs recorded before wait for the signal.
 */
export const RELEASE_UNAWAITED_PATCH = 'snapshot-slots-release-unawaited';

/**
 * The first ask of a run carries every ask of its task (one activity, whose signal-with-start asks for them all, so
 * that the limiter grants them together), and the releases of one task go to the limiter in one signal. Before, the
 * starts of a batch waited for the first ask's activity and then asked in a second trip, and each release was a
 * signal of its own, with a workflow task of the batch each.
 */
export const FIRST_ASK_AND_RELEASES_TOGETHER_PATCH = 'snapshot-slots-first-ask-and-releases-together';

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
  /** The first ask's activity, while it is on its way: the others wait for the limiter's ID it brings. */
  private firstAsk: Promise<unknown> | undefined;
  /** The leases the first ask carries, until its activity is scheduled at the end of the task. */
  private firstLeases: string[] | undefined;
  private askingAgain = false;

  /** Releases signalled and not yet taken by the limiter (RELEASE_UNAWAITED_PATCH): a run awaits them before it ends. */
  private readonly releasing = new Set<Promise<void>>();
  /** Asks of this task not yet signalled, and the signal that will carry them (see `askTogether`). */
  private unsent: string[] = [];
  private sending: Promise<void> | undefined;
  /** Releases of this task not yet signalled, by limiter, and the signal that will carry them. */
  private readonly unreleased = new Map<string, { releases: ReleaseSlot[]; sent: Promise<void> }>();

  constructor() {
    const take = ({ leaseId, grant }: SlotGranted) => {
      if (grant > (this.used.get(leaseId) ?? 0)) this.granted.set(leaseId, grant);
    };
    setHandler(slotGrantedSignal, take);
    setHandler(slotsGrantedSignal, ({ grants }) => grants.forEach(take));
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
    const sending = CancellationScope.nonCancellable(async () => {
      try {
        if (limiterId && patched(FIRST_ASK_AND_RELEASES_TOGETHER_PATCH))
          await this.releaseTogether(limiterId, released);
        else if (limiterId) await getExternalWorkflowHandle(limiterId).signal(releaseSlotSignal, released);
        else await this.calls.releaseSnapshotSlot(released);
      } catch (err) {
        log.warn('snapshot slot not released; the limiter reclaims it when this run ends', { error: String(err) });
      }
    });
    // Sent in this task either way; only runs recorded before wait for the limiter to have it.
    if (!patched(RELEASE_UNAWAITED_PATCH)) return sending;
    this.releasing.add(sending);
    void sending.finally(() => this.releasing.delete(sending));
  }

  /** Adds a release to those of this task: they go in one signal once the task's other code has run. */
  private releaseTogether(limiterId: string, released: ReleaseSlot): Promise<void> {
    const pending = this.unreleased.get(limiterId);
    if (pending) {
      pending.releases.push(released);
      return pending.sent;
    }
    const releases = [released];
    const sent = Promise.resolve().then(() => {
      this.unreleased.delete(limiterId);
      return getExternalWorkflowHandle(limiterId).signal(releaseSlotsSignal, { releases });
    });
    this.unreleased.set(limiterId, { releases, sent });
    return sent;
  }

  /** Releases signalled that the limiter has not taken yet: `released()` waits for them. */
  get releasesOnTheirWay(): number {
    return this.releasing.size;
  }

  /**
   * Waits until the limiter has every release signalled: a run must not end before, or the signal is lost with it and
   * the slot comes back only when the limiter finds the run ended. Nothing to wait for in runs recorded before.
   */
  async released(): Promise<void> {
    while (this.releasing.size > 0) await Promise.all([...this.releasing]);
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
    if (this.limiterId === undefined && this.firstLeases !== undefined) {
      // Carried by the first ask: once it has settled, this start is asked for unless it failed.
      this.firstLeases.push(leaseId);
      await this.firstAsk?.catch(() => undefined);
      if (this.limiterId) return;
    } else if (
      this.limiterId === undefined &&
      this.firstAsk === undefined &&
      patched(FIRST_ASK_AND_RELEASES_TOGETHER_PATCH)
    ) {
      return this.askFirst(leaseId);
    } else if (this.limiterId === undefined && this.firstAsk !== undefined && patched(ASKS_TOGETHER_PATCH)) {
      // Failed or not, the first ask settles: then the limiter is known, or this start asks by activity itself.
      await this.firstAsk.catch(() => undefined);
    }
    if (this.limiterId) {
      const limiter = getExternalWorkflowHandle(this.limiterId);
      const { workflowId, runId } = workflowInfo();
      try {
        if (patched(ASKS_TOGETHER_PATCH)) await this.askTogether(limiter, leaseId);
        else await limiter.signal(requestSlotSignal, { leaseId, holder: { workflowId, runId } });
        return;
      } catch (err) {
        if (isCancellation(err)) throw err;
      }
    }
    const asking = this.calls.requestSnapshotSlot({ leaseId });
    this.firstAsk ??= asking;
    try {
      const { limiterId } = await asking;
      this.limiterId = limiterId;
    } finally {
      if (this.firstAsk === asking) this.firstAsk = undefined;
    }
  }

  /** The run's first ask: one activity for every lease that asks in this task, scheduled once the task's code has run. */
  private async askFirst(leaseId: string): Promise<void> {
    const leaseIds = [leaseId];
    this.firstLeases = leaseIds;
    const asking = Promise.resolve().then(() => {
      this.firstLeases = undefined;
      return this.calls.requestSnapshotSlot({ leaseId, leaseIds });
    });
    this.firstAsk = asking;
    try {
      const { limiterId } = await asking;
      this.limiterId = limiterId;
    } finally {
      if (this.firstAsk === asking) this.firstAsk = undefined;
    }
  }

  /** Adds the lease to the asks of this task: they go in one signal once the task's other code has run. */
  private askTogether(limiter: ReturnType<typeof getExternalWorkflowHandle>, leaseId: string): Promise<void> {
    this.unsent.push(leaseId);
    this.sending ??= Promise.resolve().then(() => {
      const leaseIds = this.unsent;
      this.unsent = [];
      this.sending = undefined;
      const { workflowId, runId } = workflowInfo();
      return limiter.signal(requestSlotsSignal, { leaseIds, holder: { workflowId, runId } });
    });
    return this.sending;
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
