import { z } from 'zod';
import { defineRunbook } from '../../contracts/runbook';
import { NonBlank, strictDeep } from '../../runtime/input-rules';

export const OffboardSourceAccountInput = strictDeep(z.strictObject({ accountId: NonBlank }));
export type OffboardSourceAccountInput = z.input<typeof OffboardSourceAccountInput>;

export interface OffboardResult {
  accountId: string;
  providerAccountId: string;
  deleted: boolean;
  /** Resources that stay in the inventory because they have snapshots. */
  remainingResources: { id: string; resourceName: string; resourceType: string; snapshots: number }[];
}

export const offboardSourceAccountContract = defineRunbook({
  workflowType: 'offboardSourceAccount',
  input: OffboardSourceAccountInput,
  takesInput: true,
  defaultId: (input) => `offboard-${input.accountId}`,
});
