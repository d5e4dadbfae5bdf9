import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { defineQuery, defineSignal } from '@temporalio/workflow';

/**
 * Definitions shared by workflows, activities and the CLI: failure types, signals and queries. Nothing here does
 * I/O, so workflow code may import it.
 */

/** Stable `ApplicationFailure` types. Service errors use the client's error codes. */
export const FailureType = {
  NotYet: 'NotYet',
  InvalidInput: 'InvalidInput',
  TooManyRequests: 'TOO_MANY_REQUESTS',
  BadRequest: 'BAD_REQUEST',
  Forbidden: 'FORBIDDEN',
  NotFound: 'NOT_FOUND',
  Conflict: 'CONFLICT',
  Unauthorized: 'UNAUTHORIZED',
  ApprovalDenied: 'ApprovalDenied',
  ApprovalExpired: 'ApprovalExpired',
  ApprovalCanceled: 'ApprovalCanceled',
  JobFailed: 'JobFailed',
  JobTimedOut: 'JobTimedOut',
  QueryFailed: 'QueryFailed',
} as const;
export type FailureType = (typeof FailureType)[keyof typeof FailureType];

/** Makes a waiting runbook check again at once instead of at its next scheduled poll. */
export const nudgeSignal = defineSignal('nudge');

export interface RunbookStatus {
  runbook: string;
  phase: string;
  /** Units done and in all, where the runbook can tell. */
  progress?: { done: number; total: number; unit: string };
  detail?: string;
  /** What the runbook is waiting for, when it waits. */
  waitingFor?: string;
  updatedAt: string;
}

export const statusQuery = defineQuery<RunbookStatus>('status');

/** Search attributes the runbooks set, so that operators can find runs by kind, resource and approval status. */
export const RunbookKindKey = defineSearchAttributeKey('RunbookKind', SearchAttributeType.KEYWORD);
export const RunbookResourceKey = defineSearchAttributeKey('RunbookResource', SearchAttributeType.KEYWORD);
export const ApprovalStatusKey = defineSearchAttributeKey('ApprovalStatus', SearchAttributeType.KEYWORD);
export const SEARCH_ATTRIBUTE_KEYS = [RunbookKindKey, RunbookResourceKey, ApprovalStatusKey];
