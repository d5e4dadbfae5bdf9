import type {
  ActivitySlotInfo,
  CustomSlotSupplier,
  SlotMarkUsedContext,
  SlotPermit,
  SlotReleaseContext,
  SlotReserveContext,
  WorkerTuner,
} from '@temporalio/worker';

/** The SDK's defaults, which the worker kept before watches: stated, since a tuner replaces them. */
const WORKFLOW_TASK_SLOTS = 40;
const LOCAL_ACTIVITY_SLOTS = 100;
const NEXUS_TASK_SLOTS = 100;
/** Activities other than watches that run at once on one worker (the SDK's default). */
export const ACTIVITY_SLOTS = 100;
/**
 * The activity types that may run as watches: they take no slot of the `ACTIVITY_SLOTS`. A job's look also runs
 * without a watch (a drill's, for ten seconds at most in an attempt): those take no slot either, and are bounded by
 * the drill's parallelism.
 */
export const WATCH_ACTIVITY_TYPES: ReadonlySet<string> = new Set([
  'checkApproval',
  'checkRestoreJob',
  'checkBackupJob',
]);

/**
 * Activity slots where a watch (a wait that sleeps inside its attempt, runtime/heartbeat.ts) takes none: a thousand
 * runs waiting for reviewers must not hold the slots that their service calls and exports need, nor wait for a slot
 * themselves. Every other activity counts against `limit`. A slot is reserved before the task it will carry is known:
 * until the task arrives (the SDK marks the slot used), it counts against the limit, and a watch then gives it back.
 */
export class WatchAwareActivitySlots implements CustomSlotSupplier<ActivitySlotInfo> {
  readonly type = 'custom' as const;
  /** Slots reserved for a poll, not yet carrying a task. */
  private reserved = 0;
  /** Slots carrying an activity other than a watch. */
  private busy = 0;
  /** Watches running now (reported by `watches`). */
  private watching = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly limit = ACTIVITY_SLOTS,
    private readonly watchTypes: ReadonlySet<string> = WATCH_ACTIVITY_TYPES,
  ) {}

  get watches(): number {
    return this.watching;
  }

  async reserveSlot(_ctx: SlotReserveContext, abortSignal: AbortSignal): Promise<SlotPermit> {
    while (!this.free()) {
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          const at = this.waiting.indexOf(wake);
          if (at >= 0) this.waiting.splice(at, 1);
          // The signal's own reason: the SDK takes it for a shutdown, not an error of ours.
          reject(abortSignal.reason as Error);
        };
        const wake = () => {
          abortSignal.removeEventListener('abort', onAbort);
          resolve();
        };
        if (abortSignal.aborted) return onAbort();
        abortSignal.addEventListener('abort', onAbort, { once: true });
        this.waiting.push(wake);
      });
    }
    this.reserved += 1;
    return {};
  }

  tryReserveSlot(_ctx: SlotReserveContext): SlotPermit | null {
    if (!this.free()) return null;
    this.reserved += 1;
    return {};
  }

  markSlotUsed(ctx: SlotMarkUsedContext<ActivitySlotInfo>): void {
    this.reserved -= 1;
    if (this.watchTypes.has(ctx.slotInfo.activityType)) this.watching += 1;
    else this.busy += 1;
    this.wakeOne();
  }

  releaseSlot(ctx: SlotReleaseContext<ActivitySlotInfo>): void {
    if (ctx.slotInfo === undefined) this.reserved -= 1;
    else if (this.watchTypes.has(ctx.slotInfo.activityType)) this.watching -= 1;
    else this.busy -= 1;
    this.wakeOne();
  }

  private free(): boolean {
    return this.reserved + this.busy < this.limit;
  }

  private wakeOne(): void {
    if (this.free()) this.waiting.shift()?.();
  }
}

/** The worker's tuner: the SDK's fixed slots, with watches outside the activity slots. */
export function runbookTuner(activitySlots = new WatchAwareActivitySlots()): WorkerTuner {
  return {
    workflowTaskSlotSupplier: { type: 'fixed-size', numSlots: WORKFLOW_TASK_SLOTS },
    activityTaskSlotSupplier: activitySlots,
    localActivityTaskSlotSupplier: { type: 'fixed-size', numSlots: LOCAL_ACTIVITY_SLOTS },
    nexusTaskSlotSupplier: { type: 'fixed-size', numSlots: NEXUS_TASK_SLOTS },
  };
}
