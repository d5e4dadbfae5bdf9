import { z } from 'zod';
import { BackupStatusInput } from '../../api/enums';
import { dayOf, defineRunbook } from '../../contracts/runbook';
import { InventoryFilters, runbookInput } from '../../runtime/input-rules';

export const PostureReportInput = runbookInput(
  z.strictObject({
    /** A resource whose newest snapshot is older than this (or that has none) is listed as stale. */
    maxSnapshotAgeHours: z
      .number()
      .positive()
      .max(24 * 366)
      .default(24),
    /** Inventory filters, in either dialect: the report covers only the resources they match. */
    filters: InventoryFilters.optional(),
    /** Backup statuses that count as protected; every other status is listed as unprotected. */
    protectedStatuses: z
      .array(BackupStatusInput)
      .min(1)
      .refine((s) => new Set(s).size === s.length, 'names a status twice')
      .default(['PROTECTED']),
    /** Resources per inventory page (and per activity call). */
    pageSize: z.number().int().min(1).max(1000).default(100),
  }),
);
export type PostureReportInput = z.input<typeof PostureReportInput>;

export const postureReportContract = defineRunbook({
  workflowType: 'postureReport',
  input: PostureReportInput,
  takesInput: true,
  // One report per day and input: a second start the same day is refused while the first runs.
  defaultId: (input, { now, hash }) => `posture-report-${dayOf(now)}-${hash(JSON.stringify(input))}`,
  phases: ['scanning inventory', 'writing report'],
  // A report is a view of now: a late one is still worth having within a working day, a doubled one is not.
  schedule: { overlap: 'skip', catchupWindow: '6h', jitter: '5m' },
  permissions: [{ permission: 'inventory.view', for: 'resources and snapshots' }],
  example: {
    maxSnapshotAgeHours: 24,
    filters: { environment: { in: ['PROD'] } },
    protectedStatuses: ['PROTECTED'],
    pageSize: 100,
  },
});
