import { z } from 'zod';
import { MPA_OPERATIONS, MPA_STATUSES, MpaSubmitActionInput, REVIEW_DECISIONS, openEnum } from '../enums';
import { Timestamp, record } from './common';

export const MpaPolicyDetail = record({
  requiredApprovals: z.number().int(),
  currentApprovals: z.number().int(),
  executionWindowHours: z.number().int(),
  approvalWindowHours: z.number().int(),
  description: z.string().optional(),
  approverIdpId: z.string().nullish(),
  approverProviderGroupId: z.string().nullish(),
});
export type MpaPolicyDetail = z.infer<typeof MpaPolicyDetail>;

export const MpaRequest = record({
  id: z.string(),
  operation: openEnum(MPA_OPERATIONS),
  requesterEmail: z.string(),
  status: openEnum(MPA_STATUSES),
  policyDetails: z.array(MpaPolicyDetail),
  createdTime: Timestamp,
  requesterName: z.string().optional(),
  comment: z.string().optional(),
  approvalExpirationTime: Timestamp.nullish(),
  executionExpirationTime: Timestamp.nullish(),
  resolvedTime: Timestamp.nullish(),
});
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
 * The public dialect's wrapped read: a review entry, or a policy detail of the request, may be null (facts §11). A
 * null policy detail is left out of the request read: its counts are unknown, and the request's status decides.
 */
const MpaRequestDetail = record({
  mpaRequestDetail: record({
    request: MpaRequest.extend({ policyDetails: z.array(MpaPolicyDetail.nullable()) }),
    reviews: z.array(MpaReview.nullable()).nullish(),
  }),
});

/** Reading a request returns the request itself, or in the public dialect `{mpaRequestDetail: {request, reviews}}`. */
export const MpaRequestRead = z.union([MpaRequestDetail, MpaRequest]).transform((body): MpaRequest => {
  const wrapped = MpaRequestDetail.safeParse(body);
  if (!wrapped.success) return body as MpaRequest;
  const request = wrapped.data.mpaRequestDetail.request;
  return { ...request, policyDetails: request.policyDetails.filter((d): d is MpaPolicyDetail => d !== null) };
});

export const SubmitActionInput = z.strictObject({ action: MpaSubmitActionInput, comment: z.string().optional() });
export type SubmitActionInput = z.infer<typeof SubmitActionInput>;

export const ActionRequestBody = record({ actionApprovalRequest: MpaRequest });
/** Cancel's and a protected call's answer as the public document allows it: the request may be null (facts §11). */
export const ActionRequestAnswer = record({ actionApprovalRequest: MpaRequest.nullable() });
export const SubmitActionResult = record({ actionApprovalRequest: MpaRequest.nullish() });
