import type { BackupServiceClient, CostDataRecord } from '../../api';

/**
 * Display names of the resources and source accounts that cost records name, which FOCUS wants beside their IDs.
 * Each is asked of the service once per export, in one filtered list call per page of records.
 */
export class FocusNames {
  private readonly resources = new Map<string, string | undefined>();
  private readonly accounts = new Map<string, string | undefined>();

  constructor(private readonly client: BackupServiceClient) {}

  /** Fetches the names of this page's resources and accounts that earlier pages did not name. */
  async learn(records: readonly CostDataRecord[]): Promise<void> {
    const resourceIds = unknownIds(records, (d) => d.resourceId, this.resources);
    const accountIds = unknownIds(records, (d) => d.sourceAccountProviderId, this.accounts);
    if (resourceIds.length > 0) {
      // An ID the inventory no longer holds keeps no name: the row's ResourceName stays empty.
      for (const id of resourceIds) this.resources.set(id, undefined);
      const listed = this.client.listResources({ filters: { id: { in: resourceIds } } }, { pageSize: 500 });
      for await (const r of listed) this.resources.set(r.id, r.resourceName);
    }
    if (accountIds.length > 0) {
      for (const id of accountIds) this.accounts.set(id, undefined);
      const listed = this.client.listSourceAccounts({ filters: { providerAccountId: { in: accountIds } } });
      for await (const a of listed) this.accounts.set(a.providerAccountId, a.name);
    }
  }

  resourceName = (id: string) => this.resources.get(id);
  subAccountName = (providerAccountId: string) => this.accounts.get(providerAccountId);
}

function unknownIds(
  records: readonly CostDataRecord[],
  pick: (d: NonNullable<CostDataRecord['dimensions']>) => string | undefined,
  known: ReadonlyMap<string, unknown>,
): string[] {
  const ids = new Set<string>();
  for (const r of records) {
    const id = r.dimensions ? pick(r.dimensions) : undefined;
    if (id !== undefined && !known.has(id)) ids.add(id);
  }
  return [...ids];
}
