import { z } from 'zod';
import { BackupStatusInput, CloudProviderInput, EnvironmentInput, ResourceTypeInput } from '../enums';
import { inNotIn } from './common';

export const IdFilters = inNotIn(z.string());
export const ResourceNameFilters = IdFilters.extend({
  contains: z.array(z.string()).optional(),
  notContains: z.array(z.string()).optional(),
});
export const CloudProviderFilters = inNotIn(CloudProviderInput);
export const ResourceTypeFilters = inNotIn(ResourceTypeInput);
export const EnvironmentFilters = inNotIn(EnvironmentInput);
export const BackupStatusFilters = inNotIn(BackupStatusInput);

/** Filters over a list field (apps, subnets, data classes, tag keys). */
export const ListFilters = z.strictObject({
  containsAnyOf: z.array(z.string()).optional(),
  containsNoneOf: z.array(z.string()).optional(),
  containsAllOf: z.array(z.string()).optional(),
});
const KeyValue = z.string().regex(/^[^=]+=.*$/, "must be 'key=value'");
export const TagKeyValuesFilters = z.strictObject({
  containsAnyOf: z.array(KeyValue).optional(),
  containsNoneOf: z.array(KeyValue).optional(),
  containsAllOf: z.array(KeyValue).optional(),
});

export const ResourceFilters = z.strictObject({
  id: IdFilters.optional(),
  cloudProvider: CloudProviderFilters.optional(),
  providerResourceId: IdFilters.optional(),
  resourceName: ResourceNameFilters.optional(),
  resourceType: ResourceTypeFilters.optional(),
  environment: EnvironmentFilters.optional(),
  accountId: IdFilters.optional(),
  apps: ListFilters.optional(),
  subnets: ListFilters.optional(),
  dataClasses: ListFilters.optional(),
  backupStatus: BackupStatusFilters.optional(),
  tagKeys: ListFilters.optional(),
  tagKeyValues: TagKeyValuesFilters.optional(),
});
export type ResourceFilters = z.infer<typeof ResourceFilters>;

export const CostFilters = z.strictObject({
  sourceAccountProviderId: IdFilters.optional(),
  cloudProvider: CloudProviderFilters.optional(),
  resourceType: ResourceTypeFilters.optional(),
  resourceId: IdFilters.optional(),
  tagKeys: ListFilters.optional(),
  tagKeyValues: TagKeyValuesFilters.optional(),
});
export type CostFilters = z.infer<typeof CostFilters>;
