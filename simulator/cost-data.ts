import type { CostDataInput, CostFilters, InventoryResourceDocument as InventoryResource } from '../api';
import { METERING_DIMENSIONS } from '../api/enums';
import { matchesInNotIn, matchesList } from './filters';
import type { SimState } from './model';
import { stableHash } from './seed-databases';

/**
 * Synthetic storage usage and its cost. Every resource stores bytes in one or two metering dimensions; a unit of usage
 * is (resource, vault, dimension). Its usage per UTC day is a pure function of (seed, resource, dimension, vault,
 * day), spread over the day's hours by fixed weights, so any interval is summed from whole days plus a few hours.
 */

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/** One byte stored for a 730-hour month is one byte-month. */
export const HOURS_PER_MONTH = 730;
const GIB = 1024 ** 3;
/** 1 credit is 0.01 USD. */
export const USD_PER_CREDIT = 0.01;

/**
 * The metering dimension (without the `_METERING_DIMENSION` suffix) that holds the whole of a resource type's storage.
 */
const MAIN_DIMENSION: Record<string, string> = {
  PA_VM: 'PA_VM',
  PA_RELATIONAL_DB: 'PA_RELATIONAL_DB',
  PA_OBJECT_STORE: 'PA_OBJECT_STORE',
  PA_FILE_SYSTEM: 'STORAGE_GATEWAY',
  PA_MANAGED_FILE_SYSTEM: 'STORAGE_GATEWAY',
  PA_K8S_NAMESPACE: 'PA_K8S',
  PA_KEYVALUE_DB: 'PA_KEYVALUE_DB',
  PB_VM: 'PB_VM',
  PB_DISK: 'PB_VM',
  PB_FILE_SHARE: 'PB_STORAGE_ACCOUNT',
  PB_STORAGE_ACCOUNT: 'PB_STORAGE_ACCOUNT',
  PB_SQL_DATABASE: 'PB_SQL_DATABASE',
  PB_SQL_MANAGED_INSTANCE: 'PB_SQL_DATABASE',
  PB_SQL_VM: 'PB_SQL_VM',
  PB_MYSQL: 'PB_POSTGRESQL',
  PB_POSTGRESQL: 'PB_POSTGRESQL',
  PB_DOC_DB_A: 'PB_SQL_DATABASE',
  PB_DOC_DB_B: 'PB_SQL_DATABASE',
  PD_DOC_DB_CLUSTER: 'PD_CLUSTER',
  PC_VM: 'PC_VM',
  PC_SQL_INSTANCE: 'PC_SQL_POSTGRES',
  PC_OBJECT_BUCKET: 'PC_OBJECT_STORE',
};
/** A second dimension a few types meter besides, and its share of their storage. */
const EXTRA_DIMENSION: Record<string, readonly [string, number]> = {
  PA_VM: ['PA_VM_NATIVE', 0.3],
  PA_OBJECT_STORE: ['CLASSIFICATION', 0.05],
  PB_STORAGE_ACCOUNT: ['RANSOMWARE_PROTECTED_STORAGE', 0.2],
  PC_OBJECT_BUCKET: ['DATA_TRANSFER', 0.1],
};
/** Metering dimensions of each resource type and their share of its storage. */
const DIMENSIONS_BY_TYPE: Record<string, readonly (readonly [string, number])[]> = Object.fromEntries(
  Object.entries(MAIN_DIMENSION).map(([type, main]) => {
    const extra = EXTRA_DIMENSION[type];
    return [type, extra ? [[main, 1], extra] : [[main, 1]]];
  }),
);

/** Credits per GiB-month; cross-provider vaults cost 20% more. */
const RATES: Record<string, number> = {
  PA_VM: 5,
  PA_VM_NATIVE: 2.5,
  PA_RELATIONAL_DB: 9.5,
  PA_OBJECT_STORE: 2.1,
  PA_KEYVALUE_DB: 10,
  PA_K8S: 6,
  CLASSIFICATION: 15,
  RANSOMWARE_PROTECTED_STORAGE: 3,
  DATA_TRANSFER: 9,
};
const DEFAULT_RATE = 5;
const CROSS_VAULT_FACTOR = 1.2;

const PROVIDER_LETTER: Record<string, string> = {
  PROVIDER_A: 'PA',
  PROVIDER_B: 'PB',
  PROVIDER_C: 'PC',
  PROVIDER_D: 'PD',
};
/** Cross-provider dimensions the enum names, e.g. PA_VM_TO_PB_VAULT: taken from api/, never copied. */
const CROSS_VAULT = new Set(
  METERING_DIMENSIONS.map((d) => d.replace(/_METERING_DIMENSION$/, '')).filter((d) => /_TO_P[A-D]_VAULT$/.test(d)),
);

/** A slight diurnal shape; normalised so the 24 weights sum to 24 and a whole day is just the day's amount. */
const HOUR_WEIGHTS = (() => {
  const raw = Array.from({ length: 24 }, (_, h) => 1 + 0.04 * Math.sin((2 * Math.PI * h) / 24));
  const sum = raw.reduce((a, b) => a + b, 0);
  return raw.map((w) => (w * 24) / sum);
})();

export interface UsageUnit {
  dimension: string;
  /** Mean bytes stored in this unit. */
  bytes: number;
  /** Credits per GiB-month. */
  rate: number;
  key: number;
  phase: number;
}

export interface CostResource {
  id: string;
  resourceType: string;
  cloudProvider: string;
  sourceAccountProviderId: string;
  tags: Record<string, string>;
  /** Units per vault holding its snapshots; '' when it has none. */
  vaults: Map<string, UsageUnit[]>;
}

function dimensionFor(base: string, resourceProvider: string, vaultProvider: string | undefined): string {
  const to = vaultProvider ? PROVIDER_LETTER[vaultProvider] : undefined;
  const cross = `${base}_TO_${to ?? ''}_VAULT`;
  const differs = to !== undefined && to !== PROVIDER_LETTER[resourceProvider];
  return `${differs && CROSS_VAULT.has(cross) ? cross : base}_METERING_DIMENSION`;
}

function storedBytes(seed: number, resource: InventoryResource): number {
  const size = resource.snapshotStorage.sizeBytes || resource.sourceStorage.sizeBytes;
  return size && size > 0 ? size : (10 + (stableHash(seed, resource.id, 'size') % 490)) * GIB;
}

/**
 * The resources usage is reported for: every resource in state whose type has a metering dimension. A resource's
 * usage is split evenly among the vaults that hold its snapshots.
 */
export function costResources(state: SimState): CostResource[] {
  const vaultsOf = new Map<string, Set<string>>();
  for (const snapshot of Object.values(state.snapshots)) {
    if (!snapshot.vaultId) continue;
    const set = vaultsOf.get(snapshot.resourceId) ?? new Set<string>();
    set.add(snapshot.vaultId);
    vaultsOf.set(snapshot.resourceId, set);
  }
  const result: CostResource[] = [];
  for (const { resource } of Object.values(state.resources)) {
    const dimensions = DIMENSIONS_BY_TYPE[resource.resourceType];
    if (!dimensions) continue;
    const vaultIds = [...(vaultsOf.get(resource.id) ?? [''])].sort();
    const bytes = storedBytes(state.seed, resource);
    const vaults = new Map<string, UsageUnit[]>();
    for (const vaultId of vaultIds) {
      const vaultProvider = state.vaults[vaultId]?.vaultAttributes.cloudProvider;
      const units = dimensions.map(([base, share]) => {
        const dimension = dimensionFor(base, resource.cloudProvider, vaultProvider);
        const key = stableHash(state.seed, resource.id, base, vaultId);
        const rate = (RATES[base] ?? DEFAULT_RATE) * (dimension.startsWith(`${base}_TO_`) ? CROSS_VAULT_FACTOR : 1);
        return { dimension, bytes: (bytes * share) / vaultIds.length, rate, key, phase: key % 30 };
      });
      vaults.set(vaultId, units);
    }
    result.push({
      id: resource.id,
      resourceType: resource.resourceType,
      cloudProvider: resource.cloudProvider,
      sourceAccountProviderId: resource.providerAccountId,
      tags: resource.tags,
      vaults,
    });
  }
  return result.sort((a, b) => a.id.localeCompare(b.id));
}

/** Byte-months of one UTC day: a monthly wave plus ±4% daily noise around the unit's mean. */
function dayByteMonths(unit: UsageUnit, day: number): number {
  let h = (unit.key ^ Math.imul(day, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  h = (h ^ (h >>> 16)) >>> 0;
  const noise = 0.96 + 0.08 * (h / 4294967296);
  const wave = 1 + 0.08 * Math.sin((2 * Math.PI * (day + unit.phase)) / 30);
  return ((unit.bytes * 24) / HOURS_PER_MONTH) * wave * noise;
}

/** Byte-months of a unit in [start, end): whole days at once, partial hours prorated by the millisecond. */
export function byteMonthsBetween(unit: UsageUnit, start: number, end: number): number {
  let total = 0;
  let t = start;
  while (t < end) {
    const day = Math.floor(t / DAY_MS);
    const dayStart = day * DAY_MS;
    if (t === dayStart && t + DAY_MS <= end) {
      total += dayByteMonths(unit, day);
      t += DAY_MS;
      continue;
    }
    const hour = Math.floor(t / HOUR_MS);
    const hourEnd = Math.min((hour + 1) * HOUR_MS, end);
    const weight = HOUR_WEIGHTS[hour - day * 24] ?? 1;
    total += ((dayByteMonths(unit, day) * weight) / 24) * ((hourEnd - t) / HOUR_MS);
    t = hourEnd;
  }
  return total;
}

export const creditsOf = (unit: UsageUnit, byteMonths: number) => (byteMonths / GIB) * unit.rate;

/** The periods of a granularity over [start, end): aligned hours, UTC days, UTC months, or the frame itself. */
export interface Periods {
  count: number;
  at(index: number): { start: number; end: number };
}

export function periodsOf(granularity: NonNullable<CostDataInput['granularity']>, start: number, end: number): Periods {
  if (granularity === 'TOTAL') return { count: 1, at: () => ({ start, end }) };
  if (granularity === 'HOURLY' || granularity === 'DAILY') {
    const step = granularity === 'HOURLY' ? HOUR_MS : DAY_MS;
    const first = Math.floor(start / step) * step;
    return {
      count: Math.ceil((end - first) / step),
      at: (i) => ({ start: first + i * step, end: first + (i + 1) * step }),
    };
  }
  const from = new Date(start);
  const firstMonth = from.getUTCFullYear() * 12 + from.getUTCMonth();
  const to = new Date(end - 1);
  const lastMonth = to.getUTCFullYear() * 12 + to.getUTCMonth();
  const monthStart = (m: number) => Date.UTC(Math.floor(m / 12), m % 12, 1);
  return {
    count: lastMonth - firstMonth + 1,
    at: (i) => ({ start: monthStart(firstMonth + i), end: monthStart(firstMonth + i + 1) }),
  };
}

/** The cost filters, matched like the resource-list filters (simulator/filters.ts); tag filters as their names say. */
export function matchesCostFilters(resource: CostResource, filters: CostFilters | undefined): boolean {
  if (!filters) return true;
  const tags = Object.entries(resource.tags);
  return (
    matchesInNotIn(resource.sourceAccountProviderId, filters.sourceAccountProviderId) &&
    matchesInNotIn(resource.cloudProvider, filters.cloudProvider) &&
    matchesInNotIn(resource.resourceType, filters.resourceType) &&
    matchesInNotIn(resource.id, filters.resourceId) &&
    matchesList(
      tags.map(([key]) => key),
      filters.tagKeys,
    ) &&
    matchesList(
      tags.map(([key, value]) => `${key}=${value}`),
      filters.tagKeyValues,
    )
  );
}
