import { z } from 'zod';
import {
  CLOUD_PROVIDERS,
  COST_GROUP_BYS,
  COST_UNITS,
  GRANULARITIES,
  METERING_DIMENSIONS,
  RESOURCE_TYPES,
  USAGE_UNITS,
  openEnum,
  requestEnum,
} from '../enums';
import { Timestamp, TimestampInput, record, tolerant } from './common';
import { CostFilters } from './filters';

const DAY_MS = 24 * 60 * 60 * 1000;

export const TimeFrame = record({ startTime: Timestamp, endTime: Timestamp });
export type TimeFrame = z.infer<typeof TimeFrame>;

/** A request's time frame: at least 24 hours long. */
export const TimeFrameInput = z
  .strictObject({ startTime: TimestampInput, endTime: TimestampInput })
  .refine((tf) => Date.parse(tf.endTime) - Date.parse(tf.startTime) >= DAY_MS, {
    message: 'must span at least 24 hours (startTime at least 24 h before endTime)',
    path: ['endTime'],
  });

export const CostDataInput = z.strictObject({
  timeFrame: TimeFrameInput,
  costUnit: requestEnum(COST_UNITS, ['UNSPECIFIED']).optional(),
  usageUnit: requestEnum(USAGE_UNITS, ['UNSPECIFIED']).optional(),
  granularity: requestEnum(GRANULARITIES, []).optional(),
  filters: CostFilters.optional(),
  groupBy: requestEnum(COST_GROUP_BYS, []).optional(),
  topN: z.number().int().min(1).optional(),
});
export type CostDataInput = z.infer<typeof CostDataInput>;

export const CostDataRecordCost = record({
  meteringDimension: openEnum(METERING_DIMENSIONS as unknown as readonly [string, ...string[]]),
  cost: record({ amount: z.number(), unit: openEnum(COST_UNITS).optional() }),
  usage: record({ amount: z.number(), unit: openEnum(USAGE_UNITS).optional() }),
});

export const CostDataRecord = record({
  recordTimeFrame: TimeFrame,
  costs: z.array(CostDataRecordCost),
  resourceCount: z.number().int().optional(),
  dimensions: record({
    cloudProvider: openEnum(CLOUD_PROVIDERS).optional(),
    resourceType: openEnum(RESOURCE_TYPES).optional(),
    resourceId: z.string().optional(),
    sourceAccountProviderId: z.string().optional(),
  }).optional(),
});
export type CostDataRecord = z.infer<typeof CostDataRecord>;

/** The cost export reads the records and pages on; the page's counts no runbook reads, so they are tolerant. */
export const CostDataPage = record({
  records: z.array(CostDataRecord),
  totalCount: tolerant(z.number().int()),
  resourceCount: tolerant(z.number().int()),
  nextToken: z.string().nullish(),
});
export type CostDataPage = z.infer<typeof CostDataPage>;
