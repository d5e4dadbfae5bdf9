import { z } from 'zod';
import { CLOUD_PROVIDERS, CloudProviderInput, openEnum } from '../enums';
import { pageOf, record } from './common';

export const Vault = record({
  id: z.string(),
  vaultAccountId: z.string(),
  providerAccountId: z.string(),
  name: z.string(),
  region: z.string(),
  isManagedByEon: z.boolean(),
  vaultAttributes: record({
    cloudProvider: openEnum(CLOUD_PROVIDERS),
    providerA: record({ encryptionKey: z.string().optional() }).optional(),
  }),
});
export type Vault = z.infer<typeof Vault>;

export const CreateVaultInput = z.strictObject({
  name: z.string().min(1),
  region: z.string().min(1),
  vaultAttributes: z.strictObject({
    cloudProvider: CloudProviderInput,
    providerA: z.strictObject({ encryptionKey: z.string().min(1).optional() }).optional(),
  }),
});
export type CreateVaultInput = z.infer<typeof CreateVaultInput>;
export const RenameVaultInput = z.strictObject({ name: z.string().min(1) });

export const VaultBody = record({ vault: Vault });
export const VaultPage = pageOf('vaults', Vault);
