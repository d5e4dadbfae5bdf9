import type { CostDataRecord } from '../../api';
import { csvRecord } from '../../runtime/csv';

/**
 * FinOps FOCUS 1.3 rows of the service's cost data. Every mapping choice is listed, with its reason, in the
 * "FOCUS cost export" table of docs/runbooks/cost-export.md; keep the two in step.
 */

export const FOCUS_VERSION = '1.3';

/** Mandatory columns first, then the conditional and recommended ones the data supports, then custom `x_` columns. */
export const FOCUS_COLUMNS = [
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
  // Deprecated in 1.3 but still mandatory there, and the names every earlier version (and its tools) reads.
  'ProviderName',
  'PublisherName',
  'ServiceCategory',
  'ServiceName',
  'ServiceProviderName',
  'ChargeFrequency',
  'ConsumedQuantity',
  'ConsumedUnit',
  'ResourceId',
  'ResourceName',
  'ResourceType',
  'ServiceSubcategory',
  'SkuId',
  'SkuMeter',
  'SkuPriceId',
  'SubAccountId',
  'SubAccountName',
  'x_CostCredits',
  'x_CloudProvider',
  'x_ResourceCount',
] as const;
export type FocusColumn = (typeof FOCUS_COLUMNS)[number];

/** The service's own rate (docs/service-interface.md §8): a credit is a hundredth of a US dollar. */
export const USD_PER_CREDIT = 0.01;
const CREDITS_PER_USD = 100;
const BYTES_PER_GIB = 1024 ** 3;
/** The service and its invoices are one party: it meters, prices and bills its own storage. */
export const SERVICE_NAME = 'Backup Management Service';
/** Byte-months in GiB, the binary data-size unit FOCUS's unit format lists. */
export const PRICING_UNIT = 'GiB-Months';

export interface FocusContext {
  /** The service project the cost data belongs to: the account the service bills. */
  billingAccountId: string;
  /** The requested time frame: a record's period is clipped to it, so no charge claims time outside the window. */
  timeFrame: { startTime: string; endTime: string };
  /** Display names the service gives resources and source accounts; undefined when it has none (or no longer). */
  resourceName(id: string): string | undefined;
  subAccountName(providerAccountId: string): string | undefined;
}

/** What a metering dimension meters: storage, except for the few dimensions that name another function. */
const SKU_METERS: Record<string, string> = {
  DATA_TRANSFER_METERING_DIMENSION: 'Data Transfer',
  CLASSIFICATION_METERING_DIMENSION: 'Classification',
  STORAGE_GATEWAY_METERING_DIMENSION: 'Storage Gateway',
  RANSOMWARE_PROTECTED_STORAGE_METERING_DIMENSION: 'Ransomware Protected Storage',
};

/** One FOCUS row per metering dimension of a record, in FOCUS_COLUMNS. */
export function focusRows(record: CostDataRecord, context: FocusContext): string[] {
  const d = record.dimensions ?? {};
  const start = Math.max(Date.parse(record.recordTimeFrame.startTime), Date.parse(context.timeFrame.startTime));
  const end = Math.min(Date.parse(record.recordTimeFrame.endTime), Date.parse(context.timeFrame.endTime));
  const billingStart = new Date(start);
  const billingPeriodStart = Date.UTC(billingStart.getUTCFullYear(), billingStart.getUTCMonth(), 1);
  const billingPeriodEnd = Date.UTC(billingStart.getUTCFullYear(), billingStart.getUTCMonth() + 1, 1);
  return record.costs.map((c) => {
    const credits = creditsOf(c.cost);
    const usd = decimal(credits / CREDITS_PER_USD);
    const quantity = decimal(c.usage.amount / BYTES_PER_GIB);
    const row: Record<FocusColumn, string | number | undefined> = {
      BilledCost: usd,
      BillingAccountId: context.billingAccountId,
      BillingAccountName: undefined,
      BillingCurrency: 'USD',
      BillingPeriodEnd: focusTime(billingPeriodEnd),
      BillingPeriodStart: focusTime(billingPeriodStart),
      ChargeCategory: 'Usage',
      ChargeClass: undefined,
      ChargeDescription: `Backup storage metered as ${c.meteringDimension}`,
      ChargePeriodEnd: focusTime(end),
      ChargePeriodStart: focusTime(start),
      ContractedCost: usd,
      EffectiveCost: usd,
      HostProviderName: SERVICE_NAME,
      InvoiceIssuerName: SERVICE_NAME,
      ListCost: usd,
      PricingQuantity: quantity,
      PricingUnit: PRICING_UNIT,
      ProviderName: SERVICE_NAME,
      PublisherName: SERVICE_NAME,
      ServiceCategory: 'Storage',
      ServiceName: SERVICE_NAME,
      ServiceProviderName: SERVICE_NAME,
      ChargeFrequency: 'Usage-Based',
      ConsumedQuantity: quantity,
      ConsumedUnit: PRICING_UNIT,
      ResourceId: d.resourceId,
      ResourceName: d.resourceId === undefined ? undefined : context.resourceName(d.resourceId),
      ResourceType: d.resourceType,
      ServiceSubcategory: 'Backup Storage',
      // The service prices each metering dimension at one rate: the dimension is the SKU and its price.
      SkuId: c.meteringDimension,
      SkuMeter: SKU_METERS[c.meteringDimension] ?? 'Backup Storage',
      SkuPriceId: c.meteringDimension,
      SubAccountId: d.sourceAccountProviderId,
      SubAccountName:
        d.sourceAccountProviderId === undefined ? undefined : context.subAccountName(d.sourceAccountProviderId),
      x_CostCredits: decimal(credits),
      x_CloudProvider: d.cloudProvider,
      x_ResourceCount: record.resourceCount,
    };
    return csvRecord(FOCUS_COLUMNS.map((column) => row[column]));
  });
}

/**
 * A cost in credits, whatever unit the service answered in; a missing or UNSPECIFIED unit means credits
 * (docs/service-interface.md §8).
 */
export function creditsOf(cost: { amount: number; unit?: string }): number {
  return cost.unit === 'USD' ? cost.amount * CREDITS_PER_USD : cost.amount;
}

/** FOCUS date/time format: ISO 8601 in UTC to the second, `YYYY-MM-DDTHH:mm:ssZ`. */
export function focusTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A plain decimal: 15 significant digits (no binary noise such as 0.07000000000000001) and never an exponent. */
export function decimal(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite amount: ${value}`);
  const rounded = Number(value.toPrecision(15));
  const text = String(rounded);
  if (!/e/i.test(text)) return text;
  return rounded.toFixed(20).replace(/\.?0+$/, '');
}
