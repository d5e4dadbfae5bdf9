import type {
  CloudProvider,
  InventoryResourceDocument as InventoryResource,
  ResourceType,
  SnapshotDocument as Snapshot,
  SourceAccountDocument as SourceAccount,
  VaultDocument as Vault,
} from '../api';
import { refreshSnapshotFields } from './jobs';
import type { ResourceRecord, SimState } from './model';
import { Random } from './random';
import { SEEDED_REGIONS } from './routes/vaults';
import { buildResource, type ResourceSeedEnv } from './seed-inventory-resource';

/**
 * The seeded inventory: about 220 resources of every type and provider, with snapshots (each made by a completed,
 * SCHEDULED backup job) in vaults of the resource's region. Everything comes from the seed; times count back from
 * the start of the current UTC day, so the data is the same for a seed on any one day and always looks recent.
 */

const DAY_MS = 86_400_000;

/** How many resources of each type; every type of the enum but RESOURCE_TYPE_UNSPECIFIED. */
export const TYPE_COUNTS: readonly (readonly [ResourceType, number])[] = [
  ['PA_VM', 30],
  ['PA_RELATIONAL_DB', 14],
  ['PA_OBJECT_STORE', 20],
  ['PA_FILE_SYSTEM', 8],
  ['PA_MANAGED_FILE_SYSTEM', 6],
  ['PA_K8S_NAMESPACE', 10],
  ['PA_KEYVALUE_DB', 12],
  ['PB_VM', 16],
  ['PB_FILE_SHARE', 6],
  ['PB_STORAGE_ACCOUNT', 10],
  ['PB_DISK', 8],
  ['PB_SQL_DATABASE', 8],
  ['PB_SQL_MANAGED_INSTANCE', 4],
  ['PB_SQL_VM', 4],
  ['PB_MYSQL', 5],
  ['PB_POSTGRESQL', 6],
  ['PB_DOC_DB_A', 4],
  ['PB_DOC_DB_B', 4],
  ['PD_DOC_DB_CLUSTER', 8],
  ['PC_VM', 16],
  ['PC_SQL_INSTANCE', 10],
  ['PC_OBJECT_BUCKET', 12],
];

export const PROVIDERS = ['PROVIDER_A', 'PROVIDER_B', 'PROVIDER_C', 'PROVIDER_D'] as const;
const PREFIX_PROVIDER: Record<string, CloudProvider> = {
  PA: 'PROVIDER_A',
  PB: 'PROVIDER_B',
  PC: 'PROVIDER_C',
  PD: 'PROVIDER_D',
};

export function providerOfType(type: string): CloudProvider {
  return PREFIX_PROVIDER[type.slice(0, 2)] ?? 'PROVIDER_A';
}

/** The seeded (or later) resources of a type, in a stable order (by ID). */
export function resourcesOfType(state: SimState, type: string): InventoryResource[] {
  return Object.values(state.resources)
    .map((r) => r.resource)
    .filter((r) => r.resourceType === type)
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function seedInventory(state: SimState, seed: number): void {
  // A stream of its own, so that the inventory does not change when another module draws more numbers.
  const random = new Random((seed ^ 0x1f2e3d4c) >>> 0);
  const anchor = Math.floor((Date.now() + state.clockOffsetMs) / DAY_MS) * DAY_MS;
  const accounts = sourceAccountsByProvider(state, random, anchor);
  const vaults = vaultsByProvider(state, random);
  const env: ResourceSeedEnv = { random, anchor, networks: new Map() };

  for (const [type, count] of TYPE_COUNTS) {
    const provider = providerOfType(type);
    for (let i = 1; i <= count; i++) {
      const account = random.pick(accounts[provider] ?? []);
      const vault = random.pick(vaults[provider] ?? []);
      const snapshotCount = type === 'PA_RELATIONAL_DB' ? random.int(2, 4) : random.chance(0.65) ? random.int(1, 5) : 0;
      const resource = buildResource(env, {
        type,
        provider,
        index: i,
        region: vault.region,
        providerAccountId: account.providerAccountId,
        hasSnapshots: snapshotCount > 0,
      });
      const record: ResourceRecord = { resource, sourceAccountId: account.id };
      state.resources[resource.id] = record;
      const regional = (vaults[provider] ?? []).filter((v) => v.region === vault.region);
      seedSnapshots(state, random, resource, random.pick(regional), snapshotCount, anchor);
      refreshSnapshotFields(state, resource.id);
    }
  }
}

/** Snapshots spaced daily or weekly back from the anchor, each made by a completed SCHEDULED backup job. */
export function seedSnapshots(
  state: SimState,
  random: Random,
  resource: InventoryResource,
  vault: Vault,
  count: number,
  anchor: number,
): void {
  const spacingDays = random.pick([1, 1, 7]);
  const retentionDays = spacingDays === 1 ? random.pick([35, 90, 365]) : random.pick([90, 180, 365]);
  for (let k = 0; k < count; k++) {
    const startAt = anchor - (k * spacingDays + 1) * DAY_MS + random.int(0, 6 * 60) * 60_000;
    const endAt = startAt + random.int(2, 40) * 60_000;
    const jobId = random.uuid();
    const snapshot: Snapshot = {
      id: random.uuid(),
      createdTime: new Date(endAt).toISOString(),
      resourceId: resource.id,
      projectId: state.projectId,
      pointInTime: new Date(startAt).toISOString(),
      jobId,
      vaultId: vault.id,
      expirationTime: new Date(startAt + retentionDays * DAY_MS).toISOString(),
      ...(random.chance(0.04) ? { onHold: true, holdDescription: 'legal hold: litigation 2291' } : {}),
    };
    state.snapshots[snapshot.id] = snapshot;
    state.backupJobs[jobId] = {
      id: jobId,
      createdAt: startAt - random.int(1, 10) * 1000,
      startAt,
      endAt,
      outcome: 'JOB_COMPLETED',
      resourceId: resource.id,
      vaultId: vault.id,
      retentionDays,
      snapshotId: snapshot.id,
      backupType: 'SCHEDULED',
    };
  }
}

const digits = (random: Random, n: number) => Array.from({ length: n }, () => random.int(0, 9)).join('');

/** Connected source accounts per provider; one is created for a provider the accounts module left without any. */
function sourceAccountsByProvider(state: SimState, random: Random, anchor: number): Record<string, SourceAccount[]> {
  const out: Record<string, SourceAccount[]> = {};
  for (const provider of PROVIDERS) {
    let list = Object.values(state.sourceAccounts).filter(
      (a) => a.status === 'CONNECTED' && a.sourceAccountAttributes.cloudProvider === provider,
    );
    if (list.length === 0) {
      const account = fallbackSourceAccount(random, provider, anchor);
      state.sourceAccounts[account.id] = account;
      list = [account];
    }
    out[provider] = list;
  }
  return out;
}

export function fallbackSourceAccount(
  random: Random,
  provider: CloudProvider,
  anchor: number,
  name = `${provider.slice(-1).toLowerCase()}-inventory-prod`,
): SourceAccount {
  const common = {
    id: random.uuid(),
    name,
    status: 'CONNECTED',
    providerAccountName: name,
    connectedTime: new Date(anchor - 400 * DAY_MS).toISOString(),
  };
  switch (provider) {
    case 'PROVIDER_A': {
      const id = `4${digits(random, 11)}`;
      const roleArn = `arn:pa:iam::${id}:role/backup-service`;
      return {
        ...common,
        providerAccountId: id,
        sourceAccountAttributes: { cloudProvider: provider, providerA: { roleArn } },
      };
    }
    case 'PROVIDER_B': {
      const subscriptionId = random.uuid();
      const providerB = { tenantId: random.uuid(), subscriptionId };
      return {
        ...common,
        providerAccountId: subscriptionId,
        sourceAccountAttributes: { cloudProvider: provider, providerB },
      };
    }
    case 'PROVIDER_C': {
      const project = `inventory-prod-${digits(random, 4)}`;
      const providerC = { serviceAccount: `backup-service@${project}.iam.pc-cloud.example` };
      return { ...common, providerAccountId: project, sourceAccountAttributes: { cloudProvider: provider, providerC } };
    }
    default:
      // PROVIDER_D has no connect attributes in the interface: its account is only ever seeded.
      return {
        ...common,
        providerAccountId: `pd-org-${digits(random, 8)}`,
        sourceAccountAttributes: { cloudProvider: provider },
      };
  }
}

/**
 * The vaults each provider's resources are placed by: a resource lives in the region of one of them, so that its
 * snapshots sit in a vault of its own region. PROVIDER_D clusters run in other providers' regions, so without vaults
 * of their own they use PROVIDER_A's. Vaults are created when the vaults module seeded none at all.
 */
export function vaultsByProvider(state: SimState, random: Random): Record<string, Vault[]> {
  if (Object.keys(state.vaults).length === 0) {
    for (const [provider, regions] of Object.entries(SEEDED_REGIONS)) {
      for (const region of regions) {
        const vault: Vault = {
          id: random.uuid(),
          vaultAccountId: random.uuid(),
          providerAccountId: provider === 'PROVIDER_B' ? random.uuid() : `7${digits(random, 11)}`,
          name: `vault-${region}`,
          region,
          isManagedByEon: true,
          vaultAttributes: { cloudProvider: provider },
        };
        state.vaults[vault.id] = vault;
      }
    }
  }
  const all = Object.values(state.vaults);
  const out: Record<string, Vault[]> = {};
  for (const provider of PROVIDERS) {
    const own = all.filter((v) => v.vaultAttributes.cloudProvider === provider);
    const borrowed = all.filter((v) => v.vaultAttributes.cloudProvider === 'PROVIDER_A');
    out[provider] = own.length > 0 ? own : borrowed.length > 0 ? borrowed : all;
  }
  return out;
}
