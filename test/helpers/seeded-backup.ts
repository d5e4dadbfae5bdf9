// A backup the job tests can start again and again on a seeded simulator, found through the client as a runbook would.
import type { BackupServiceClient } from '../../api';

/** Starts a snapshot of the first seeded object store into the first vault, on each call; resolves to its job's ID. */
export async function objectStoreBackup(client: BackupServiceClient): Promise<() => Promise<string>> {
  let vaultId: string | undefined;
  for await (const vault of client.listVaults()) vaultId ??= vault.id;
  let resourceId: string | undefined;
  for await (const r of client.listResources()) if (r.resourceType === 'PA_OBJECT_STORE') resourceId ??= r.id;
  if (!vaultId || !resourceId) throw new Error('the seeded simulator has no vault or object store');
  return () => client.takeSnapshot(resourceId, { vaultId, retentionDays: 5 });
}
