import { ApplicationFailure } from '@temporalio/common';
import { serviceCalls } from '../../runtime/calls';
import { RunbookTracker, parseInput } from '../../runtime/tracker';
import type { Activities } from '../activities';
import { FailureType } from '../../contracts';
import { OffboardSourceAccountInput, type OffboardResult } from './contract';

const service = serviceCalls<Activities>();

/** Disconnects a source account, confirms it, deletes it and reports what stays in the inventory. */
export async function offboardSourceAccount(raw: OffboardSourceAccountInput): Promise<OffboardResult> {
  const { accountId } = parseInput(OffboardSourceAccountInput, raw);
  const tracker = new RunbookTracker('offboardSourceAccount', { resource: accountId });

  tracker.phase('disconnecting');
  await service.disconnectSourceAccount(accountId);
  const account = await service.getSourceAccount(accountId);
  if (account.status !== 'DISCONNECTED') {
    throw ApplicationFailure.create({
      type: FailureType.Conflict,
      nonRetryable: true,
      message: `source account ${accountId} is ${account.status} after disconnect; it was not deleted`,
    });
  }

  tracker.phase('deleting');
  const deletion = await service.deleteSourceAccount(accountId);
  if (!deletion.deleted) {
    throw ApplicationFailure.create({
      type: FailureType.Conflict,
      nonRetryable: true,
      message: `the service refused to delete source account ${accountId}: ${deletion.conflict ?? 'conflict'}`,
    });
  }

  tracker.phase('listing remaining resources');
  const remainingResources = await service.remainingResources(account.providerAccountId);
  tracker.phase('completed', { detail: `${remainingResources.length} resources stay in the inventory` });
  return { accountId, providerAccountId: account.providerAccountId, deleted: true, remainingResources };
}
