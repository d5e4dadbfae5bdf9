// A selection resolved against the inventory: the listing with the filters the service applies, then the matching
// that decides (./selection.ts). The drill's first activity bounds and retries it (./activities.ts); the evidence
// gate resolves its scope with it as it is.
import { collect, type BackupServiceClient, type InventoryResource, type ResourceFilters } from '../../api';
import { selectIds, serverFiltersOf, type Selection } from './selection';

/** How each listing is called: as it is, or inside an activity's classification of failures. */
type Call = <T>(list: () => Promise<T>) => Promise<T>;

/** The resources a selection takes, sorted by ID. */
export async function listSelected(
  client: BackupServiceClient,
  selection: Selection,
  call: Call = (list) => list(),
): Promise<InventoryResource[]> {
  // In the order the other forms list by, so that the pages hold still while they are read.
  const sorts = [{ field: 'resourceName' as const, order: 'ASC' as const }];
  const list = (filters: ResourceFilters) =>
    call(() => collect(client.listResources({ filters, sorts }, { pageSize: 100 })));
  const byConditions = serverFiltersOf(selection);
  const listed = [
    ...(byConditions ? await list(byConditions) : []),
    ...(selection.include ? await list({ id: { in: selection.include } }) : []),
  ];
  const found = new Map(listed.map((r) => [r.id, r]));
  return selectIds([...found.values()], selection).flatMap((id) => found.get(id) ?? []);
}
