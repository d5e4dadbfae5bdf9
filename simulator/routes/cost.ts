import { createHash } from 'node:crypto';
import { CostDataInput, type CostDataRecord, type PageParams } from '../../api';
import type { SimModule } from '../context';
import {
  HOURS_PER_MONTH,
  USD_PER_CREDIT,
  byteMonthsBetween,
  costResources,
  creditsOf,
  matchesCostFilters,
  periodsOf,
  type CostResource,
  type Periods,
  type UsageUnit,
} from '../cost-data';
import { SimError, parse } from '../errors';
import { readPageParams } from '../filters';
import type { SimState } from '../model';

/**
 * POST /v1/cost-data (docs/service-interface.md §8). Records are ordered by period, then by group; every group has a
 * record in every period, so record i is (period ⌊i / groups⌋, group i mod groups) and a page computes only its own
 * records.
 */

export const DEFAULT_COST_PAGE = 100;

type Input = CostDataInput;
type Dimensions = NonNullable<CostDataRecord['dimensions']> & { vaultId?: string };

interface Group {
  key: string;
  /** Undefined for the record that folds the resources outside `topN`. */
  dimensions?: Dimensions;
  units: UsageUnit[];
  resourceIds: Set<string>;
}

function resourceDimensions(r: CostResource): Dimensions {
  return {
    resourceId: r.id,
    resourceType: r.resourceType,
    cloudProvider: r.cloudProvider,
    sourceAccountProviderId: r.sourceAccountProviderId,
  };
}

/** Group key and dimensions of a (resource, vault) pair under a grouping. */
function keyOf(groupBy: NonNullable<Input['groupBy']>, r: CostResource, vaultId: string): [string, Dimensions] {
  switch (groupBy) {
    case 'SOURCE_ACCOUNT':
      return [r.sourceAccountProviderId, { sourceAccountProviderId: r.sourceAccountProviderId }];
    case 'CLOUD_PROVIDER':
      return [r.cloudProvider, { cloudProvider: r.cloudProvider }];
    case 'RESOURCE_TYPE':
      return [r.resourceType, { resourceType: r.resourceType }];
    case 'RESOURCE':
      return [r.id, resourceDimensions(r)];
    case 'RESOURCE_AND_VAULT':
      return [`${r.id}/${vaultId}`, vaultId ? { ...resourceDimensions(r), vaultId } : resourceDimensions(r)];
  }
}

function frameCredits(r: CostResource, start: number, end: number): number {
  let total = 0;
  for (const units of r.vaults.values()) {
    for (const unit of units) total += creditsOf(unit, byteMonthsBetween(unit, start, end));
  }
  return total;
}

/** The groups of a request, sorted by key; with `topN`, the folded remainder comes last. */
function groupsOf(resources: CostResource[], input: Input, start: number, end: number): Group[] {
  const groupBy = input.groupBy ?? 'SOURCE_ACCOUNT';
  let kept = resources;
  let folded: CostResource[] = [];
  if (input.topN !== undefined && (groupBy === 'RESOURCE' || groupBy === 'RESOURCE_AND_VAULT')) {
    const ranked = resources
      .map((r) => ({ r, credits: frameCredits(r, start, end) }))
      .sort((a, b) => b.credits - a.credits || a.r.id.localeCompare(b.r.id))
      .map(({ r }) => r);
    kept = ranked.slice(0, input.topN);
    folded = ranked.slice(input.topN);
  }
  const groups = new Map<string, Group>();
  for (const r of kept) {
    for (const [vaultId, units] of r.vaults) {
      const [key, dimensions] = keyOf(groupBy, r, vaultId);
      const group = groups.get(key) ?? { key, dimensions, units: [], resourceIds: new Set<string>() };
      group.units.push(...units);
      group.resourceIds.add(r.id);
      groups.set(key, group);
    }
  }
  const sorted = [...groups.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  if (folded.length > 0) {
    sorted.push({
      key: '',
      units: folded.flatMap((r) => [...r.vaults.values()].flat()),
      resourceIds: new Set(folded.map((r) => r.id)),
    });
  }
  return sorted;
}

function recordOf(group: Group, periods: Periods, index: number, input: Input, frame: [number, number]) {
  const period = periods.at(index);
  const start = Math.max(period.start, frame[0]);
  const end = Math.min(period.end, frame[1]);
  const byDimension = new Map<string, { byteMonths: number; credits: number }>();
  for (const unit of group.units) {
    const byteMonths = byteMonthsBetween(unit, start, end);
    const sum = byDimension.get(unit.dimension) ?? { byteMonths: 0, credits: 0 };
    sum.byteMonths += byteMonths;
    sum.credits += creditsOf(unit, byteMonths);
    byDimension.set(unit.dimension, sum);
  }
  const usd = input.costUnit === 'USD';
  const bytes = input.usageUnit === 'BYTES';
  const hours = (end - start) / 3_600_000;
  const record: CostDataRecord = {
    recordTimeFrame: { startTime: new Date(period.start).toISOString(), endTime: new Date(period.end).toISOString() },
    costs: [...byDimension.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([meteringDimension, sum]) => ({
        meteringDimension,
        cost: { amount: usd ? sum.credits * USD_PER_CREDIT : sum.credits, unit: usd ? 'USD' : 'CREDITS' },
        // BYTES: the mean bytes stored over the part of the period inside the frame.
        usage: {
          amount: bytes ? (sum.byteMonths * HOURS_PER_MONTH) / hours : sum.byteMonths,
          unit: bytes ? 'BYTES' : 'BYTE_MONTHS',
        },
      })),
    resourceCount: group.resourceIds.size,
  };
  if (group.dimensions) record.dimensions = group.dimensions;
  return record;
}

/** What a page token is bound to: the request with its defaults filled in, so spelling a default changes nothing. */
function fingerprintOf(input: Input, start: number, end: number): string {
  const groupBy = input.groupBy ?? 'SOURCE_ACCOUNT';
  const normalized = {
    start,
    end,
    granularity: input.granularity ?? 'MONTHLY',
    groupBy,
    topN: groupBy === 'RESOURCE' || groupBy === 'RESOURCE_AND_VAULT' ? input.topN : undefined,
    filters: input.filters,
    costUnit: input.costUnit ?? 'CREDITS',
    usageUnit: input.usageUnit ?? 'BYTE_MONTHS',
  };
  return createHash('sha256').update(JSON.stringify(normalized)).digest('hex').slice(0, 16);
}

function decodeOffset(token: string, fingerprint: string): number {
  try {
    const value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { o?: unknown; f?: unknown };
    if (typeof value.o === 'number' && Number.isInteger(value.o) && value.o >= 0 && value.f === fingerprint) {
      return value.o;
    }
  } catch {
    // fall through: an unreadable token is a bad request
  }
  throw new SimError(400, 'invalid query.pageToken: it does not belong to this time frame, grouping and filters');
}

/** One page of cost data: the records of [offset, offset + pageSize) and the token of the next page. */
export function costDataPage(state: SimState, input: Input, page: PageParams) {
  const start = Date.parse(input.timeFrame.startTime);
  const end = Date.parse(input.timeFrame.endTime);
  const resources = costResources(state).filter((r) => matchesCostFilters(r, input.filters));
  const groups = groupsOf(resources, input, start, end);
  const periods = periodsOf(input.granularity ?? 'MONTHLY', start, end);
  const total = groups.length * periods.count;
  const fingerprint = fingerprintOf(input, start, end);
  const offset = page.pageToken ? decodeOffset(page.pageToken, fingerprint) : 0;
  const last = Math.min(total, offset + (page.pageSize ?? DEFAULT_COST_PAGE));
  const records: CostDataRecord[] = [];
  for (let i = offset; i < last; i++) {
    const group = groups[i % groups.length];
    if (group) records.push(recordOf(group, periods, Math.floor(i / groups.length), input, [start, end]));
  }
  const nextToken =
    last < total ? Buffer.from(JSON.stringify({ o: last, f: fingerprint })).toString('base64url') : null;
  return { records, totalCount: total, resourceCount: resources.length, nextToken };
}

export const costModule: SimModule = {
  name: 'cost',
  routes(app, ctx) {
    app.post('/v1/cost-data', async (req) => {
      ctx.authorize(req, 'cost_explorer.view');
      const page = readPageParams(req.query);
      const input = parse(CostDataInput, req.body, 'body');
      return costDataPage(ctx.state, input, page);
    });
  },
};
