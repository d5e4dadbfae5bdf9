import { activityInfo } from '@temporalio/activity';
import { collect, ConflictError, NotFoundError } from '../../api';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { calling, toFailure } from '../../runtime/failures';

export interface AccountState {
  id: string;
  name: string;
  providerAccountId: string;
  status: string;
}

export function accountActivities({ client }: ActivityDeps) {
  const stateOf = (a: AccountState): AccountState => ({
    id: a.id,
    name: a.name,
    providerAccountId: a.providerAccountId,
    status: a.status,
  });
  return {
    async getSourceAccount(accountId: string): Promise<AccountState> {
      return stateOf(await calling(activityInfo().attempt, () => client.getSourceAccount(accountId)));
    },

    async disconnectSourceAccount(accountId: string): Promise<AccountState> {
      return stateOf(await calling(activityInfo().attempt, () => client.disconnectSourceAccount(accountId)));
    },

    /** Deletes the account; a 409 (still connected) is reported rather than thrown, for the runbook to decide. */
    async deleteSourceAccount(accountId: string): Promise<{ deleted: boolean; conflict?: string }> {
      const attempt = activityInfo().attempt;
      try {
        await client.deleteSourceAccount(accountId);
        return { deleted: true };
      } catch (err) {
        if (err instanceof ConflictError) return { deleted: false, conflict: err.serviceMessage ?? err.message };
        // A retry after an attempt whose answer was lost finds the account gone: that attempt deleted it.
        if (err instanceof NotFoundError && attempt > 1) return { deleted: true };
        throw toFailure(err, attempt);
      }
    },

    /** Resources of a provider account still in the inventory (those with snapshots stay after a disconnect). */
    async remainingResources(
      providerAccountId: string,
    ): Promise<{ id: string; resourceName: string; resourceType: string; snapshots: number }[]> {
      const resources = await calling(activityInfo().attempt, () =>
        collect(client.listResources({ filters: { accountId: { in: [providerAccountId] } } }, { pageSize: 100 })),
      );
      return resources.map((r) => ({
        id: r.id,
        resourceName: r.resourceName,
        resourceType: r.resourceType,
        snapshots: r.snapshotStorage.eonSnapshotCount ?? 0,
      }));
    },
  };
}
