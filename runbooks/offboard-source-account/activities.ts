import { activityInfo } from '@temporalio/activity';
import { collect, ConflictError, NotFoundError } from '../../api';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { csvRecord, csvRecordsBuffer } from '../../runtime/csv';
import { exportServicePages, type ExportSummary } from '../../runtime/export-file';
import { calling, toFailure } from '../../runtime/failures';

/** The columns of the remaining-resources CSV, one row per resource that stays in the inventory. */
export const REMAINING_COLUMNS = [
  'id',
  'resourceName',
  'resourceType',
  'cloudProvider',
  'region',
  'backupStatus',
  'snapshots',
] as const;

/** Inventory page size of the listing: the service's resources are a few hundred bytes each. */
const REMAINING_PAGE_SIZE = 1000;
/** A service's refusal is quoted in the failure, cut to this length: a failure is recorded in history too. */
const MAX_CONFLICT_TEXT = 500;

export interface AccountState {
  id: string;
  name: string;
  providerAccountId: string;
  status: string;
}

export function accountActivities({ client, outputDir }: ActivityDeps) {
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
        if (err instanceof ConflictError) {
          return { deleted: false, conflict: (err.serviceMessage ?? err.message).slice(0, MAX_CONFLICT_TEXT) };
        }
        // A retry after an attempt whose answer was lost finds the account gone: that attempt deleted it.
        if (err instanceof NotFoundError && attempt > 1) return { deleted: true };
        throw toFailure(err, attempt);
      }
    },

    /**
     * Writes the provider account's resources still in the inventory (those with snapshots stay after a disconnect) to
     * `offboarding/<fileName>` as CSV, paged and resumable like an export; returns the file's summary, never the rows.
     */
    async writeRemainingResources(input: { providerAccountId: string; fileName: string }): Promise<ExportSummary> {
      const filters = { accountId: { in: [input.providerAccountId] } };
      return exportServicePages(
        { outputDir, folder: 'offboarding', fileName: input.fileName },
        (pageToken) => client.listResourcesPage({ filters }, { pageSize: REMAINING_PAGE_SIZE, pageToken }),
        (page) => ({
          header: csvRecord(REMAINING_COLUMNS),
          bytes: csvRecordsBuffer(
            page.resources.map((r) => [
              r.id,
              r.resourceName,
              r.resourceType,
              r.cloudProvider,
              r.region,
              r.backupStatus,
              r.snapshotStorage.eonSnapshotCount ?? 0,
            ]),
          ),
          rows: page.resources.length,
          nextToken: page.nextToken || null,
        }),
      );
    },

    /**
     * The remaining resources as a list: only runs that reached this step before `writeRemainingResources` existed
     * still call it. Unbounded; kept so that those runs can finish.
     */
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
