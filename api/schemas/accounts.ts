import { z } from 'zod';
import { ACCOUNT_STATUSES, AccountStatusInput, CLOUD_PROVIDERS, CloudProviderInput, openEnum } from '../enums';
import { Timestamp, inNotIn, pageOf, readerOf, record, sortsOf } from './common';
import { ResourceNameFilters } from './filters';

const ProviderAAttributes = z.strictObject({ roleArn: z.string().min(1) });
const ProviderBAttributes = z.strictObject({ tenantId: z.string().min(1), subscriptionId: z.string().min(1) });
const ProviderCAttributes = z.strictObject({ serviceAccount: z.string().min(1) });

export const SourceAccountAttributes = record({
  cloudProvider: openEnum(CLOUD_PROVIDERS),
  providerA: record({ roleArn: z.string() }).optional(),
  providerB: record({ tenantId: z.string(), subscriptionId: z.string() }).optional(),
  providerC: record({ serviceAccount: z.string() }).optional(),
});

const PROVIDER_MEMBER = { PROVIDER_A: 'providerA', PROVIDER_B: 'providerB', PROVIDER_C: 'providerC' } as const;

/** The provider member must match `cloudProvider`. */
export const SourceAccountAttributesInput = z
  .strictObject({
    cloudProvider: CloudProviderInput,
    providerA: ProviderAAttributes.optional(),
    providerB: ProviderBAttributes.optional(),
    providerC: ProviderCAttributes.optional(),
  })
  .superRefine((attrs, ctx) => {
    const expected =
      attrs.cloudProvider in PROVIDER_MEMBER
        ? PROVIDER_MEMBER[attrs.cloudProvider as keyof typeof PROVIDER_MEMBER]
        : undefined;
    for (const member of Object.values(PROVIDER_MEMBER)) {
      if (attrs[member] && member !== expected) {
        ctx.addIssue({
          code: 'custom',
          path: [member],
          message: `does not match cloudProvider ${attrs.cloudProvider}`,
        });
      }
    }
    if (expected && !attrs[expected]) {
      ctx.addIssue({
        code: 'custom',
        path: [expected],
        message: `is required for cloudProvider ${attrs.cloudProvider}`,
      });
    }
  });
export type SourceAccountAttributesInput = z.infer<typeof SourceAccountAttributesInput>;

/** The fields a source account and a restore account share. */
const accountFields = {
  id: z.string(),
  providerAccountId: z.string(),
  name: z.string(),
  status: openEnum(ACCOUNT_STATUSES),
  providerAccountName: z.string().optional(),
  connectedTime: Timestamp.optional(),
};

/** A source account as the service sends it: the simulator's model. */
export const SourceAccountDocument = record({ ...accountFields, sourceAccountAttributes: SourceAccountAttributes });
export type SourceAccountDocument = z.infer<typeof SourceAccountDocument>;
/**
 * A source account as the runbooks read it: its ID, name, provider account ID and status (offboarding, the cost
 * export's account names); the rest is tolerant.
 */
export const SourceAccount = readerOf(SourceAccountDocument, [
  'providerAccountName',
  'connectedTime',
  'sourceAccountAttributes',
]);
export type SourceAccount = z.infer<typeof SourceAccount>;

export const ConnectSourceAccountInput = z.strictObject({
  name: z.string().min(1).optional(),
  sourceAccountAttributes: SourceAccountAttributesInput,
});
export type ConnectSourceAccountInput = z.infer<typeof ConnectSourceAccountInput>;

export const UpdateSourceAccountInput = z.strictObject({
  name: z.string().min(1).optional(),
  sourceAccountAttributes: SourceAccountAttributesInput.optional(),
});
export type UpdateSourceAccountInput = z.infer<typeof UpdateSourceAccountInput>;

export const SourceAccountBody = record({ sourceAccount: SourceAccount });

export const AccountFilters = z.strictObject({
  id: inNotIn(z.string()).optional(),
  providerAccountId: inNotIn(z.string()).optional(),
  accountStatus: inNotIn(AccountStatusInput).optional(),
  cloudProvider: inNotIn(CloudProviderInput).optional(),
  accountName: ResourceNameFilters.optional(),
});
export const ACCOUNT_SORT_FIELDS = ['name', 'providerAccountId', 'connectedTime'] as const;
export const AccountSortField = z.enum(ACCOUNT_SORT_FIELDS);
export const AccountListInput = z.strictObject({
  filters: AccountFilters.optional(),
  sorts: sortsOf(AccountSortField).optional(),
});
export type AccountListInput = z.infer<typeof AccountListInput>;

export const SourceAccountPage = pageOf('accounts', SourceAccount);

/** A restore account as the service sends it: the simulator's model. */
export const RestoreAccountDocument = record({
  ...accountFields,
  restoreAccountAttributes: record({ cloudProvider: openEnum(CLOUD_PROVIDERS) }),
  isRestoreAllowed: z.boolean(),
});
export type RestoreAccountDocument = z.infer<typeof RestoreAccountDocument>;
/**
 * A restore account as the runbooks read it: its ID, name, status, whether it allows restores and its provider
 * (doctor, input discovery, the demo); the rest is tolerant.
 */
export const RestoreAccount = readerOf(RestoreAccountDocument, ['providerAccountId', 'providerAccountName', 'connectedTime']);
export type RestoreAccount = z.infer<typeof RestoreAccount>;
export const RestoreAccountBody = record({ restoreAccount: RestoreAccount });
export const RestoreAccountPage = pageOf('accounts', RestoreAccount);
