import { defineQuery, defineSignal } from '@temporalio/workflow';

/** The phases every runbook passes through; its own are in its contract (`phases`). */
export const COMMON_PHASES = ['starting', 'completed', 'completed with warnings'] as const;
export type CommonPhase = (typeof COMMON_PHASES)[number];

/** The service's IDs a runbook works on, as fields: callers read them here, never from the prose. */
export interface RunbookIds {
  /** The action request waiting for (or given) approval. */
  requestId?: string;
  /** The restore or backup job being waited on. */
  jobId?: string;
  /** The query being run or exported. */
  queryId?: string;
}

export interface RunbookStatus {
  runbook: string;
  /** One of COMMON_PHASES or of the runbook's contract `phases`. */
  phase: string;
  ids: RunbookIds;
  /** Units done and in all, where the runbook can tell. */
  progress?: { done: number; total: number; unit: string };
  /** For people: what the phase is about. */
  detail?: string;
  /** For people: what the runbook is waiting for, when it waits. */
  waitingFor?: string;
  /** For tools: the resources a drill waits on for a validation verdict (`runbooks drill validate`). */
  awaitingVerdict?: string[];
  /** The action request a runbook waits on, as `runbooks approvals` shows it. */
  approval?: RunbookApproval;
  /** A drill's resources over all its batches. */
  drill?: DrillProgress;
  /** For people: what the run found wrong with how it is set up, kept through its phases (a rotation too short). */
  warning?: string;
  updatedAt: string;
}

/** Where a drill's resources are, summed over its batches (child workflows) as they last reported. */
export interface DrillProgress {
  total: number;
  /** Resources with a verdict, and of those the ones that failed. */
  done: number;
  failed: number;
  /** Taken up by a batch and not done yet, waits for verdicts included. */
  running: number;
  /** Waiting for a snapshot slot of the service project (its shared throttle). */
  waitingForSlot: number;
  /** Waiting for a validation verdict. */
  waitingForVerdict: number;
  batches: { total: number; done: number; running: number };
}

export interface RunbookApproval {
  requestId: string;
  status: string;
  /** When the request was created, on the service's clock. */
  requestedAt?: string;
  approvals: { current: number; required: number };
  /** The end of the approval window. */
  approvalDeadline?: string;
  /** The end of the execution window: known once approved; before that, `executionWindowHours` after approval. */
  executionDeadline?: string;
  executionWindowHours?: number;
}

export const statusQuery = defineQuery<RunbookStatus>('status');

/** Makes a waiting runbook check again at once instead of at its next scheduled poll. */
export const nudgeSignal = defineSignal('nudge');
