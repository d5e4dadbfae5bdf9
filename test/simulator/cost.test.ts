// Conformance of POST /v1/cost-data (docs/service-interface.md §8), over raw HTTP.
import { CostDataPage, type CostDataRecord, type InventoryResourceDocument as InventoryResource } from '../../api';
import { type RunningSimulator } from '../../simulator/server';
import { allPages, errorOf, simulatorForSuite, suiteCall, tokenFor, expectBadRequest } from './helpers';

let sim: RunningSimulator;
let token: string;

const call = suiteCall(() => ({ sim, token }));

async function costPage(body: Record<string, unknown>, params = '') {
  const res = await call('POST', `/v1/cost-data${params}`, { body });
  expect(res.status).toBe(200);
  return CostDataPage.parse(res.body);
}

async function allRecords(body: Record<string, unknown>, pageSize = 1000): Promise<CostDataRecord[]> {
  const pages = await allPages(pageSize, (params) => costPage(body, params));
  return pages.flatMap((page) => page.records);
}

const frame = (startTime: string, endTime: string) => ({ startTime, endTime });
const TWO_DAYS = frame('2024-05-01T00:00:00Z', '2024-05-03T00:00:00Z');
const RAGGED = frame('2024-03-10T05:30:00Z', '2024-03-12T07:15:00Z');

/** The resources cost data covers: every resource whose type is a real one. */
function costed(): InventoryResource[] {
  return Object.values(sim.ctx.state.resources)
    .map(({ resource }) => resource)
    .filter((r) => r.resourceType !== 'RESOURCE_TYPE_UNSPECIFIED');
}

const creditsOf = (r: CostDataRecord) => r.costs.reduce((sum, c) => sum + c.cost.amount, 0);
const sumOf = (records: CostDataRecord[], f: (r: CostDataRecord) => number) => records.reduce((s, r) => s + f(r), 0);

function expectClose(actual: number, expected: number) {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(Math.abs(expected) * 1e-9 + 1e-9);
}

simulatorForSuite({}, (started, bootstrap) => {
  [sim, token] = [started, bootstrap];
});

describe('POST /v1/cost-data', () => {
  test('defaults: MONTHLY, grouped by SOURCE_ACCOUNT, in CREDITS and BYTE_MONTHS', async () => {
    const page = await costPage({ timeFrame: frame('2024-01-15T00:00:00Z', '2024-03-10T00:00:00Z') }, '?pageSize=1000');
    const accounts = new Set(costed().map((r) => r.providerAccountId));
    expect(page.totalCount).toBe(3 * accounts.size);
    expect(page.resourceCount).toBe(costed().length);
    expect(page.nextToken).toBeNull();
    expect(page.records.map((r) => r.recordTimeFrame.startTime)).toEqual([
      ...Array<string>(accounts.size).fill('2024-01-01T00:00:00.000Z'),
      ...Array<string>(accounts.size).fill('2024-02-01T00:00:00.000Z'),
      ...Array<string>(accounts.size).fill('2024-03-01T00:00:00.000Z'),
    ]);
    for (const record of page.records) {
      expect(Object.keys(record.dimensions ?? {})).toEqual(['sourceAccountProviderId']);
      expect(accounts.has(record.dimensions?.sourceAccountProviderId ?? '')).toBe(true);
      expect(record.resourceCount).toBeGreaterThanOrEqual(1);
      expect(record.costs.length).toBeGreaterThanOrEqual(1);
      for (const cost of record.costs) {
        expect(cost.meteringDimension).toMatch(/_METERING_DIMENSION$/);
        expect([typeof cost.cost.amount, cost.cost.unit]).toEqual(['number', 'CREDITS']);
        expect([typeof cost.usage.amount, cost.usage.unit]).toEqual(['number', 'BYTE_MONTHS']);
        expect(cost.cost.amount).toBeGreaterThan(0);
      }
    }
    // Ordered by period, then by dimensions.
    const firstPeriod = page.records.slice(0, accounts.size).map((r) => r.dimensions?.sourceAccountProviderId ?? '');
    expect(firstPeriod).toEqual([...firstPeriod].sort());
  });

  test('is deterministic: the same request gives the same records', async () => {
    const body = { timeFrame: TWO_DAYS, granularity: 'HOURLY', groupBy: 'RESOURCE_TYPE' };
    expect(await allRecords(body)).toEqual(await allRecords(body));
  });

  test.each([
    ['HOURLY', 51, '2024-03-10T05:00:00.000Z', '2024-03-10T06:00:00.000Z', '2024-03-12T07:00:00.000Z'],
    ['DAILY', 3, '2024-03-10T00:00:00.000Z', '2024-03-11T00:00:00.000Z', '2024-03-12T00:00:00.000Z'],
    ['MONTHLY', 1, '2024-03-01T00:00:00.000Z', '2024-04-01T00:00:00.000Z', '2024-03-01T00:00:00.000Z'],
    ['TOTAL', 1, '2024-03-10T05:30:00.000Z', '2024-03-12T07:15:00.000Z', '2024-03-10T05:30:00.000Z'],
  ])('%s records are aligned to their period', async (granularity, periods, firstStart, firstEnd, lastStart) => {
    const records = await allRecords({ timeFrame: RAGGED, granularity, groupBy: 'CLOUD_PROVIDER' });
    const providers = new Set(costed().map((r) => r.cloudProvider));
    expect(records).toHaveLength(periods * providers.size);
    expect(records[0]?.recordTimeFrame).toEqual({ startTime: firstStart, endTime: firstEnd });
    expect(records.at(-1)?.recordTimeFrame.startTime).toBe(lastStart);
    const starts = [...new Set(records.map((r) => r.recordTimeFrame.startTime))];
    expect(starts).toHaveLength(periods);
  });

  test('sums are invariant: HOURLY and DAILY records add up to the TOTAL record of each group', async () => {
    const base = { timeFrame: RAGGED, groupBy: 'RESOURCE_TYPE' };
    const total = await allRecords({ ...base, granularity: 'TOTAL' });
    for (const granularity of ['HOURLY', 'DAILY', 'MONTHLY']) {
      const records = await allRecords({ ...base, granularity });
      for (const whole of total) {
        const parts = records.filter((r) => r.dimensions?.resourceType === whole.dimensions?.resourceType);
        for (const cost of whole.costs) {
          const same = parts.flatMap((r) => r.costs.filter((c) => c.meteringDimension === cost.meteringDimension));
          expectClose(
            same.reduce((s, c) => s + c.cost.amount, 0),
            cost.cost.amount,
          );
          expectClose(
            same.reduce((s, c) => s + c.usage.amount, 0),
            cost.usage.amount,
          );
        }
      }
    }
  });

  test('every grouping covers the same cost, with the dimensions it names', async () => {
    const base = { timeFrame: TWO_DAYS, granularity: 'TOTAL' };
    const expected: Record<string, string[]> = {
      SOURCE_ACCOUNT: ['sourceAccountProviderId'],
      CLOUD_PROVIDER: ['cloudProvider'],
      RESOURCE_TYPE: ['resourceType'],
      RESOURCE: ['cloudProvider', 'resourceId', 'resourceType', 'sourceAccountProviderId'],
    };
    const totals: number[] = [];
    for (const [groupBy, keys] of Object.entries(expected)) {
      const records = await allRecords({ ...base, groupBy });
      for (const record of records) expect(Object.keys(record.dimensions ?? {}).sort()).toEqual(keys);
      expect(sumOf(records, (r) => r.resourceCount ?? 0)).toBe(costed().length);
      totals.push(sumOf(records, creditsOf));
    }
    for (const total of totals) expectClose(total, totals[0] ?? 0);
  });

  test('RESOURCE_AND_VAULT splits a resource across the vaults of its snapshots (dimensions.vaultId)', async () => {
    const base = { timeFrame: TWO_DAYS, granularity: 'TOTAL' };
    const state = sim.ctx.state;
    const vaultsOf = new Map<string, Set<string>>();
    const collect = () => {
      vaultsOf.clear();
      for (const s of Object.values(state.snapshots)) {
        if (s.vaultId) vaultsOf.set(s.resourceId, (vaultsOf.get(s.resourceId) ?? new Set()).add(s.vaultId));
      }
    };
    collect();
    if (!costed().some((r) => (vaultsOf.get(r.id)?.size ?? 0) >= 2)) {
      // Copy one resource's backups to a second vault, so that a split is there to see.
      const resource = costed().find((r) => vaultsOf.has(r.id)) as InventoryResource;
      const other = Object.keys(state.vaults).find((v) => !vaultsOf.get(resource.id)?.has(v)) ?? '';
      state.snapshots['snap-cost-copy'] = {
        id: 'snap-cost-copy',
        createdTime: '2024-04-01T00:00:00Z',
        resourceId: resource.id,
        vaultId: other,
      };
      collect();
    }
    expect(costed().filter((r) => (vaultsOf.get(r.id)?.size ?? 0) >= 2).length).toBeGreaterThan(0);
    const byResource = await allRecords({ ...base, groupBy: 'RESOURCE' });
    const byVault = await allRecords({ ...base, groupBy: 'RESOURCE_AND_VAULT' });
    for (const resource of costed()) {
      const records = byVault.filter((r) => r.dimensions?.resourceId === resource.id);
      const vaults = [...(vaultsOf.get(resource.id) ?? [])].sort();
      const dims = records.map((r) => (r.dimensions as { vaultId?: string }).vaultId);
      expect(dims).toEqual(vaults.length > 0 ? vaults : [undefined]);
      const whole = byResource.find((r) => r.dimensions?.resourceId === resource.id);
      expectClose(sumOf(records, creditsOf), whole ? creditsOf(whole) : NaN);
    }
  });

  test('topN keeps the n costliest resources and folds the rest into one record per period', async () => {
    const n = 3;
    const ranked = (await allRecords({ timeFrame: TWO_DAYS, granularity: 'TOTAL', groupBy: 'RESOURCE' }))
      .map((r) => ({ id: r.dimensions?.resourceId ?? '', credits: creditsOf(r) }))
      .sort((a, b) => b.credits - a.credits);
    const top = ranked.slice(0, n).map((r) => r.id);
    const records = await allRecords({ timeFrame: TWO_DAYS, granularity: 'DAILY', groupBy: 'RESOURCE', topN: n });
    expect(records).toHaveLength(2 * (n + 1));
    for (const day of ['2024-05-01T00:00:00.000Z', '2024-05-02T00:00:00.000Z']) {
      const period = records.filter((r) => r.recordTimeFrame.startTime === day);
      expect(period).toHaveLength(n + 1);
      expect(
        period
          .slice(0, n)
          .map((r) => r.dimensions?.resourceId)
          .sort(),
      ).toEqual([...top].sort());
      const folded = period[n];
      expect(folded?.dimensions).toBeUndefined();
      expect(folded?.resourceCount).toBe(costed().length - n);
      expect(folded?.resourceCount).toBeGreaterThan(1);
    }
    expectClose(
      sumOf(records, creditsOf),
      ranked.reduce((s, r) => s + r.credits, 0),
    );
  });

  test('topN with RESOURCE_AND_VAULT keeps all vault records of the top resources; others ignore topN', async () => {
    const base = { timeFrame: TWO_DAYS, granularity: 'TOTAL' };
    const records = await allRecords({ ...base, groupBy: 'RESOURCE_AND_VAULT', topN: 2 });
    const kept = new Set(records.filter((r) => r.dimensions).map((r) => r.dimensions?.resourceId));
    expect(kept.size).toBe(2);
    expect(records.at(-1)?.dimensions).toBeUndefined();
    expect(records.filter((r) => !r.dimensions)).toHaveLength(1);
    const plain = await allRecords({ ...base, groupBy: 'CLOUD_PROVIDER' });
    expect(await allRecords({ ...base, groupBy: 'CLOUD_PROVIDER', topN: 1 })).toEqual(plain);
  });

  test('USD is credits × 0.01; BYTES is mean bytes stored (byte-months × 730 / hours)', async () => {
    const base = { timeFrame: TWO_DAYS, granularity: 'DAILY', groupBy: 'RESOURCE_TYPE' };
    const credits = await allRecords(base);
    const usd = await allRecords({ ...base, costUnit: 'USD', usageUnit: 'BYTES' });
    expect(usd).toHaveLength(credits.length);
    credits.forEach((record, i) => {
      const other = usd[i];
      expect(other?.dimensions).toEqual(record.dimensions);
      record.costs.forEach((cost, k) => {
        const converted = other?.costs[k];
        expect(converted?.cost.unit).toBe('USD');
        expect(converted?.usage.unit).toBe('BYTES');
        expectClose(converted?.cost.amount ?? NaN, cost.cost.amount * 0.01);
        expectClose(converted?.usage.amount ?? NaN, (cost.usage.amount * 730) / 24);
      });
    });
  });

  test('filters select resources as their names say', async () => {
    const resources = costed();
    const sample = resources[0] as InventoryResource;
    const hasKey = (r: InventoryResource, k: string) => Object.hasOwn(r.tags, k);
    // Keys some resources have and others lack, so that every filter keeps some and drops some.
    const keys = [...new Set(resources.flatMap((r) => Object.keys(r.tags)))]
      .filter((k) => resources.some((r) => !hasKey(r, k)))
      .sort();
    const [k1 = 'env', k2 = 'team'] = keys;
    const pair = resources.flatMap((r) => Object.entries(r.tags)).find(([k]) => k === k1) ?? [k1, ''];
    const cases: [Record<string, unknown>, (r: InventoryResource) => boolean][] = [
      [{ resourceType: { in: [sample.resourceType] } }, (r) => r.resourceType === sample.resourceType],
      [{ cloudProvider: { notIn: [sample.cloudProvider] } }, (r) => r.cloudProvider !== sample.cloudProvider],
      [
        { sourceAccountProviderId: { in: [sample.providerAccountId] } },
        (r) => r.providerAccountId === sample.providerAccountId,
      ],
      [{ resourceId: { in: [sample.id, 'no-such-resource'] } }, (r) => r.id === sample.id],
      [{ tagKeys: { containsAllOf: [k1, k2] } }, (r) => hasKey(r, k1) && hasKey(r, k2)],
      [{ tagKeys: { containsAnyOf: [k1, k2] } }, (r) => hasKey(r, k1) || hasKey(r, k2)],
      [{ tagKeys: { containsNoneOf: [k1] } }, (r) => !hasKey(r, k1)],
      [{ tagKeyValues: { containsAllOf: [`${pair[0]}=${pair[1]}`] } }, (r) => r.tags[pair[0]] === pair[1]],
      [{ tagKeyValues: { containsNoneOf: [`${pair[0]}=${pair[1]}`] } }, (r) => r.tags[pair[0]] !== pair[1]],
    ];
    for (const [filters, predicate] of cases) {
      const expected = resources
        .filter(predicate)
        .map((r) => r.id)
        .sort();
      expect(expected.length).toBeGreaterThan(0);
      const body = { timeFrame: TWO_DAYS, granularity: 'TOTAL', groupBy: 'RESOURCE', filters };
      const page = await costPage(body, '?pageSize=1000');
      expect(page.resourceCount).toBe(expected.length);
      expect(page.records.map((r) => r.dimensions?.resourceId)).toEqual(expected);
    }
  });

  test('pages exactly: small pages concatenate to the whole, default page size is 100', async () => {
    const body = { timeFrame: TWO_DAYS, granularity: 'DAILY', groupBy: 'RESOURCE' };
    const whole = await costPage(body, '?pageSize=100000');
    expect(whole.records).toHaveLength(2 * costed().length);
    expect(whole.totalCount).toBe(whole.records.length);
    expect(await allRecords(body, 37)).toEqual(whole.records);
    const first = await costPage(body);
    expect(first.records).toHaveLength(100);
    expect(first.totalCount).toBe(whole.totalCount);
    expect(first.records).toEqual(whole.records.slice(0, 100));
    const second = await costPage(body, `?pageToken=${encodeURIComponent(first.nextToken ?? '')}`);
    expect(second.records).toEqual(whole.records.slice(100, 200));
    // A token belongs to its request: another grouping is refused.
    const foreign = await call('POST', `/v1/cost-data?pageToken=${encodeURIComponent(first.nextToken ?? '')}`, {
      body: { ...body, groupBy: 'RESOURCE_TYPE' },
    });
    expect(foreign.status).toBe(400);
    expect(errorOf(foreign)).toContain('pageToken');
  });

  test('a 30-day HOURLY request over every resource answers each page well under a second', async () => {
    expect(costed().length).toBeGreaterThanOrEqual(200);
    const body = { timeFrame: frame('2024-06-01T00:00:00Z', '2024-07-01T00:00:00Z'), granularity: 'HOURLY' };
    for (const groupBy of ['RESOURCE', 'SOURCE_ACCOUNT']) {
      let pageToken: string | null | undefined;
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const params = pageToken ? `?pageToken=${encodeURIComponent(pageToken)}` : '';
        const page = await costPage({ ...body, groupBy, topN: 10 }, params);
        expect(performance.now() - started).toBeLessThan(1000);
        expect(page.records.length).toBeGreaterThan(0);
        pageToken = page.nextToken;
      }
    }
  });
});

describe('POST /v1/cost-data errors', () => {
  test('400 naming timeFrame.endTime when the frame is shorter than 24 hours', async () => {
    const res = await call('POST', '/v1/cost-data', {
      body: { timeFrame: frame('2024-05-01T00:00:00Z', '2024-05-01T23:59:59Z') },
    });
    expectBadRequest(res, 'body.timeFrame.endTime');
  });

  test.each([
    [{}, 'body.timeFrame'],
    [{ timeFrame: TWO_DAYS, granularity: 'WEEKLY' }, 'body.granularity'],
    [{ timeFrame: TWO_DAYS, groupBy: 'VAULT' }, 'body.groupBy'],
    [{ timeFrame: TWO_DAYS, costUnit: 'UNSPECIFIED' }, 'body.costUnit'],
    [{ timeFrame: TWO_DAYS, topN: 0 }, 'body.topN'],
    [{ timeFrame: TWO_DAYS, filters: { tagKeyValues: { containsAnyOf: ['novalue'] } } }, 'body.filters.tagKeyValues'],
  ])('400 naming the field for %j', async (body, field) => {
    expectBadRequest(await call('POST', '/v1/cost-data', { body }), field);
  });

  test('400 naming query.pageSize for a page size below 1', async () => {
    const res = await call('POST', '/v1/cost-data?pageSize=0', { body: { timeFrame: TWO_DAYS } });
    expectBadRequest(res, 'query.pageSize');
  });

  test('401 without a token, 403 without cost_explorer.view', async () => {
    expect((await call('POST', '/v1/cost-data', { body: { timeFrame: TWO_DAYS }, auth: null })).status).toBe(401);
    const weak = await tokenFor(sim, ['inventory.view']);
    expect((await call('POST', '/v1/cost-data', { body: { timeFrame: TWO_DAYS }, auth: weak })).status).toBe(403);
  });
});
