import { z } from 'zod';
import { defineRunbook } from '../../contracts/runbook';
import { NonBlank, runbookInput } from '../../runtime/input-rules';

// The workflow names the run's file as a query export's (pure, no Node modules); it reaches it through this contract.
export { runFileName } from '../query-export/run-file';

export const OffboardSourceAccountInput = runbookInput(z.strictObject({ accountId: NonBlank }));
export type OffboardSourceAccountInput = z.input<typeof OffboardSourceAccountInput>;

export interface OffboardResult {
  accountId: string;
  providerAccountId: string;
  deleted: boolean;
  /** How many resources stay in the inventory because they have snapshots. */
  remainingCount: number;
  /**
   * Those resources, one CSV row each (`offboarding/<workflowId>--<runId>-remaining.csv`, the run's own; runs from
   * before that wrote `<workflowId>-remaining.csv`): the list never enters history, so the result stays small however
   * many there are. Absent for runs that listed them before the file existed.
   */
  remainingFile?: RemainingFile;
}

export interface RemainingFile {
  path: string;
  rows: number;
  bytes: number;
  sha256: string;
}

/** The patch that writes the remaining resources to a file instead of returning them. */
export const REMAINING_RESOURCES_FILE = 'offboard-remaining-resources-file';

export const offboardSourceAccountContract = defineRunbook({
  workflowType: 'offboardSourceAccount',
  input: OffboardSourceAccountInput,
  takesInput: true,
  defaultId: (input) => `offboard-${input.accountId}`,
  phases: ['disconnecting', 'deleting', 'listing remaining resources'],
  // Offboarding an account twice at once would race its own deletions.
  schedule: { overlap: 'skip', catchupWindow: '1h', jitter: '0s' },
  permissions: [
    { permission: 'source_accounts.manage', for: 'disconnect and delete the account' },
    { permission: 'inventory.view', for: 'the account and its remaining resources' },
  ],
  example: { accountId: 'acct-0001' },
});
