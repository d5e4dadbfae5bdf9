// What the clean-point benchmark searches: seeded relational resources given one snapshot a day on the simulator's
// clock, the check of test/e2e/clean-point.test.ts, and corruption of a window's newest snapshots.
import type { BackupServiceClient } from '../../api';
import { CleanCheck } from '../../runbooks/clean-point/check';
import type { SimulatorControlClient } from '../../simulator/control-client';
import { newestFirst, snapshotsInWindow } from '../../steps/snapshot-window';

const DAY_SECONDS = 86_400;

/** A resource's window of daily snapshots, as the runbook lists it. */
export interface SnapshotWindow {
  resourceId: string;
  windowDays: number;
  /** Just after the newest snapshot, on the simulator's clock. */
  before: string;
  /** Newest first: index i is the runbook's candidate i. */
  snapshotIds: string[];
}

/** Where the searches run: relational resources, the vault their snapshots go to and the query call's account. */
export interface Targets {
  resources: { resourceId: string; databaseName: string }[];
  vaultId: string;
  region: string;
  restoreAccountId: string;
}

export async function seededTargets(service: BackupServiceClient, control: SimulatorControlClient): Promise<Targets> {
  let vault: { id: string; region: string } | undefined;
  for await (const v of service.listVaults()) if (v.name === 'backups-pa-east-1') vault = v;
  let restoreAccountId: string | undefined;
  for await (const a of service.listRestoreAccounts()) if (a.name === 'restore-pa') restoreAccountId = a.id;
  if (!vault || !restoreAccountId) throw new Error('the seeded simulator has no backups-pa-east-1 or restore-pa');
  const { databases } = await control.state();
  const resources: Targets['resources'] = [];
  for await (const r of service.listResources()) {
    const database = databases.find((d) => d.resourceId === r.id);
    if (r.resourceType === 'PA_RELATIONAL_DB' && database) {
      resources.push({ resourceId: r.id, databaseName: database.databaseName });
    }
  }
  return { resources, vaultId: vault.id, region: vault.region, restoreAccountId };
}

/**
 * Gives a resource n snapshots, one a day (each backup ends within its day), and lists them as the runbook will.
 * The seeded snapshots are older than the window: the caller moves the clock on first.
 */
export async function dailySnapshots(
  service: BackupServiceClient,
  control: SimulatorControlClient,
  resourceId: string,
  vaultId: string,
  n: number,
): Promise<SnapshotWindow> {
  const jobIds: string[] = [];
  for (let day = 0; day < n; day++) {
    jobIds.push(await service.takeSnapshot(resourceId, { vaultId, retentionDays: 365 }));
    await control.advanceClock(DAY_SECONDS);
  }
  for (const jobId of jobIds) {
    const { status } = (await service.getBackupJob(jobId)).jobExecutionDetails;
    if (status !== 'JOB_COMPLETED') throw new Error(`backup job ${jobId} is ${status}, not completed`);
  }
  const before = new Date(Date.parse((await control.state()).now) + 1000).toISOString();
  const window = { resourceId, windowDays: n + 1, before };
  const snapshots = [];
  for await (const s of snapshotsInWindow(service, window)) snapshots.push(s);
  if (snapshots.length !== n) throw new Error(`${resourceId}: ${snapshots.length} snapshots in the window, not ${n}`);
  return { ...window, snapshotIds: snapshots.sort(newestFirst).map((s) => s.id) };
}

/** The newest `count` snapshots of the window corrupted (none for 0): candidate `count` is the last clean one. */
export async function corruptNewest(control: SimulatorControlClient, window: SnapshotWindow, count: number) {
  if (count === 0) return control.clearCorruption(window.resourceId);
  const from = window.snapshotIds[count - 1];
  if (!from) throw new Error(`the window has ${window.snapshotIds.length} snapshots, not ${count}`);
  const { coveredSnapshotIds } = await control.corrupt(window.resourceId, { from, kind: 'rows-changed' });
  if (coveredSnapshotIds.length !== count) {
    throw new Error(`corruption from ${from} covers ${coveredSnapshotIds.length} snapshots, not ${count}`);
  }
}

/** The e2e test's check: ransomware's `ENC:` e-mails in the customers table. */
export function encryptedEmailsCheck(databaseName: string, region: string): CleanCheck {
  return CleanCheck.parse({
    name: 'no encrypted emails',
    databaseName,
    destination: { bucketA: { bucketName: `query-results-${region}` } },
    queries: [
      { name: 'encrypted emails', sql: "SELECT count(*) FROM customers WHERE email LIKE 'ENC:%'", expect: 'value = 0' },
    ],
  });
}
