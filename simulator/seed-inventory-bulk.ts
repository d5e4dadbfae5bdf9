import type { CloudProvider } from '../api';
import { refreshSnapshotFields } from './jobs';
import type { ResourceRecord, SimState } from './model';
import { Random } from './random';
import { fallbackSourceAccount, providerOfType, seedSnapshots, TYPE_COUNTS, vaultsByProvider } from './seed-inventory';
import { buildResource, type ResourceSeedEnv } from './seed-inventory-resource';

/**
 * A large inventory on demand (`POST /_simulator/inventory/generate`): one new connected source account holding
 * `resources` resources of its provider's types, built like the seeded ones, each with `snapshotsPerResource`
 * snapshots (and their completed backup jobs). Linear in the resources made: 50,000 take about a second.
 */

const DAY_MS = 86_400_000;
export const MAX_GENERATED_RESOURCES = 200_000;
export const MAX_SNAPSHOTS_PER_RESOURCE = 5;

export interface GenerateInventoryInput {
  resources: number;
  snapshotsPerResource: number;
  cloudProvider: CloudProvider;
  seed: number;
}

export interface GeneratedInventory {
  sourceAccountId: string;
  providerAccountId: string;
  cloudProvider: CloudProvider;
  resources: number;
  snapshots: number;
}

export function generateInventory(state: SimState, now: number, input: GenerateInventoryInput): GeneratedInventory {
  const random = new Random((input.seed ^ 0x6b756c6b) >>> 0);
  const anchor = Math.floor(now / DAY_MS) * DAY_MS;
  const provider = input.cloudProvider;
  const generated = Object.values(state.sourceAccounts).filter((a) => a.name.startsWith('generated-')).length;
  const account = fallbackSourceAccount(
    random,
    provider,
    anchor,
    `generated-${generated + 1}-${provider.toLowerCase()}`,
  );
  state.sourceAccounts[account.id] = account;
  const vaults = vaultsByProvider(state, random)[provider] ?? [];
  const types = TYPE_COUNTS.map(([type]) => type).filter((type) => providerOfType(type) === provider);
  const env: ResourceSeedEnv = { random, anchor, networks: new Map() };
  let snapshots = 0;
  for (let i = 1; i <= input.resources; i++) {
    const vault = random.pick(vaults);
    const resource = buildResource(env, {
      type: random.pick(types.length > 0 ? types : ['PA_VM']),
      provider,
      index: i,
      region: vault.region,
      providerAccountId: account.providerAccountId,
      hasSnapshots: input.snapshotsPerResource > 0,
    });
    const record: ResourceRecord = { resource, sourceAccountId: account.id };
    state.resources[resource.id] = record;
    if (input.snapshotsPerResource === 0) continue;
    // A scratch state of this resource alone: its snapshot fields are then computed from its own snapshots, not by a
    // scan of every snapshot in the project (which would make the whole generation quadratic).
    const own: SimState = { ...state, resources: { [resource.id]: record }, snapshots: {}, backupJobs: {} };
    seedSnapshots(own, random, resource, vault, input.snapshotsPerResource, anchor);
    refreshSnapshotFields(own, resource.id);
    Object.assign(state.snapshots, own.snapshots);
    Object.assign(state.backupJobs, own.backupJobs);
    snapshots += input.snapshotsPerResource;
  }
  return {
    sourceAccountId: account.id,
    providerAccountId: account.providerAccountId,
    cloudProvider: provider,
    resources: input.resources,
    snapshots,
  };
}
