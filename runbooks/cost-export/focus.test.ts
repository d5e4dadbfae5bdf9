import type { CostDataRecord } from '../../api';
import { FOCUS_COLUMNS, decimal, focusRows, type FocusContext } from './focus';

const GIB = 1024 ** 3;

const context: FocusContext = {
  billingAccountId: 'project-1',
  timeFrame: { startTime: '2026-10-20T00:00:00.000Z', endTime: '2026-10-21T00:00:00.000Z' },
  resourceName: (id) => (id === 'r-1' ? 'orders-db' : undefined),
  subAccountName: (id) => (id === '111122223333' ? 'production' : undefined),
};

/** A record's rows as column → value (no field here needs CSV quoting). */
function rowsOf(record: CostDataRecord, ctx = context): Record<string, string>[] {
  return focusRows(record, ctx).map((line) => {
    const fields = line.replace(/\r\n$/, '').split(',');
    return Object.fromEntries(FOCUS_COLUMNS.map((c, i) => [c, fields[i] ?? '']));
  });
}

const monthly: CostDataRecord = {
  // A MONTHLY record is aligned to the month, though the request asked for one day of it.
  recordTimeFrame: { startTime: '2026-10-01T00:00:00Z', endTime: '2026-11-01T00:00:00Z' },
  costs: [
    {
      meteringDimension: 'PA_RELATIONAL_DB_METERING_DIMENSION',
      cost: { amount: 7, unit: 'CREDITS' },
      usage: { amount: 3 * GIB, unit: 'BYTE_MONTHS' },
    },
    {
      meteringDimension: 'CLASSIFICATION_METERING_DIMENSION',
      cost: { amount: 0.07, unit: 'USD' },
      usage: { amount: GIB / 2, unit: 'BYTE_MONTHS' },
    },
  ],
  resourceCount: 1,
  dimensions: { resourceId: 'r-1', resourceType: 'PA_RELATIONAL_DB', sourceAccountProviderId: '111122223333' },
};

test('credits become USD at a hundredth each, and a USD amount stays as it is, without binary noise', () => {
  const [credits, usd] = rowsOf(monthly);
  expect(credits?.BilledCost).toBe('0.07');
  expect(credits?.x_CostCredits).toBe('7');
  expect(usd?.BilledCost).toBe('0.07');
  expect(usd?.x_CostCredits).toBe('7');
  for (const row of [credits, usd]) {
    expect(row?.BillingCurrency).toBe('USD');
    expect([row?.EffectiveCost, row?.ListCost, row?.ContractedCost]).toEqual([
      row?.BilledCost,
      row?.BilledCost,
      row?.BilledCost,
    ]);
  }
});

test('a cost without a unit is in credits, the service default', () => {
  const [row] = rowsOf({ ...monthly, costs: [{ ...monthly.costs[0]!, cost: { amount: 250 } }] });
  expect(row?.BilledCost).toBe('2.5');
});

test('byte-months become GiB-Months, for pricing and consumption alike', () => {
  const [db, classification] = rowsOf(monthly);
  expect([db?.PricingQuantity, db?.PricingUnit, db?.ConsumedQuantity, db?.ConsumedUnit]).toEqual([
    '3',
    'GiB-Months',
    '3',
    'GiB-Months',
  ]);
  expect(classification?.PricingQuantity).toBe('0.5');
});

test('a record period wider than the window is clipped to it; the billing period is its UTC month', () => {
  const [row] = rowsOf(monthly);
  expect(row?.ChargePeriodStart).toBe('2026-10-20T00:00:00Z');
  expect(row?.ChargePeriodEnd).toBe('2026-10-21T00:00:00Z');
  expect(row?.BillingPeriodStart).toBe('2026-10-01T00:00:00Z');
  expect(row?.BillingPeriodEnd).toBe('2026-11-01T00:00:00Z');
});

test('names come from the lookups; a record without dimensions leaves resource and account columns empty', () => {
  const [named] = rowsOf(monthly);
  expect([named?.ResourceId, named?.ResourceName, named?.SubAccountId, named?.SubAccountName]).toEqual([
    'r-1',
    'orders-db',
    '111122223333',
    'production',
  ]);
  const { dimensions: _dropped, ...folded } = monthly;
  const [row] = rowsOf({ ...folded, resourceCount: 12 });
  expect([row?.ResourceId, row?.ResourceName, row?.ResourceType, row?.SubAccountId, row?.SubAccountName]).toEqual([
    '',
    '',
    '',
    '',
    '',
  ]);
  expect(row?.x_ResourceCount).toBe('12');
});

test('the metering dimension is the SKU, its price and (for non-storage dimensions) its meter', () => {
  const [db, classification] = rowsOf(monthly);
  expect([db?.SkuId, db?.SkuPriceId, db?.SkuMeter]).toEqual([
    'PA_RELATIONAL_DB_METERING_DIMENSION',
    'PA_RELATIONAL_DB_METERING_DIMENSION',
    'Backup Storage',
  ]);
  expect(classification?.SkuMeter).toBe('Classification');
});

test.each([
  [0.1 + 0.2, '0.3'],
  [1.5e-7, '0.00000015'],
  [123456.789, '123456.789'],
  [0, '0'],
])('decimal(%p) is %p', (value, text) => {
  expect(decimal(value)).toBe(text);
});

test('decimal refuses what is not a finite amount', () => {
  expect(() => decimal(Number.NaN)).toThrow(RangeError);
});
