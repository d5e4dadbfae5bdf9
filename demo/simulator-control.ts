import { z } from 'zod';
import { CliError } from '../cli/errors';

/** The simulator's control API (`/_simulator/…`): what the demo uses to set the pace and to play the reviewers. */

const Policy = z.object({ id: z.string() });
const ReviewerView = z.object({
  actionApprovalRequest: z.object({
    id: z.string(),
    status: z.string(),
    policyDetails: z.array(z.object({ currentApprovals: z.number(), requiredApprovals: z.number() })),
  }),
});
export type ReviewerView = z.infer<typeof ReviewerView>['actionApprovalRequest'];

const SimulatorState = z.object({
  projectId: z.string(),
  databases: z
    .array(z.object({ resourceId: z.string(), databaseName: z.string(), tables: z.array(z.string()) }).loose())
    .default([]),
});
export type SimulatorState = z.infer<typeof SimulatorState>;

export class SimulatorControl {
  constructor(private readonly baseUrl: string) {}

  private async call<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    body?: unknown,
  ): Promise<z.output<S>> {
    const res = await fetch(`${this.baseUrl}/_simulator${path}`, {
      method,
      headers: body === undefined ? undefined : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new CliError(`simulator ${method} /_simulator${path} answered ${res.status}: ${text}`);
    const parsed = schema.safeParse(text ? JSON.parse(text) : {});
    if (!parsed.success) {
      throw new CliError(
        `simulator ${method} /_simulator${path} answered in an unexpected shape: ${parsed.error.message}`,
      );
    }
    return parsed.data;
  }

  /** Job durations in simulated seconds: short ones keep the demo quick. */
  async setJobDurations(config: { backupSeconds: number; restoreSeconds: number; querySeconds: number }) {
    await this.call('PUT', '/jobs/config', z.unknown(), config);
  }

  /** An approval policy over restores: what makes the bucket restore wait for reviewers. */
  async createRestorePolicy(requiredApprovals: number): Promise<string> {
    const policy = await this.call('POST', '/policies', Policy, {
      operations: ['MPA_OPERATION_RESTORE_RESOURCE'],
      requiredApprovals,
      approvalWindowHours: 24,
      executionWindowHours: 4,
      description: `demo: ${requiredApprovals} reviewers approve every restore`,
    });
    return policy.id;
  }

  async state(): Promise<SimulatorState> {
    return this.call('GET', '/state', SimulatorState);
  }

  /** What a reviewer's console shows of a request. */
  async request(requestId: string): Promise<ReviewerView> {
    return (await this.call('GET', `/action-requests/${encodeURIComponent(requestId)}`, ReviewerView))
      .actionApprovalRequest;
  }

  async approve(requestId: string, reviewerEmail: string, comment: string): Promise<ReviewerView> {
    const path = `/action-requests/${encodeURIComponent(requestId)}/approve`;
    return (await this.call('POST', path, ReviewerView, { reviewerEmail, comment })).actionApprovalRequest;
  }
}

/** Approvals gathered and needed: the least progressed rule counts. */
export function approvalsOf(view: ReviewerView): { current: number; required: number } {
  const current = Math.min(...view.policyDetails.map((d) => d.currentApprovals));
  const required = Math.max(...view.policyDetails.map((d) => d.requiredApprovals));
  return { current: Number.isFinite(current) ? current : 0, required: Number.isFinite(required) ? required : 0 };
}
