import { activityInfo } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { collect, type ResourceFilters } from '../../api';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { FailureType } from '../../contracts';
import { calling } from '../../runtime/failures';

/** The little a runbook needs to know of a resource; whole records stay out of history. */
export interface ResourceRef {
  id: string;
  providerResourceId: string;
  resourceName: string;
  resourceType: string;
  region: string;
}

export interface SnapshotRef {
  id: string;
  pointInTime: string;
  vaultId?: string;
}

const MAX_SELECTED = 200;

export function inventoryActivities({ client }: ActivityDeps) {
  return {
    /**
     * Resolves a drill's selection (IDs, or inventory filters) to resources, in a stable order. A selection by filters
     * that matches more than `maxResources` is refused whole, before anything is taken: drilling the first few of a
     * loose filter would look like a complete drill.
     */
    async resolveResources(selection: {
      ids?: string[];
      filters?: ResourceFilters;
      maxResources?: number;
    }): Promise<ResourceRef[]> {
      const attempt = activityInfo().attempt;
      const filters: ResourceFilters = selection.ids ? { id: { in: selection.ids } } : (selection.filters ?? {});
      const found = await calling(attempt, () =>
        collect(client.listResources({ filters, sorts: [{ field: 'resourceName', order: 'ASC' }] }, { pageSize: 100 })),
      );
      const bound = Math.min(selection.maxResources ?? MAX_SELECTED, MAX_SELECTED);
      if (found.length > bound) {
        throw ApplicationFailure.create({
          type: FailureType.InvalidInput,
          nonRetryable: true,
          message:
            `invalid input resources.maxResources: the filters match ${found.length} resources, more than ` +
            `maxResources (${bound}); nothing was taken. Narrow resources.filters, or raise resources.maxResources ` +
            `(at most ${MAX_SELECTED}) to drill them all`,
          details: [{ field: 'resources.maxResources', matched: found.length, maxResources: bound }],
        });
      }
      return found.map((r) => ({
        id: r.id,
        providerResourceId: r.providerResourceId,
        resourceName: r.resourceName,
        resourceType: r.resourceType,
        region: r.region,
      }));
    },

    /** The newest snapshot of a resource taken at or after `notBefore`, if any. */
    async latestSnapshot(input: { resourceId: string; notBefore: string }): Promise<SnapshotRef | undefined> {
      const page = await calling(activityInfo().attempt, () =>
        client.listSnapshotsPage(
          input.resourceId,
          {
            filters: { pointInTime: { startDate: input.notBefore.slice(0, 10) } },
            sorts: [{ field: 'pointInTime', order: 'DESC' }],
          },
          { pageSize: 1 },
        ),
      );
      const newest = page.snapshots[0];
      if (!newest?.pointInTime || Date.parse(newest.pointInTime) < Date.parse(input.notBefore)) return undefined;
      return { id: newest.id, pointInTime: newest.pointInTime, vaultId: newest.vaultId };
    },

    async getSnapshot(snapshotId: string): Promise<SnapshotRef> {
      const snapshot = await calling(activityInfo().attempt, () => client.getSnapshot(snapshotId));
      return { id: snapshot.id, pointInTime: snapshot.pointInTime ?? snapshot.createdTime, vaultId: snapshot.vaultId };
    },
  };
}
