import type { BackupServiceClient, InventoryResource, SourceAccount } from '../../api';
import { destinationMember, restoreTypeFor, type Dialect } from '../../api/dialect';
import type { Random } from '../../simulator/random';
import type { SimulatorControlClient } from '../../simulator/control-client';
import { drillVaultAndAccount } from '../seeded';

export interface SnapshotTarget {
  resourceId: string;
  snapshotId: string;
}

export interface QueryTarget {
  snapshotId: string;
  databaseName: string;
  bucketName: string;
}

/**
 * The seeded inventory, handed out so that no two trials share a resource or a snapshot: every job on a trial's
 * resources is then that trial's, and a job found elsewhere is someone else's.
 */
export class Fixtures {
  private costDay = 0;
  private accounts = 0;

  private constructor(
    private readonly service: BackupServiceClient,
    private readonly resources: InventoryResource[],
    readonly restoreAccountId: string,
    readonly vaultId: string,
    readonly queryTargets: QueryTarget[],
    /** The dialect the service speaks: inputs name their tokens in it, as its users would. */
    readonly dialect: Dialect,
  ) {}

  static async load(
    service: BackupServiceClient,
    control: SimulatorControlClient,
    random: Random,
    dialect: Dialect = 'neutral',
  ): Promise<Fixtures> {
    const resources: InventoryResource[] = [];
    for await (const resource of service.listResources()) resources.push(resource);
    // A seeded shuffle: another seed, other resources.
    for (let i = resources.length - 1; i > 0; i--) {
      const j = random.int(0, i);
      [resources[i], resources[j]] = [resources[j] as InventoryResource, resources[i] as InventoryResource];
    }
    const { vaultId: vault, restoreAccountId: account } = await drillVaultAndAccount(service);

    const queryTargets: QueryTarget[] = [];
    const { databases } = await control.state();
    for (const db of databases.filter((d) => d.tables.includes('events') && d.snapshotIds.length > 0).slice(0, 3)) {
      const snapshotId = db.snapshotIds.at(-1) ?? '';
      const snapshot = await service.getSnapshot(snapshotId);
      const region = snapshot.vaultId
        ? (await service.getVault(snapshot.vaultId)).region
        : (await service.getResource(db.resourceId)).region;
      // Until the simulator accepts any bucket name, a bucket's region is the end of its name.
      queryTargets.push({ snapshotId, databaseName: db.databaseName, bucketName: `reliability-${region}` });
    }
    if (queryTargets.length === 0) throw new Error('the seeded simulator has no database with an events table');
    const dbResources = new Set(databases.map((d) => d.resourceId));
    return new Fixtures(
      service,
      resources.filter((r) => !dbResources.has(r.id)),
      account,
      vault,
      queryTargets,
      dialect,
    );
  }

  /** An Amazon bucket restore or query destination, its member named as the service's dialect names it. */
  bucket(bucketName: string, prefix: string): Record<string, { bucketName: string; prefix: string }> {
    return { [destinationMember('amazonBucket', this.dialect)]: { bucketName, prefix } };
  }

  /** A resource no trial has used. */
  takeResource(): InventoryResource {
    const resource = this.resources.shift();
    if (!resource) throw new Error('every seeded resource has been used: fewer trials, or a larger inventory');
    return resource;
  }

  /** A resource no trial has used that was backed up before: a drill measures its RPO against that snapshot. */
  takeBackedUpResource(): InventoryResource {
    const index = this.resources.findIndex((r) => r.latestSnapshotTime !== undefined);
    const [resource] = index < 0 ? [] : this.resources.splice(index, 1);
    if (!resource) throw new Error('every seeded resource with a snapshot has been used: fewer trials');
    return resource;
  }

  /** A snapshot of a resource no trial has used, of any type. */
  async takeSnapshot(): Promise<SnapshotTarget> {
    return this.takeSnapshotOf(() => true, 'every seeded resource has been used: fewer trials, or a larger inventory');
  }

  /**
   * A snapshot of a resource no trial has used whose type the dialect's table gives a `restoreType` of both kinds,
   * as the service names the type (in the neutral dialect, every type): only then can a bucket restore's job be told
   * apart from a files restore's of the same snapshot.
   */
  async takeSnapshotWithBothRestoreKinds(): Promise<SnapshotTarget> {
    return this.takeSnapshotOf(
      (r) =>
        restoreTypeFor(r.resourceType, 'bucket') !== undefined && restoreTypeFor(r.resourceType, 'files') !== undefined,
      'every seeded resource whose type has both restore kinds in the dialect table has been used: fewer trials',
    );
  }

  private async takeSnapshotOf(accept: (r: InventoryResource) => boolean, exhausted: string): Promise<SnapshotTarget> {
    for (;;) {
      const index = this.resources.findIndex(accept);
      const [resource] = index < 0 ? [] : this.resources.splice(index, 1);
      if (!resource) throw new Error(exhausted);
      const page = await this.service.listSnapshotsPage(resource.id, {}, { pageSize: 1 });
      const snapshot = page.snapshots[0];
      if (snapshot) return { resourceId: resource.id, snapshotId: snapshot.id };
    }
  }

  /**
   * A new source account to offboard. The service refuses a second account with the same provider account ID (an
   * Azure subscription, a UUID), so it is derived from the trial and a counter.
   */
  connectSourceAccount(trial: number): Promise<SourceAccount> {
    const n = ++this.accounts;
    const subscriptionId = `00000000-0000-4000-8000-${String(trial * 1000 + n).padStart(12, '0')}`;
    // In the interface's vocabulary, as the client's input types name it: the client sends it in the wire's dialect.
    return this.service.connectSourceAccount({
      name: `reliability-t${trial}-${n}`,
      sourceAccountAttributes: {
        cloudProvider: 'PROVIDER_B',
        providerB: { tenantId: '00000000-0000-4000-8000-000000000000', subscriptionId },
      },
    });
  }

  /** A two-day window of the past that no other cost trial exports (a window names the export file). */
  costWindow(): { startTime: string; endTime: string } {
    const day = 24 * 3600 * 1000;
    const end = Math.floor(Date.now() / day) * day - (3 + 2 * this.costDay++) * day;
    return { startTime: new Date(end - 2 * day).toISOString(), endTime: new Date(end).toISOString() };
  }
}
