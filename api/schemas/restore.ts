import { z } from 'zod';

const Prefix = z.string().optional();

export const ObjectStorageDestination = z.strictObject({
  bucketA: z
    .strictObject({ bucketName: z.string().min(1), encryptionKeyId: z.string().min(1).optional(), prefix: Prefix })
    .optional(),
  storageAccount: z
    .strictObject({
      name: z.string().min(1),
      container: z.string().min(1),
      resourceGroup: z.string().optional(),
      prefix: Prefix,
    })
    .optional(),
  bucketC: z.strictObject({ bucketName: z.string().min(1), prefix: Prefix }).optional(),
});
export type ObjectStorageDestination = z.infer<typeof ObjectStorageDestination>;

export const FilePath = z.strictObject({
  path: z.string().startsWith('/', 'must be an absolute path'),
  isDirectory: z.boolean(),
});
export type FilePath = z.infer<typeof FilePath>;

export const TakeSnapshotInput = z.strictObject({
  vaultId: z.string().min(1),
  retentionDays: z.number().int().min(1, 'must be at least 1 day'),
});
export type TakeSnapshotInput = z.infer<typeof TakeSnapshotInput>;

export const RestoreFilesInput = z.strictObject({
  destination: ObjectStorageDestination,
  files: z.array(FilePath).min(1, 'name at least one file or directory'),
  restoreAccountId: z.string().min(1),
});
export type RestoreFilesInput = z.infer<typeof RestoreFilesInput>;

export const RestoreBucketInput = z.strictObject({
  destination: ObjectStorageDestination,
  restoreAccountId: z.string().min(1),
});
export type RestoreBucketInput = z.infer<typeof RestoreBucketInput>;

export const APPROVAL_HEADER = 'x-action-approval-request-id';
