import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { NonBlank, strictDeep } from '../../runtime/input-rules';
import { parseInput, RunbookTracker, serviceCalls } from '../../runtime/calls';
import { FailureType } from '../../contracts';

export const OffboardSourceAccountInput = strictDeep(z.strictObject({ accountId: NonBlank }));
export type OffboardSourceAccountInput = z.input<typeof OffboardSourceAccountInput>;

export interface OffboardResult {
  accountId: string;
  providerAccountId: string;
  deleted: boolean;
  /** Resources that stay in the inventory because they have snapshots. */
  remainingResources: { id: string; resourceName: string; resourceType: string; snapshots: number }[];
}

/** Disconnects a source account, confirms it, deletes it and reports what stays in the inventory. */
export async function offboardSourceAccount(raw: OffboardSourceAccountInput): Promise<OffboardResult> {
  const { accountId } = parseInput(OffboardSourceAccountInput, raw);
  const tracker = new RunbookTracker('offboardSourceAccount', { resource: accountId });

  tracker.phase('disconnecting');
  await serviceCalls.disconnectSourceAccount(accountId);
  const account = await serviceCalls.getSourceAccount(accountId);
  if (account.status !== 'DISCONNECTED') {
    throw ApplicationFailure.create({
      type: FailureType.Conflict,
      nonRetryable: true,
      message: `source account ${accountId} is ${account.status} after disconnect; it was not deleted`,
    });
  }

  tracker.phase('deleting');
  const deletion = await serviceCalls.deleteSourceAccount(accountId);
  if (!deletion.deleted) {
    throw ApplicationFailure.create({
      type: FailureType.Conflict,
      nonRetryable: true,
      message: `the service refused to delete source account ${accountId}: ${deletion.conflict ?? 'conflict'}`,
    });
  }

  tracker.phase('listing remaining resources');
  const remainingResources = await serviceCalls.remainingResources(account.providerAccountId);
  tracker.phase('completed', { detail: `${remainingResources.length} resources stay in the inventory` });
  return { accountId, providerAccountId: account.providerAccountId, deleted: true, remainingResources };
}
