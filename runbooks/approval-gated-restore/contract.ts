import { defineSignal } from '@temporalio/workflow';
import { z } from 'zod';
import { FilePath } from '../../api/schemas/restore';
import { defineRunbook } from '../../contracts/runbook';
import { NonBlank, RestoreTarget, runbookInput } from '../../runtime/input-rules';
import type { ApprovalState } from '../../steps/approvals';
import type { JobSummary } from '../../steps/jobs';

export const ApprovalGatedRestoreInput = runbookInput(
  z
    .object({
      resourceId: NonBlank,
      snapshotId: NonBlank,
      /** `bucket` may need approval; `files` never does. */
      kind: z.enum(['bucket', 'files']).default('bucket'),
      restoreAccountId: NonBlank,
      destination: RestoreTarget,
      files: z.array(FilePath).optional(),
      /** The requester's reason, shown to the reviewers. */
      comment: z.string().max(1000).optional(),
    })
    .refine((input) => input.kind === 'bucket' || (input.files?.length ?? 0) > 0, {
      message: 'a files restore names at least one file',
      path: ['files'],
    })
    // A bucket restore would silently ignore them.
    .refine((input) => input.kind === 'files' || input.files === undefined, {
      message: "only a files restore takes files (set kind: 'files')",
      path: ['files'],
    }),
);
export type ApprovalGatedRestoreInput = z.input<typeof ApprovalGatedRestoreInput>;

export interface ApprovalGatedRestoreResult {
  job: JobSummary;
  approval?: ApprovalState;
  /**
   * First restore calls whose answer was lost: under an approval policy each may have left an action request in
   * CREATED, which cannot be listed. Reported so that an operator can discard them in the console.
   */
  possibleLeftoverRequests: number;
  timings: { startedAt: string; approvedAt?: string; restoreStartedAt: string; finishedAt: string };
}

/**
 * Asks the restore to tell its end (restoreEndedSignal) to `to`: a recovery plan that started it and has continued as
 * new since, so that it cannot await the restore's result.
 */
export const reportEndSignal = defineSignal<[{ to: string }]>('reportEnd');

/** A restore's end, told to whoever asked (reportEndSignal): its result, or why it failed. */
export interface RestoreEnded {
  workflowId: string;
  result?: ApprovalGatedRestoreResult;
  error?: string;
  /** The failure's type (APPROVAL_DENIED...), and when it failed. */
  errorType?: string;
  failedAt?: string;
}
export const restoreEndedSignal = defineSignal<[RestoreEnded]>('restoreEnded');

export const approvalGatedRestoreContract = defineRunbook({
  workflowType: 'approvalGatedRestore',
  input: ApprovalGatedRestoreInput,
  takesInput: true,
  defaultId: (input) => `restore-${input.resourceId}-${input.snapshotId}`,
  phases: [
    'requesting restore',
    'submitting for approval',
    'waiting for approval',
    'executing approved restore',
    'waiting for restore job',
  ],
  // A restore may wait days for approvers; a second request while one waits would ask them twice.
  schedule: { overlap: 'skip', catchupWindow: '1h', jitter: '0s' },
  permissions: [
    { permission: 'resources.restore', for: 'restore-bucket' },
    { permission: 'mpa_requests.manage', for: 'submit, read and withdraw its action request' },
    { permission: 'jobs.view', for: 'follow the restore job, find it after a lost answer' },
    { permission: 'files.restore', for: 'restore-files', when: "kind: 'files'" },
  ],
  example: {
    resourceId: 'res-0001',
    snapshotId: 'snap-0001',
    kind: 'files',
    restoreAccountId: 'restore-acct-1',
    destination: { amazonBucket: { bucketName: 'restores-pa-east-1', prefix: 'approved/' } },
    files: [{ path: '/data/orders', isDirectory: true }],
    comment: 'Restore the orders directory after the 2026-11-20 incident',
  },
});
/** A phase of its status query, besides the common ones. */
export type RestorePhase = (typeof approvalGatedRestoreContract.phases)[number];
