import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { CarriedSlots } from './slot-book';

/** The workflow type of the limiter: one run per service project, shared by every worker of that project. */
export const SNAPSHOT_SLOTS_WORKFLOW = 'snapshotSlots';

/** The limiter's workflow ID for a service project: every worker of the project finds the same one. */
export function snapshotSlotsWorkflowId(projectId: string): string {
  return `snapshot-slots-${projectId}`;
}

/** The run that holds (or waits for) a slot; its end frees the slot, should it not release it itself. */
export interface SlotHolder {
  workflowId: string;
  runId: string;
}

export interface RequestSlot {
  /** One per snapshot start of a run: a request sent again (a retried activity) keeps its place, never takes two. */
  leaseId: string;
  /** The run the grant is signalled to. */
  holder: SlotHolder;
}

/** The limiter's answer to a request, signalled to the holder's run once a slot is its own. */
export interface SlotGranted {
  leaseId: string;
  /** The grant's number: a report names it, so that a late duplicate never counts against a later grant. */
  grant: number;
}

/**
 * How a start in a granted slot went. `handedFrom`: the slot came from another lease of the same run, handed over
 * without the limiter (see `ReleaseSlot.handedTo`), whichever of the two signals arrives first.
 */
export type SnapshotStartReport = { leaseId: string; grant: number; handedFrom?: string } & (
  { result: 'ok'; jobId: string } | { result: 'throttled'; retryAfterSeconds?: number }
);

export interface ReleaseSlot {
  leaseId: string;
  /**
   * The lease of the same run that took the slot over as its backup ended: a run with starts still waiting keeps the
   * slot, with no trip through the limiter (whose grant takes a second or more under load: bench/scale).
   */
  handedTo?: string;
}

/** What `runbooks status` and the `slots` query show of a limiter. */
export interface SlotsStatus {
  projectId: string;
  limit: number;
  /** Slots held when the service last refused a start: the cap as it showed itself. */
  ceiling?: number;
  /** When a 429 last set or confirmed the ceiling, and how long ago: an old ceiling is probed past at the normal pace. */
  ceilingSince?: string;
  ceilingAgeSeconds?: number;
  held: number;
  waiting: number;
  pausedUntil?: string;
  starts: number;
  throttled: number;
  /** Slots given back because their holder's run had ended without releasing them. */
  reclaimed: number;
}

/** Asks for a slot (signal-with-start: the first request of a project starts its limiter). */
export const requestSlotSignal = defineSignal<[RequestSlot]>('requestSlot');
/** Asks for several slots of one run at once: one signal for the starts a run asks for together. */
export const requestSlotsSignal = defineSignal<[{ leaseIds: string[]; holder: SlotHolder }]>('requestSlots');
/** Sent by the limiter to the holder's run: the slot is granted, the snapshot may start. */
export const slotGrantedSignal = defineSignal<[SlotGranted]>('snapshotSlotGranted');
/** Every slot granted to one run in one of the limiter's tasks, in one signal. */
export const slotsGrantedSignal = defineSignal<[{ grants: SlotGranted[] }]>('snapshotSlotsGranted');
/** A start's outcome: a success grows the limit, a 429 halves it and puts the holder back at the head of the queue. */
export const reportStartSignal = defineSignal<[SnapshotStartReport]>('reportStart');
/** Gives a slot back (the backup job has ended), or withdraws a holder from the queue. */
export const releaseSlotSignal = defineSignal<[ReleaseSlot]>('releaseSlot');
/** Gives back every slot of one run released in one task, in one signal. */
export const releaseSlotsSignal = defineSignal<[{ releases: ReleaseSlot[] }]>('releaseSlots');
export const slotsQuery = defineQuery<SlotsStatus>('slots');

export interface SnapshotSlotsInput {
  projectId: string;
  /** State carried over by continue-as-new. */
  carried?: CarriedSlots;
  /** Shorter periods and a lower history bound, for tests that start the limiter themselves; kept across runs. */
  tuning?: { sweepMs?: number; historyLimit?: number };
}
