import { z } from 'zod';
import { MpaOperationInput, SubmitActionInput } from '../../api';
import { cancelRequest, ownRequest, refreshRequest, requestRecord, reviewRequest, submitRequest } from '../approvals';
import type { SimContext, SimModule } from '../context';
import { parse } from '../errors';

type RequestParams = { Params: { projectId: string; requestId: string } };

/** A year: longer windows than any real policy, short enough that deadlines stay valid dates. */
const MAX_WINDOW_HOURS = 8760;
const PolicyInput = z.strictObject({
  operations: z.array(MpaOperationInput).min(1, 'name at least one operation'),
  requiredApprovals: z.number().int().min(1).max(20),
  approvalWindowHours: z.number().int().min(1).max(MAX_WINDOW_HOURS),
  executionWindowHours: z.number().int().min(1).max(MAX_WINDOW_HOURS),
  description: z.string().max(1000).optional(),
});

const ReviewInput = z.strictObject({
  reviewerEmail: z.string().min(1).max(320).optional(),
  reviewerName: z.string().max(200).optional(),
  comment: z.string().max(1000).optional(),
});

/**
 * The caller's action requests (docs/service-interface.md §2), plus the control routes that play policy admin and
 * reviewer.
 */
export const actionRequestsModule: SimModule = {
  name: 'action-requests',
  routes(app, ctx) {
    const base = '/v1/projects/:projectId/action-approvals/my-requests/:requestId';

    // The neutral dialect: the bare MPARequest, not the public `{mpaRequestDetail}` wrapper.
    app.get<RequestParams>(base, async (req) => {
      ctx.requireProject(req.params.projectId);
      const principal = ctx.authorize(req, 'mpa_requests.manage');
      return ownRequest(ctx, principal, req.params.requestId).request;
    });

    app.post<RequestParams>(`${base}/submit`, async (req) => {
      ctx.requireProject(req.params.projectId);
      const principal = ctx.authorize(req, 'mpa_requests.manage');
      const record = ownRequest(ctx, principal, req.params.requestId);
      const body = parse(SubmitActionInput, req.body, 'body');
      submitRequest(ctx, record, body.action);
      if (body.comment !== undefined) record.request.comment = body.comment;
      return { actionApprovalRequest: record.request };
    });

    app.post<RequestParams>(`${base}/cancel`, async (req) => {
      ctx.requireProject(req.params.projectId);
      const principal = ctx.authorize(req, 'mpa_requests.manage');
      const record = ownRequest(ctx, principal, req.params.requestId);
      cancelRequest(ctx, record);
      return { actionApprovalRequest: record.request };
    });

    controlRoutes(app, ctx);
  },
  summary: (ctx) => ({ policies: Object.keys(ctx.state.policies).length }),
};

function controlRoutes(app: Parameters<SimModule['routes']>[0], ctx: SimContext): void {
  app.post('/_simulator/policies', async (req, reply) => {
    const body = parse(PolicyInput, req.body, 'body');
    const id = ctx.newId();
    ctx.state.policies[id] = { id, ...body };
    return reply.code(201).send({ id });
  });

  app.get('/_simulator/policies', async () => ({ policies: Object.values(ctx.state.policies) }));

  app.delete('/_simulator/policies', async (_req, reply) => {
    ctx.state.policies = {};
    return reply.code(204).send();
  });

  // Any request with its reviews, whoever created it: what a reviewer's console would show.
  app.get<{ Params: { requestId: string } }>('/_simulator/action-requests/:requestId', async (req) => {
    const record = requestRecord(ctx, req.params.requestId);
    refreshRequest(ctx, record);
    return { actionApprovalRequest: record.request, reviews: record.reviews };
  });

  for (const [verb, decision] of [
    ['approve', 'APPROVED'],
    ['deny', 'DENIED'],
  ] as const) {
    app.post<{ Params: { requestId: string } }>(`/_simulator/action-requests/:requestId/${verb}`, async (req) => {
      const body = parse(ReviewInput, req.body, 'body');
      const record = requestRecord(ctx, req.params.requestId);
      // Each anonymous review is a distinct reviewer, so that repeated calls add up to the required approvals.
      const reviewerEmail = body.reviewerEmail ?? `reviewer-${record.reviews.length + 1}@example.com`;
      reviewRequest(ctx, record, decision, { ...body, reviewerEmail });
      return { actionApprovalRequest: record.request };
    });
  }
}
