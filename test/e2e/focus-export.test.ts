// costExport with format 'focus' end to end: a real export, checked column by column against FOCUS 1.3, summed against
// the service's own totals, and passed through the FinOps Foundation's validator.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { FOCUS_COLUMNS } from '../../runbooks/cost-export/focus';
import { costExport } from '../../runbooks/workflows';
import type { CostExportInput } from '../../runbooks/cost-export/contract';
import { expectRefusedInput, setupE2E, teardownE2E, wireResourceType, type E2E } from './helpers';

let fx: E2E;
let validator: string;

beforeAll(async () => {
  // Installs the validator into .tools/ on a first run (pip), which takes about a minute.
  const ensure = spawnSync('node', [resolve(__dirname, '../../scripts/ensure-focus-validator.js')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (ensure.status !== 0) throw new Error('scripts/ensure-focus-validator.js found no focus-validator');
  validator = ensure.stdout.trim();
  fx = await setupE2E();
}, 600_000);

afterAll(() => teardownE2E(fx), 60_000);

const DAY = 24 * 3600 * 1000;
const today = Math.floor(Date.now() / DAY) * DAY;
/** Three whole days ending yesterday: daily records, all inside one or two billing months. */
const WINDOW = { startTime: new Date(today - 4 * DAY).toISOString(), endTime: new Date(today - DAY).toISOString() };
const OPTIONS = { granularity: 'DAILY', groupBy: 'RESOURCE' } as const;

// Read from the FOCUS 1.3 column definitions, independently of the code under test.
const MANDATORY = [
  'BilledCost',
  'BillingAccountId',
  'BillingAccountName',
  'BillingCurrency',
  'BillingPeriodEnd',
  'BillingPeriodStart',
  'ChargeCategory',
  'ChargeClass',
  'ChargeDescription',
  'ChargePeriodEnd',
  'ChargePeriodStart',
  'ContractedCost',
  'EffectiveCost',
  'HostProviderName',
  'InvoiceIssuerName',
  'ListCost',
  'PricingQuantity',
  'PricingUnit',
  'ServiceCategory',
  'ServiceName',
  'ServiceProviderName',
];
const DECIMALS = ['BilledCost', 'ContractedCost', 'EffectiveCost', 'ListCost', 'PricingQuantity', 'ConsumedQuantity'];
const DATETIMES = ['BillingPeriodStart', 'BillingPeriodEnd', 'ChargePeriodStart', 'ChargePeriodEnd'];
const NOT_NULL = [
  ...DECIMALS,
  ...DATETIMES,
  'BillingAccountId',
  'BillingCurrency',
  'ChargeCategory',
  'HostProviderName',
  'InvoiceIssuerName',
  'ServiceCategory',
  'ServiceName',
  'ServiceProviderName',
  'ChargeFrequency',
  'ResourceId',
  'ResourceName',
  'ResourceType',
  'SkuId',
  'SkuPriceId',
  'SkuMeter',
  'SubAccountId',
  'SubAccountName',
];
const CHARGE_CATEGORIES = ['Usage', 'Purchase', 'Tax', 'Credit', 'Adjustment'];
const SERVICE_CATEGORIES = [
  'AI and Machine Learning',
  'Analytics',
  'Business Applications',
  'Compute',
  'Databases',
  'Developer Tools',
  'Multicloud',
  'Identity',
  'Integration',
  'Internet of Things',
  'Management and Governance',
  'Media',
  'Migration',
  'Mobile',
  'Networking',
  'Security',
  'Storage',
  'Web',
  'Other',
];
const CHARGE_FREQUENCIES = ['One-Time', 'Recurring', 'Usage-Based'];

/** focus-validator's 1.0 checks that cannot apply to this file, each with its reason (docs/runbooks/cost-export.md). */
const VALIDATOR_OVERRIDES = [
  // Conditional columns whose feature the service's cost data lacks: commitment discounts, regions, published unit
  // prices, pricing categories and tags.
  ...[
    'CommitmentDiscountCategory',
    'CommitmentDiscountId',
    'CommitmentDiscountName',
    'CommitmentDiscountStatus',
    'CommitmentDiscountType',
    'ContractedUnitPrice',
    'ListUnitPrice',
    'PricingCategory',
    'RegionId',
    'RegionName',
    'Tags',
  ].map((c) => `${c}_Required`),
  // The validator's 1.0 rules look for `InvoiceIssuer`, `Provider`, `Publisher` and `ResourceID`; FOCUS 1.0 and later
  // name them InvoiceIssuerName, ProviderName, PublisherName and ResourceId, which the file has (checked above).
  'InvoiceIssuer_Required',
  'Provider_Required',
  'Publisher_Required',
  'ResourceID_Required',
  // Its SQL reads `ChargeType`, the 0.5 name of ChargeCategory, so it cannot run on a 1.0 file; what it means
  // (SkuPriceId is set on Usage rows) is checked above.
  'SkuPriceId_Nullable',
];

interface Focus {
  header: string[];
  rows: Record<string, string>[];
}

function parseFocus(text: string): Focus {
  // Nothing in this export needs quoting: a quote would mean a field this parser would split wrongly.
  expect(text).not.toContain('"');
  const [head = '', ...lines] = text.trimEnd().split('\r\n');
  const header = head.split(',');
  const rows = lines.map((line) => {
    const fields = line.split(',');
    expect(fields).toHaveLength(header.length);
    return Object.fromEntries(header.map((column, i) => [column, fields[i] ?? '']));
  });
  return { header, rows };
}

const sum = (rows: Record<string, string>[], column: string) => rows.reduce((t, r) => t + Number(r[column]), 0);
const closeTo = (actual: number, expected: number) =>
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(Math.abs(expected) * 1e-9);

function runValidator(file: string, overrides: string): { output: string; status: number | null } {
  const result = spawnSync(
    validator,
    ['--data-file', resolve(file), '--validate-version', '1.0', '--override-file', resolve(overrides)],
    { encoding: 'utf8', timeout: 300_000 },
  );
  return { output: `${result.stdout}${result.stderr}`, status: result.status };
}

test('a FOCUS export of a real cost window has every mandatory column, typed, sums to the service totals and passes focus-validator', async () => {
  const result = await fx.env.client.workflow.execute(costExport, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `cost-export-${randomUUID()}`,
    args: [{ window: WINDOW, options: OPTIONS, pageSize: 40, format: 'focus' } satisfies CostExportInput],
  });
  expect(basename(result.export.path)).toBe(`cost-export-${result.window.label}.focus.csv`);
  const text = await readFile(result.export.path, 'utf8');
  const { header, rows } = parseFocus(text);

  expect(header).toEqual([...FOCUS_COLUMNS]);
  for (const column of MANDATORY) expect(header).toContain(column);
  // FOCUS columns come before custom ones, and custom ones start with x_.
  const firstCustom = header.findIndex((c) => c.startsWith('x_'));
  expect(header.slice(firstCustom).every((c) => c.startsWith('x_'))).toBe(true);
  expect(rows.length).toBe(result.export.rows);
  expect(result.export.pages).toBeGreaterThan(1);

  const state = fx.sim.ctx.state;
  const accountNames = new Map(Object.values(state.sourceAccounts).map((a) => [a.providerAccountId, a.name]));
  const windowStart = Date.parse(WINDOW.startTime);
  const windowEnd = Date.parse(WINDOW.endTime);
  for (const row of rows) {
    for (const column of NOT_NULL) expect([column, row[column]]).not.toEqual([column, '']);
    for (const column of DECIMALS)
      expect([column, row[column]]).toEqual([column, expect.stringMatching(/^\d+(\.\d+)?$/)]);
    for (const column of DATETIMES) {
      expect([column, row[column]]).toEqual([column, expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)]);
    }
    expect(CHARGE_CATEGORIES).toContain(row.ChargeCategory);
    expect(SERVICE_CATEGORIES).toContain(row.ServiceCategory);
    expect(CHARGE_FREQUENCIES).toContain(row.ChargeFrequency);
    expect(row.ChargeClass).toBe('');
    expect(row.BillingCurrency).toBe('USD');
    expect(row.BillingAccountId).toBe(fx.sim.projectId);
    expect(row.PricingUnit).toBe('GiB-Months');
    expect(row.ConsumedUnit).toBe('GiB-Months');
    expect(row.SkuPriceId).toBe(row.SkuId);
    expect(row.SkuId).toMatch(/_METERING_DIMENSION$/);
    // Names as the service holds them, read from its state rather than through the API the export used.
    const resource = state.resources[row.ResourceId ?? '']?.resource;
    expect(row.ResourceName).toBe(resource?.resourceName);
    expect(row.ResourceType).toBe(wireResourceType(resource?.resourceType ?? '?'));
    expect(row.SubAccountId).toBe(resource?.providerAccountId);
    expect(row.SubAccountName).toBe(accountNames.get(row.SubAccountId ?? ''));
    // Costs agree with each other and with the credits they came from.
    expect(row.EffectiveCost).toBe(row.BilledCost);
    closeTo(Number(row.BilledCost), Number(row.x_CostCredits) / 100);
    // A charge period lies inside the window and inside its billing period, which is a whole UTC month.
    const chargeStart = Date.parse(row.ChargePeriodStart ?? '');
    const chargeEnd = Date.parse(row.ChargePeriodEnd ?? '');
    const billingStart = new Date(row.BillingPeriodStart ?? '');
    expect(chargeEnd - chargeStart).toBe(DAY);
    expect(chargeStart).toBeGreaterThanOrEqual(windowStart);
    expect(chargeEnd).toBeLessThanOrEqual(windowEnd);
    expect(billingStart.getTime()).toBeLessThanOrEqual(chargeStart);
    expect(Date.parse(row.BillingPeriodEnd ?? '')).toBeGreaterThanOrEqual(chargeEnd);
    expect(billingStart.getUTCDate()).toBe(1);
    expect(billingStart.getUTCHours()).toBe(0);
  }

  // The service's own totals for the window, read with the test's own client in credits and in USD.
  let credits = 0;
  let byteMonths = 0;
  let entries = 0;
  for await (const page of fx.service.costDataPages({ ...OPTIONS, timeFrame: WINDOW }, { pageSize: 500 })) {
    for (const record of page.records) {
      for (const cost of record.costs) {
        expect(cost.cost.unit).toBe('CREDITS');
        credits += cost.cost.amount;
        byteMonths += cost.usage.amount;
        entries += 1;
      }
    }
  }
  let usd = 0;
  for await (const page of fx.service.costDataPages({ ...OPTIONS, timeFrame: WINDOW, costUnit: 'USD' })) {
    for (const record of page.records) for (const cost of record.costs) usd += cost.cost.amount;
  }
  console.log(`FOCUS export: ${rows.length} rows, ${credits.toFixed(2)} credits = ${usd.toFixed(4)} USD`);
  expect(rows.length).toBe(entries);
  expect(credits).toBeGreaterThan(0);
  closeTo(usd, credits / 100);
  for (const column of ['BilledCost', 'EffectiveCost', 'ListCost', 'ContractedCost']) closeTo(sum(rows, column), usd);
  closeTo(sum(rows, 'x_CostCredits'), credits);
  for (const column of ['PricingQuantity', 'ConsumedQuantity']) closeTo(sum(rows, column), byteMonths / 1024 ** 3);

  // The FinOps Foundation's validator: FOCUS 1.0 is the newest version its 1.0.0 release has rules for.
  const overrides = join(fx.outputDir, 'focus-validator-overrides.yaml');
  await writeFile(overrides, `overrides:\n${VALIDATOR_OVERRIDES.map((o) => `  - ${o}\n`).join('')}`);
  const run = runValidator(result.export.path, overrides);
  console.log(`focus-validator --validate-version 1.0 on ${basename(result.export.path)}:\n${run.output}`);
  expect(run.status).toBe(0);
  expect(run.output.trim().split('\n').at(-1)).toBe('Validation succeeded.');

  // The same validator does fail a file with a wrong value: the check above is not one that passes anything.
  const broken = join(fx.outputDir, 'broken.focus.csv');
  await writeFile(broken, text.replace(/,USD,/, ',XUS,'));
  const failed = runValidator(broken, overrides);
  expect(failed.output).toContain('BillingCurrency_IsCurrencyCode failed');
  expect(failed.output.trim().split('\n').at(-1)).toBe('Validation failed!');
}, 300_000);

test.each([
  [{ window: WINDOW, format: 'csv' }, 'format'],
  [{ window: WINDOW, format: 'focus', options: { granularity: 'TOTAL' } }, 'options.granularity'],
  [{ window: WINDOW, format: 'focus', options: { usageUnit: 'BYTES' } }, 'options.usageUnit'],
])('costExport with %j fails at once with InvalidInput naming %s', async (input, field) => {
  const handle = await fx.env.client.workflow.start('costExport', {
    taskQueue: fx.worker.taskQueue,
    workflowId: `invalid-${randomUUID()}`,
    args: [input],
  });
  await expectRefusedInput(handle, `invalid input ${field}`);
});
