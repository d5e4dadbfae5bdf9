// Gauges of the approval waits in flight, per runbook: how many, the oldest one's age and the nearest deadline.
//
// Why from the worker: the approval activities look at every waiting request at least every five minutes
// (runtime/poll-delays.ts) and see its creation time and its deadline, which nothing else holds. Temporal's visibility
// knows which runs wait (the ApprovalStatus search attribute), but neither when the request was made nor when it
// expires. So each look is kept here, by request ID (never a label), and the gauges are recomputed from them.
import { Runtime } from '@temporalio/worker';
import type { MetricGauge } from '@temporalio/common';
import { RunbookMetric } from '../contracts';
import type { ApprovalLook } from '../runtime/activity-deps';
import { MAX_APPROVAL_POLL_MS } from '../runtime/poll-delays';

/** Refreshed this often, so that ages move between looks. */
export const APPROVAL_GAUGES_REFRESH_MS = 15_000;
/**
 * A wait not looked at for this long is dropped: its run ended, was cancelled, or another worker watches it now (and
 * reports it). Two of the longest gaps between looks.
 */
export const APPROVAL_WAIT_STALE_MS = 2 * MAX_APPROVAL_POLL_MS;

const undecided = (status: string) => status === 'PENDING_APPROVAL' || status === 'CREATED';

interface Wait {
  runbook: string;
  createdMs: number;
  /** NaN when the request has no approval deadline. */
  deadlineMs: number;
  /** The worker's clock at the last look. */
  seenMs: number;
  /** The service's clock minus the worker's, at the last look. */
  offsetMs: number;
}

export interface ApprovalFigures {
  waiting: number;
  oldestWaitSeconds: number;
  /** NaN when none waits or none has a deadline. */
  deadlineSecondsLeft: number;
}

/** The waits one worker watches; `figures` are what the gauges show. */
export class ApprovalWaits {
  private readonly waits = new Map<string, Wait>();
  /** Every runbook that had a wait: its gauges go back to 0 (and NaN) when none is left, rather than keep the last. */
  private readonly runbooks = new Set<string>();

  constructor(private readonly now: () => number = Date.now) {}

  look(look: ApprovalLook): void {
    const createdMs = Date.parse(look.createdTime ?? '');
    if (!undecided(look.status) || !Number.isFinite(createdMs)) {
      this.waits.delete(look.requestId);
      return;
    }
    const seenMs = this.now();
    this.runbooks.add(look.runbook);
    this.waits.set(look.requestId, {
      runbook: look.runbook,
      createdMs,
      deadlineMs: Date.parse(look.approvalExpirationTime ?? ''),
      seenMs,
      offsetMs: look.serviceNowMs - seenMs,
    });
  }

  /** Per runbook, from the waits looked at recently enough; stale ones are dropped. */
  figures(): Map<string, ApprovalFigures> {
    const now = this.now();
    const result = new Map<string, ApprovalFigures>();
    for (const runbook of this.runbooks) {
      result.set(runbook, { waiting: 0, oldestWaitSeconds: 0, deadlineSecondsLeft: Number.NaN });
    }
    for (const [id, wait] of this.waits) {
      if (now - wait.seenMs > APPROVAL_WAIT_STALE_MS) {
        this.waits.delete(id);
        continue;
      }
      const serviceNow = now + wait.offsetMs;
      const f = result.get(wait.runbook);
      if (!f) continue;
      f.waiting += 1;
      f.oldestWaitSeconds = Math.max(f.oldestWaitSeconds, Math.max(0, serviceNow - wait.createdMs) / 1000);
      const left = (wait.deadlineMs - serviceNow) / 1000;
      if (Number.isFinite(left) && !(left >= f.deadlineSecondsLeft)) f.deadlineSecondsLeft = left;
    }
    return result;
  }
}

interface Gauges {
  waiting: MetricGauge;
  oldest: MetricGauge;
  deadline: MetricGauge;
}

let gauges: Gauges | undefined;
const waits = new ApprovalWaits();
let timer: NodeJS.Timeout | undefined;

function refresh(): void {
  // Created on first use: by then the process has installed its Runtime (with or without an exporter).
  if (!gauges) {
    const meter = Runtime.instance().metricMeter;
    gauges = {
      waiting: meter.createGauge(RunbookMetric.approvalsWaiting, 'int', '1', 'Approval requests waiting'),
      oldest: meter.createGauge(RunbookMetric.approvalOldestWait, 'float', 's', 'Age of the oldest waiting approval'),
      deadline: meter.createGauge(
        RunbookMetric.approvalDeadlineLeft,
        'float',
        's',
        'Seconds to the nearest approval deadline',
      ),
    };
  }
  for (const [runbook, f] of waits.figures()) {
    gauges.waiting.set(f.waiting, { runbook });
    gauges.oldest.set(f.oldestWaitSeconds, { runbook });
    gauges.deadline.set(f.deadlineSecondsLeft, { runbook });
  }
}

/** The worker's `onApprovalLook` hook: keeps the look, updates the gauges, and keeps them moving between looks. */
export function recordApprovalLook(look: ApprovalLook): void {
  waits.look(look);
  refresh();
  timer ??= setInterval(refresh, APPROVAL_GAUGES_REFRESH_MS).unref();
}
