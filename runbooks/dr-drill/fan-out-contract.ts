// What a drill and its batches tell each other (see ./fan-out.ts): the batch's input, its progress and its end by
// signal to the drill, and the verdicts the drill forwards to the batch that holds the resource.
import { defineSignal } from '@temporalio/workflow';
import type { DrillValidationVerdict } from '../../contracts';
import type { DrillInput } from './contract';
import type { DrillCounts } from './report';

/** What drilling a resource needs of the drill's input: all of it but the selection. */
export type DrillSettings = Omit<DrillInput, 'resources'>;

/** A file written by one activity and read by another: its sha256 is checked before it is trusted. */
export interface DrillFile {
  path: string;
  sha256: string;
}

export interface DrillBatchInput {
  /**
   * The drill's input as it validated it, without its selection: a list of 5,000 IDs in every batch's start would
   * make the drill's starts too large for one request. The batch reads its resources from `resources`.
   */
  drill: DrillSettings;
  drillWorkflowId: string;
  /** The drill's first run: its report and its batches' parts are named for it. */
  drillRunId: string;
  startedAt: string;
  /** The drill's resources (one JSON line each), of which this batch takes `count` from `offset`. */
  resources: DrillFile;
  batch: number;
  offset: number;
  count: number;
  /** Resources this batch drills at once. */
  lanes: number;
  /** The batch tells the drill lanes that found no resource left, and takes more (LANES_SHARED_PATCH). */
  sharesLanes?: boolean;
}

/** A batch's progress, sent when it changes (throttled: see `PROGRESS_EVERY_MS`). */
export interface BatchProgress {
  batch: number;
  /** Counts the batch's progress signals: they may arrive out of order, and an older one must not undo a newer. */
  sent: number;
  /** Resources with a verdict; of those, the ones that failed. */
  done: number;
  failed: number;
  /** Resources taken up and not done (validations included). */
  running: number;
  /** Resources waiting for a snapshot slot of the service project. */
  waitingForSlot: number;
  /** Resources waiting for a validation verdict (`runbooks drill validate`). */
  awaiting: string[];
  /** Every resource has left its lane (some may still wait for a verdict): the batch's lanes are free. */
  lanesDone: boolean;
  /** The lanes the batch has, those the drill gave it later included (absent from batches before shared lanes). */
  lanes?: number;
  /** Of those, the lanes that found no resource left to take and ended: the drill may use them elsewhere. */
  lanesFree?: number;
  /** Resources no lane has taken yet: more lanes would take them. */
  untaken?: number;
}

/** A finished batch: counts and worst times, and where its per-resource results are. Never the results themselves. */
export interface BatchSummary extends DrillCounts {
  batch: number;
  partial: number;
  part: DrillFile;
}

export interface BatchEnded {
  batch: number;
  summary?: BatchSummary;
  /** Why the batch ended without a summary: it was cancelled, or failed as a whole. */
  error?: string;
  cancelled?: boolean;
}

/** A batch sends one at most every this long, besides changes of its lanes or of the verdicts it waits for. */
export const PROGRESS_EVERY_MS = 10_000;

export const batchProgressSignal = defineSignal<[BatchProgress]>('drillBatchProgress');
export const batchEndedSignal = defineSignal<[BatchEnded]>('drillBatchEnded');
/** More lanes for a running batch: the drill has some free and no batch left to start. */
export const batchLanesSignal = defineSignal<[{ lanes: number }]>('drillBatchLanes');
/** A verdict the drill took for a resource of this batch, with the time it took it. */
export const batchVerdictSignal = defineSignal<[DrillValidationVerdict & { answeredAt: string }]>('drillVerdict');

/** A batch's workflow ID: derived from the drill's, so that its batches are found from it. */
export function batchWorkflowId(drillWorkflowId: string, drillRunId: string, batch: number): string {
  return `${drillWorkflowId}--${drillRunId.slice(0, 8)}--batch-${String(batch + 1).padStart(4, '0')}`;
}
