import { z } from 'zod';
import { CLOUD_PROVIDERS, CloudProviderInput, openEnum } from '../enums';
import { pageOf, readerOf, record } from './common';

const VaultAttributesDocument = record({
  cloudProvider: openEnum(CLOUD_PROVIDERS),
  providerA: record({ encryptionKey: z.string().optional() }).optional(),
});

/** A vault as the service sends it (docs/service-interface.md): the simulator's model. */
export const VaultDocument = record({
  id: z.string(),
  vaultAccountId: z.string(),
  providerAccountId: z.string(),
  name: z.string(),
  region: z.string(),
  isManagedByEon: z.boolean(),
  vaultAttributes: VaultAttributesDocument,
});
export type VaultDocument = z.infer<typeof VaultDocument>;

/**
 * A vault as the runbooks read it: its ID, name, region and provider (drill and query discovery, doctor, the demo);
 * the rest is tolerant.
 */
export const Vault = readerOf(VaultDocument, ['vaultAccountId', 'providerAccountId', 'isManagedByEon']).extend({
  vaultAttributes: readerOf(VaultAttributesDocument, ['providerA']),
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
