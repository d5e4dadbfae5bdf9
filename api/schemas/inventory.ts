import { z } from 'zod';
import {
  BACKUP_STATUSES,
  BILLING_MODES,
  CLOUD_PROVIDERS,
  ENVIRONMENTS,
  KEY_TYPES,
  PROJECTION_TYPES,
  RESOURCE_INCLUDES,
  RESOURCE_SORT_FIELDS,
  RESOURCE_TYPES,
  openEnum,
} from '../enums';
import { Timestamp, nullAsAbsent, pageOf, readerOf, record, sortsOf, tolerant } from './common';
import { ResourceFilters } from './filters';

const Overridable = { isOverridden: tolerant(z.boolean()) };
/**
 * Each detail may be null in the public dialect (docs/service-interface.md §11). The posture report reads the
 * environment; the data classes and apps no runbook reads, so they are tolerant.
 */
export const Classifications = record({
  dataClassesDetails: tolerant(record({ dataClasses: z.array(z.string()).optional(), ...Overridable })),
  environmentDetails: record({ environment: openEnum(ENVIRONMENTS).optional(), ...Overridable }).nullish(),
  appsDetails: tolerant(
    record({
      apps: z.array(record({ name: z.string(), paths: z.array(z.string()).optional() })).optional(),
      ...Overridable,
    }),
  ),
});

export const InventoryVolume = record({
  providerVolumeId: z.string(),
  path: z.string(),
  region: z.string(),
  tags: z.record(z.string(), z.string()),
  availabilityZone: z.string(),
  volumeSettings: record({
    type: z.string(),
    sizeBytes: z.number(),
    iops: z.number().int().optional(),
    throughput: z.number().int().optional(),
  }),
  encryptionKeyId: z.string().optional(),
  isProviderAManagedKey: z.boolean().optional(),
});

const Capacity = record({ readCapacityUnits: z.number().nullish(), writeCapacityUnits: z.number().nullish() });
const KeySchema = z.array(record({ name: z.string(), type: openEnum(KEY_TYPES) }));
const Projection = record({
  projectionType: openEnum(PROJECTION_TYPES),
  nonKeyAttributes: z.array(z.string()),
}).partial();
export const LocalSecondaryIndex = record({
  indexName: z.string(),
  keySchema: KeySchema,
  projection: Projection,
  indexSizeBytes: z.number().nullable(),
}).partial();
export const GlobalSecondaryIndex = LocalSecondaryIndex.extend({
  onDemandThroughput: Capacity.optional(),
  provisionedThroughput: Capacity.optional(),
  warmThroughput: Capacity.optional(),
});

export const KeyValueDbProperties = record({
  billingMode: openEnum(BILLING_MODES),
  readCapacityUnits: z.number(),
  writeCapacityUnits: z.number(),
  globalSecondaryIndexes: z.array(GlobalSecondaryIndex).optional(),
  localSecondaryIndexes: z.array(LocalSecondaryIndex).optional(),
});

/** A resource as the service sends it (the simulator's model); details no runbook reads are tolerant already. */
export const InventoryResourceDocument = record({
  id: z.string(),
  backupStatus: openEnum(BACKUP_STATUSES),
  providerResourceId: z.string(),
  resourceName: z.string(),
  providerAccountId: z.string(),
  snapshotStorage: record({
    sizeBytes: tolerant(z.number()),
    eonSnapshotCount: z.number().int().optional(),
    nonEonSnapshotCount: tolerant(z.number().int()),
  }),
  sourceStorage: record({ sizeBytes: tolerant(z.number()) }),
  tags: z.record(z.string(), z.string()),
  cloudProvider: openEnum(CLOUD_PROVIDERS),
  resourceType: openEnum(RESOURCE_TYPES),
  region: z.string(),
  createdTime: Timestamp.optional(),
  discoveredTime: tolerant(Timestamp),
  latestSnapshotTime: Timestamp.optional(),
  oldestSnapshotTime: tolerant(Timestamp),
  classifications: Classifications.optional(),
  controlViolationCounts: tolerant(
    record({ high: z.number().int(), medium: z.number().int(), low: z.number().int(), muted: z.number().int() }),
  ),
  vpc: tolerant(z.string()),
  subnets: tolerant(z.array(z.string())),
  resourceProperties: tolerant(
    record({ vmA: record({ volumes: z.array(InventoryVolume).optional() }).optional(), kvDbA: KeyValueDbProperties.optional() }),
  ),
});
export type InventoryResourceDocument = z.infer<typeof InventoryResourceDocument>;

/**
 * The runbooks read a resource's identity, type, place, account, status, environment, Eon snapshot count and newest
 * snapshot time (posture report, DR drill discovery, offboarding, input discovery): those stay checked. What no runbook
 * reads is tolerant, whether the document requires it or not (its tags, times, storage sizes, network, properties):
 * one resource with a null or new-shaped detail must not stop a whole inventory page.
 */
export const InventoryResource = readerOf(InventoryResourceDocument, ['sourceStorage', 'tags', 'createdTime']);
export type InventoryResource = z.infer<typeof InventoryResource>;

export const ResourceListInput = z.strictObject({
  sorts: sortsOf(z.enum(RESOURCE_SORT_FIELDS)).optional(),
  filters: ResourceFilters.optional(),
});
export type ResourceListInput = z.infer<typeof ResourceListInput>;
export const ResourceIncludes = z.array(z.enum(RESOURCE_INCLUDES));

/** The posture report shows the count as its progress: it stays checked here. */
export const ResourcePage = pageOf('resources', InventoryResource).extend({ totalCount: nullAsAbsent(z.number().int()) });
export const ResourceBody = record({ resource: InventoryResource });
