import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
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

export interface AcquireSlot {
  /** The same for every attempt of one acquiring activity, so that a retried acquire never takes a second slot. */
  leaseId: string;
  holder: SlotHolder;
  /** First call of an attempt: answer at once with the queue position when no slot is free. */
  first?: boolean;
}

export interface SlotAnswer {
  granted: boolean;
  /** Holders waiting for a slot of this project, this one included while it waits. */
  waiting: number;
  /** This holder's place in the queue (1: next), while it waits. */
  position?: number;
  /** Slots held and allowed now. */
  held: number;
  limit: number;
  /** Grants pause until then (ISO) after a 429. */
  pausedUntil?: string;
  /** The grant's number, once granted: a report names it, so that a late duplicate never counts against a later grant. */
  grant?: number;
}

/** How a start in a granted slot went. */
export type SnapshotStartReport =
  | { leaseId: string; grant: number; result: 'ok'; jobId: string }
  | { leaseId: string; grant: number; result: 'throttled'; retryAfterSeconds?: number };

export interface ReleaseSlot {
  leaseId: string;
}

/** What `runbooks status` and the `slots` query show of a limiter. */
export interface SlotsStatus {
  projectId: string;
  limit: number;
  /** Slots held when the service last refused a start: the cap as it showed itself. */
  ceiling?: number;
  held: number;
  waiting: number;
  pausedUntil?: string;
  starts: number;
  throttled: number;
  /** Slots given back because their holder's run had ended without releasing them. */
  reclaimed: number;
}

/** Waits (a bounded time) for a slot; answers at once when the lease holds one already. */
export const acquireSlotUpdate = defineUpdate<SlotAnswer, [AcquireSlot]>('acquireSlot');
/** A start's outcome: a success grows the limit, a 429 halves it and puts the holder back at the head of the queue. */
export const reportStartSignal = defineSignal<[SnapshotStartReport]>('reportStart');
/** Gives a slot back (the backup job has ended), or withdraws a holder from the queue. */
export const releaseSlotSignal = defineSignal<[ReleaseSlot]>('releaseSlot');
export const slotsQuery = defineQuery<SlotsStatus>('slots');

export interface SnapshotSlotsInput {
  projectId: string;
  /** State carried over by continue-as-new. */
  carried?: CarriedSlots;
}
