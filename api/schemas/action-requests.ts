import { z } from 'zod';
import { MPA_OPERATIONS, MPA_STATUSES, MpaSubmitActionInput, REVIEW_DECISIONS, openEnum } from '../enums';
import { JobStarted, Timestamp, readerOf, record, tolerant } from './common';

export const MpaPolicyDetailDocument = record({
  requiredApprovals: z.number().int(),
  currentApprovals: z.number().int(),
  executionWindowHours: z.number().int(),
  approvalWindowHours: z.number().int(),
  description: z.string().optional(),
  approverIdpId: z.string().nullish(),
  approverProviderGroupId: z.string().nullish(),
});
export type MpaPolicyDetailDocument = z.infer<typeof MpaPolicyDetailDocument>;
/** The runbooks read a policy's approval counts and execution window (steps/approvals.ts); the rest is tolerant. */
export const MpaPolicyDetail = readerOf(MpaPolicyDetailDocument, [
  'approvalWindowHours',
  'description',
  'approverIdpId',
  'approverProviderGroupId',
]);
export type MpaPolicyDetail = z.infer<typeof MpaPolicyDetail>;

/** An action request as the service sends it: the simulator's model. */
export const MpaRequestDocument = record({
  id: z.string(),
  operation: openEnum(MPA_OPERATIONS),
  requesterEmail: z.string(),
  status: openEnum(MPA_STATUSES),
  policyDetails: z.array(MpaPolicyDetailDocument),
  createdTime: Timestamp,
  requesterName: z.string().optional(),
  comment: z.string().optional(),
  approvalExpirationTime: Timestamp.nullish(),
  executionExpirationTime: Timestamp.nullish(),
  resolvedTime: Timestamp.nullish(),
});
export type MpaRequestDocument = z.infer<typeof MpaRequestDocument>;
/**
 * An action request as the runbooks read it: its ID, status, policies, times and expirations (steps/approvals.ts,
 * steps/jobs.ts); who asked for what, and the comment, are tolerant.
 */
export const MpaRequest = readerOf(MpaRequestDocument, ['operation', 'requesterEmail', 'requesterName', 'comment']).extend(
  { policyDetails: z.array(MpaPolicyDetail) },
);
export type MpaRequest = z.infer<typeof MpaRequest>;

export const MpaReview = record({
  id: z.string(),
  reviewerEmail: z.string(),
  reviewerName: z.string().optional(),
  decision: openEnum(REVIEW_DECISIONS),
  comment: z.string().optional(),
  reviewedTime: Timestamp,
});
export type MpaReview = z.infer<typeof MpaReview>;

/**
 * The public dialect's wrapped read: a review entry, or a policy detail of the request, may be null
 * (docs/service-interface.md §11). A null policy detail is left out of the request read: its counts are unknown, and
 * the request's status decides. The wrapper and its request may be null too; no runbook reads the reviews.
 */
export const MpaRequestDetail = record({
  mpaRequestDetail: record({
    request: MpaRequest.extend({ policyDetails: z.array(MpaPolicyDetail.nullable()) }).nullish(),
    reviews: tolerant(z.array(MpaReview.nullable())),
  }).nullish(),
});

const isWrapped = (body: unknown): body is { mpaRequestDetail?: unknown } =>
  typeof body === 'object' && body !== null && 'mpaRequestDetail' in body;

/**
 * Reading a request returns the request itself, or in the public dialect `{mpaRequestDetail: {request, reviews}}`:
 * the request, or undefined when the wrapper holds none. Each form is decoded on its own, so an error names the field.
 */
function readRequest(body: unknown, ctx: z.core.$RefinementCtx): MpaRequest | undefined {
  if (!isWrapped(body)) return reported(MpaRequest.safeParse(body), ctx);
  const wrapped = reported(MpaRequestDetail.safeParse(body), ctx);
  const request = wrapped?.mpaRequestDetail?.request;
  if (wrapped === z.NEVER) return z.NEVER;
  if (!request) return undefined;
  return { ...request, policyDetails: request.policyDetails.filter((d): d is MpaPolicyDetail => d !== null) };
}

/** The decoded value, or `z.NEVER` with its issues added to `ctx` (their paths kept, so they name the field). */
function reported<T>(result: z.ZodSafeParseResult<T>, ctx: z.core.$RefinementCtx): T {
  if (result.success) return result.data;
  result.error.issues.forEach(({ path, message }) => ctx.addIssue({ code: 'custom', path, message }));
  return z.NEVER;
}

/** A read whose request may be missing (a cancel's read-back, which no runbook reads). */
export const MpaRequestAnswer = z.unknown().transform(readRequest);

/** A read the runbooks act on: without a request there is no state to act on, so that is refused, naming the field. */
export const MpaRequestRead = z.unknown().transform((body, ctx): MpaRequest => {
  const request = readRequest(body, ctx);
  if (request) return request;
  const detail = isWrapped(body) ? body.mpaRequestDetail : undefined;
  ctx.addIssue({
    code: 'custom',
    path: detail ? ['mpaRequestDetail', 'request'] : ['mpaRequestDetail'],
    message: 'holds no action request (null)',
  });
  return z.NEVER;
});

export const SubmitActionInput = z.strictObject({ action: MpaSubmitActionInput, comment: z.string().optional() });
export type SubmitActionInput = z.infer<typeof SubmitActionInput>;

export const ActionRequestBody = record({ actionApprovalRequest: MpaRequest });
/**
 * Cancel's and a protected call's answer as the public document allows it: the request may be null
 * (docs/service-interface.md §11).
 */
export const ActionRequestAnswer = record({ actionApprovalRequest: MpaRequest.nullish() });
export const SubmitActionResult = record({ actionApprovalRequest: MpaRequest.nullish() });

/** A protected call's answer: a started job, or the action request it needs; the document lets it be null. */
export const ProtectedCallAnswer = z.union([JobStarted, ActionRequestAnswer]).nullable();
