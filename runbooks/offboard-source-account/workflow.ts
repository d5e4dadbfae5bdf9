import { ApplicationFailure } from '@temporalio/common';
import { patched, workflowInfo } from '@temporalio/workflow';
import { heartbeatingCalls, serviceCalls } from '../../runtime/calls';
import { RunbookTracker, parseInput } from '../../runtime/tracker';
import type { Activities } from '../activities';
import { FailureType } from '../../contracts';
import {
  OffboardSourceAccountInput,
  REMAINING_RESOURCES_FILE,
  type OffboardResult,
  offboardSourceAccountContract,
  runFileName,
} from './contract';

const service = serviceCalls<Activities>();
const heartbeating = heartbeatingCalls<Activities>();

/**
 * Disconnects a source account, confirms it, deletes it and reports what stays in the inventory. Every activity
 * result and the run's result have a fixed size, whatever the account holds: nothing after the deletion can fail to be
 * recorded. The resources that stay go to a CSV file.
 */
export async function offboardSourceAccount(raw: OffboardSourceAccountInput): Promise<OffboardResult> {
  const { accountId } = parseInput(OffboardSourceAccountInput, raw);
  const tracker = new RunbookTracker(offboardSourceAccountContract, { resource: accountId });

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
  const { providerAccountId } = account;
  const result = { accountId, providerAccountId, deleted: true };
  if (!patched(REMAINING_RESOURCES_FILE)) {
    // A run that listed the resources before they went to a file replays that listing; only its count is kept.
    const listed = await service.remainingResources(providerAccountId);
    tracker.phase('completed', { detail: `${listed.length} resources stay in the inventory` });
    return { ...result, remainingCount: listed.length };
  }
  // Named for this run (`<workflowId>--<runId>-remaining.csv`), so that no other run's list is replaced; decided here,
  // so that every attempt resumes the same file (this workflow never continues as new). Only the activity's input
  // differs from earlier versions: the commands stay as they were, so no patch.
  const file = await heartbeating.writeRemainingResources({
    providerAccountId,
    fileName: runFileName(workflowInfo(), '-remaining.csv'),
  });
  tracker.phase('completed', { detail: `${file.rows} resources stay in the inventory; ${file.path}` });
  const { path, rows, bytes, sha256 } = file;
  return { ...result, remainingCount: rows, remainingFile: { path, rows, bytes, sha256 } };
}
