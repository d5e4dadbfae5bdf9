// What the benchmarks and the reliability harness find on a seeded simulator: where drills back up and restore, and
// new accounts of generated resources.
import type { BackupServiceClient, InventoryResource } from '../api';
import type { SimulatorControlClient } from '../simulator/control-client';
import type { GeneratedInventory } from '../simulator/seed-inventory-bulk';

/** The seeded `backups-pa-east-1` vault and `restore-pa` restore account, where drills back up and restore. */
export async function drillVaultAndAccount(
  service: BackupServiceClient,
): Promise<{ vaultId: string; restoreAccountId: string }> {
  let vaultId: string | undefined;
  for await (const v of service.listVaults()) if (v.name === 'backups-pa-east-1') vaultId = v.id;
  let restoreAccountId: string | undefined;
  for await (const a of service.listRestoreAccounts()) if (a.name === 'restore-pa') restoreAccountId = a.id;
  if (!vaultId || !restoreAccountId) throw new Error('the seeded simulator has no backups-pa-east-1 or restore-pa');
  return { vaultId, restoreAccountId };
}

/** A new source account of `count` generated resources, as the service lists them. */
export async function generatedResources(
  control: SimulatorControlClient,
  service: BackupServiceClient,
  count: number,
): Promise<InventoryResource[]> {
  const inventory = await control.call<GeneratedInventory>('POST', '/inventory/generate', { resources: count });
  const resources: InventoryResource[] = [];
  for await (const r of service.listResources()) {
    if (r.providerAccountId === inventory.providerAccountId) resources.push(r);
  }
  if (resources.length !== count) throw new Error(`generated ${count} resources, found ${resources.length}`);
  return resources;
}
