import type { MpaPolicyDetailDocument as MpaPolicyDetail, MpaRequestDocument as MpaRequest, MpaStatus } from '../api';
import type { Principal, SimContext } from './context';
import { SimError, conflict, forbidden, notFound } from './errors';
import type { ActionRequestRecord } from './model';

/**
 * Multi-party approval of protected operations (docs/service-interface.md §2). Every deadline is checked lazily against
 * the simulated clock whenever a request is read or used, so advancing the clock is enough to expire one.
 */

export type GuardResult =
  { proceed: true; executed?: (jobId: string) => void } | { proceed: false; request: MpaRequest };

const HOUR_MS = 3_600_000;

/** JSON with object keys sorted at every level, so that equal bodies give equal keys whatever their key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return Object.fromEntries(
      entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, sortKeys(v)]),
    );
  }
  return value;
}

/** The key a repeated protected call must match: method, path (without prefix) and body. */
export function operationKeyOf(method: string, path: string, body: unknown): string {
  return canonicalJson({ method: method.toUpperCase(), path, body: body ?? null });
}

/**
 * Decides whether a protected call may run. Without a header, a covering policy turns the call into a new CREATED
 * request; with one, the named request must be the caller's, APPROVED and for the very same call.
 */
export function guardProtectedOperation(
  ctx: SimContext,
  principal: Principal,
  operation: string,
  operationKey: string,
  approvalRequestId: string | undefined,
): GuardResult {
  if (approvalRequestId !== undefined) {
    const record = ctx.state.actionRequests[approvalRequestId];
    if (!record) throw notFound(`action request ${approvalRequestId}`);
    if (record.requesterClientId !== principal.credentials.clientId) {
      throw forbidden('only the original requester may execute this action request');
    }
    refreshRequest(ctx, record);
    if (record.request.status !== 'APPROVED') {
      throw conflict(`action request ${approvalRequestId} is ${record.request.status}, not APPROVED`);
    }
    if (record.request.operation !== operation || record.operationKey !== operationKey) {
      throw conflict(`action request ${approvalRequestId} was approved for different parameters`);
    }
    return {
      proceed: true,
      executed: () => {
        record.request.status = 'EXECUTED';
        record.request.resolvedTime = ctx.clock.iso();
      },
    };
  }

  const policies = Object.values(ctx.state.policies).filter((p) => p.operations.includes(operation));
  if (policies.length === 0) return { proceed: true };

  const policyDetails: MpaPolicyDetail[] = policies.map((p) => ({
    requiredApprovals: p.requiredApprovals,
    currentApprovals: 0,
    executionWindowHours: p.executionWindowHours,
    approvalWindowHours: p.approvalWindowHours,
    ...(p.description !== undefined ? { description: p.description } : {}),
  }));
  const request: MpaRequest = {
    id: ctx.newId(),
    operation,
    requesterEmail: principal.credentials.email,
    requesterName: principal.credentials.name,
    status: 'CREATED',
    policyDetails,
    createdTime: ctx.clock.iso(),
  };
  ctx.state.actionRequests[request.id] = {
    request,
    requesterClientId: principal.credentials.clientId,
    operationKey,
    reviews: [],
  };
  return { proceed: false, request };
}

/** Applies a deadline that has passed; an expiry is resolved at the deadline itself, not when it was noticed. */
export function refreshRequest(ctx: SimContext, record: ActionRequestRecord): void {
  const request = record.request;
  const now = ctx.clock.now();
  const expire = (deadline: string | null | undefined, to: MpaStatus) => {
    if (deadline && now >= Date.parse(deadline)) {
      request.status = to;
      request.resolvedTime = deadline;
    }
  };
  if (request.status === 'PENDING_APPROVAL') expire(request.approvalExpirationTime, 'EXPIRED_PENDING_APPROVAL');
  if (request.status === 'APPROVED') expire(request.executionExpirationTime, 'EXPIRED_APPROVED');
}

/** The caller's own request, refreshed: 404 unknown, 403 someone else's. */
export function ownRequest(ctx: SimContext, principal: Principal, requestId: string): ActionRequestRecord {
  const record = ctx.state.actionRequests[requestId];
  if (!record) throw notFound(`action request ${requestId}`);
  if (record.requesterClientId !== principal.credentials.clientId) {
    throw forbidden('the action request was created by another caller');
  }
  refreshRequest(ctx, record);
  return record;
}

/** CONFIRM opens the approval window (the longest of the covering policies); DISCARD abandons the request. */
export function submitRequest(ctx: SimContext, record: ActionRequestRecord, action: 'CONFIRM' | 'DISCARD'): void {
  const request = record.request;
  if (request.status !== 'CREATED')
    throw conflict(`action request is ${request.status}; only CREATED can be submitted`);
  const now = ctx.clock.now();
  if (action === 'DISCARD') {
    request.status = 'DISCARDED';
    request.resolvedTime = ctx.clock.iso(now);
    return;
  }
  const hours = Math.max(...request.policyDetails.map((d) => d.approvalWindowHours));
  request.status = 'PENDING_APPROVAL';
  request.approvalExpirationTime = ctx.clock.iso(now + hours * HOUR_MS);
}

export function cancelRequest(ctx: SimContext, record: ActionRequestRecord): void {
  const request = record.request;
  const to = CANCELED_FROM[request.status];
  if (!to) throw conflict(`action request is ${request.status}; only PENDING_APPROVAL or APPROVED can be canceled`);
  request.status = to;
  request.resolvedTime = ctx.clock.iso();
}

const CANCELED_FROM: Partial<Record<string, MpaStatus>> = {
  PENDING_APPROVAL: 'CANCELED_PENDING_APPROVAL',
  APPROVED: 'CANCELED_APPROVED',
};

export interface Review {
  reviewerEmail: string;
  reviewerName?: string;
  comment?: string;
}

/**
 * A reviewer's decision. An approval counts once towards every policy detail; when all are satisfied the request
 * is APPROVED and the execution window (the longest of the covering policies) starts. A denial ends it.
 */
export function reviewRequest(
  ctx: SimContext,
  record: ActionRequestRecord,
  decision: 'APPROVED' | 'DENIED',
  review: Review,
): void {
  refreshRequest(ctx, record);
  const request = record.request;
  if (request.status !== 'PENDING_APPROVAL') {
    throw conflict(`action request is ${request.status}; only PENDING_APPROVAL can be reviewed`);
  }
  if (review.reviewerEmail === request.requesterEmail) throw conflict('a requester cannot review their own request');
  if (record.reviews.some((r) => r.reviewerEmail === review.reviewerEmail)) {
    throw conflict(`${review.reviewerEmail} has already reviewed this request`);
  }
  const now = ctx.clock.now();
  record.reviews.push({
    id: ctx.newId(),
    reviewerEmail: review.reviewerEmail,
    ...(review.reviewerName !== undefined ? { reviewerName: review.reviewerName } : {}),
    decision,
    ...(review.comment !== undefined ? { comment: review.comment } : {}),
    reviewedTime: ctx.clock.iso(now),
  });
  if (decision === 'DENIED') {
    request.status = 'DENIED';
    request.resolvedTime = ctx.clock.iso(now);
    return;
  }
  for (const detail of request.policyDetails) detail.currentApprovals += 1;
  if (request.policyDetails.every((d) => d.currentApprovals >= d.requiredApprovals)) {
    const hours = Math.max(...request.policyDetails.map((d) => d.executionWindowHours));
    request.status = 'APPROVED';
    request.executionExpirationTime = ctx.clock.iso(now + hours * HOUR_MS);
  }
}

/** For callers that only hold an id (the control API): 404 when unknown. */
export function requestRecord(ctx: SimContext, requestId: string): ActionRequestRecord {
  const record = ctx.state.actionRequests[requestId];
  if (!record) throw new SimError(404, `action request ${requestId} not found`);
  return record;
}
