import { collect, type BackupServiceClient, type InventoryResource, type RestoreAccount, type Vault } from '../api';
import { providerConceptOf, providerOfResourceType, resourceCategoryOf, type ResourceCategory } from '../api/dialect';
import { CliError } from '../operator/errors';
import type { SimulatorState } from '../simulator/control-client';

/** What the demo picks from the service's inventory, the way an operator would: through the API. */
export interface DemoTargets {
  restoreAccount: RestoreAccount;
  bucket: { resource: InventoryResource; snapshotId: string };
  drill: {
    vault: Vault;
    resources: InventoryResource[];
    database: { resourceId: string; databaseName: string; table: string };
  };
  query: { snapshotId: string; databaseName: string; table: string; region: string };
  /** A three-tier application in the drill's region: its database, a bucket and two servers. */
  plan: { database: InventoryResource; bucket: InventoryResource; servers: [InventoryResource, InventoryResource] };
}

/**
 * Everything the demo restores is in one provider's cloud (Amazon's): its restore account restores it, and its
 * buckets take the results. The drill takes a database and resources of two of these other kinds.
 */
const PROVIDER = 'amazonWebServices';
const DRILL_COMPANIONS: ResourceCategory[] = ['objectStore', 'virtualMachine', 'fileSystem', 'keyValue'];

const ofProvider = (cloudProvider: string) => providerConceptOf(cloudProvider) === PROVIDER;

/**
 * Picks by concept (provider, resource category), never by a token of one dialect: the same discovery finds the same
 * kinds of resources whichever dialect the service speaks.
 */
export async function discoverTargets(client: BackupServiceClient, state: SimulatorState): Promise<DemoTargets> {
  const accounts = await collect(client.listRestoreAccounts({}, { pageSize: 50 }));
  const usable = accounts.filter((a) => a.status === 'CONNECTED' && a.isRestoreAllowed);
  const restoreAccount =
    usable.find((a) => ofProvider(a.restoreAccountAttributes.cloudProvider)) ??
    usable[0] ??
    fail('no connected restore account that allows restores');

  // The whole inventory, sorted out here by what each type is: a filter would have to name types in one dialect.
  const wanted: ResourceCategory[] = ['relationalDatabase', ...DRILL_COMPANIONS];
  const resources = (await collect(client.listResources({}, { pageSize: 100 }))).filter(
    (r) => providerOfResourceType(r.resourceType) === PROVIDER && wanted.includes(resourceCategoryOf(r.resourceType)),
  );
  const vaults = await collect(client.listVaults({ pageSize: 50 }));

  // A bucket with a snapshot to restore from.
  let bucket: DemoTargets['bucket'] | undefined;
  for (const resource of resources.filter((r) => resourceCategoryOf(r.resourceType) === 'objectStore')) {
    const page = await client.listSnapshotsPage(resource.id, { sorts: [{ field: 'pointInTime', order: 'DESC' }] }, {});
    const snapshot = page.snapshots[0];
    if (snapshot) {
      bucket = { resource, snapshotId: snapshot.id };
      break;
    }
  }
  if (!bucket) fail('no object store with a snapshot');

  // A drill in one region: a database with a known table, plus resources of other types, and a vault there.
  let drill: DemoTargets['drill'] | undefined;
  for (const db of state.databases) {
    const resource = resources.find((r) => r.id === db.resourceId);
    const vault =
      resource && vaults.find((v) => v.region === resource.region && ofProvider(v.vaultAttributes.cloudProvider));
    if (!resource || !vault) continue;
    const companions = DRILL_COMPANIONS.flatMap((category) => {
      // Backed up before, so that the drill's RPO has a restore point to measure.
      const found = resources.find(
        (r) =>
          resourceCategoryOf(r.resourceType) === category &&
          r.region === resource.region &&
          r.latestSnapshotTime !== undefined,
      );
      return found ? [found] : [];
    }).slice(0, 2);
    if (companions.length < 2) continue;
    const table = db.tables.includes('customers') ? 'customers' : (db.tables[0] ?? fail('a database without tables'));
    drill = {
      vault,
      resources: [resource, ...companions],
      database: { resourceId: db.resourceId, databaseName: db.databaseName, table },
    };
    break;
  }
  if (!drill) fail('no region with a vault, a relational database and two other resource types');

  // The plan's tiers beside the drill's database, backed up before as an application's resources would be: the demo
  // backs them up again together, for a common point.
  const region = drill.vault.region;
  const protectedOf = (category: ResourceCategory) =>
    resources.filter(
      (r) =>
        resourceCategoryOf(r.resourceType) === category && r.region === region && r.latestSnapshotTime !== undefined,
    );
  const [planBucket] = protectedOf('objectStore');
  const [server1, server2] = protectedOf('virtualMachine');
  if (!planBucket || !server1 || !server2) fail(`no bucket and two virtual machines in ${region} for the plan`);
  const databaseId = drill.database.resourceId;
  const planDatabase = drill.resources.find((r) => r.id === databaseId);
  if (!planDatabase) fail('no database resource for the drill');
  const plan: DemoTargets['plan'] = { database: planDatabase, bucket: planBucket, servers: [server1, server2] };

  // A query over an existing database snapshot; its results go to a bucket in the snapshot vault's region.
  let query: DemoTargets['query'] | undefined;
  for (const db of state.databases) {
    const page = await client.listSnapshotsPage(
      db.resourceId,
      { sorts: [{ field: 'pointInTime', order: 'DESC' }] },
      {},
    );
    const snapshot = page.snapshots[0];
    if (!snapshot?.vaultId) continue;
    const vault = await client.getVault(snapshot.vaultId);
    const table = db.tables.includes('orders') ? 'orders' : (db.tables[0] ?? 'customers');
    query = { snapshotId: snapshot.id, databaseName: db.databaseName, table, region: vault.region };
    break;
  }
  if (!query) fail('no relational-database snapshot to query');

  return { restoreAccount, bucket, drill, query, plan };
}

function fail(what: string): never {
  throw new CliError(`the simulator's inventory has ${what}; the demo cannot go on`);
}
