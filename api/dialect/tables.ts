/**
 * The wire tokens of the two dialects the service may speak, next to the concepts the runbooks reason about. The
 * neutral dialect is the project's own vocabulary (api/enums.ts); the public one is the real service's OpenAPI
 * document (docs/service-interface.md §10). Pure data: workflow code imports it, so nothing here touches Node.
 *
 * Concept names are chosen to be neither dialect's token (`amazonWebServices`, not `aws` nor `PROVIDER_A`), so that a
 * concept can never be sent, or mistaken for a wire value, by accident.
 */

export const DIALECTS = ['neutral', 'public'] as const;
export type Dialect = (typeof DIALECTS)[number];

/** What a client is told to speak: one dialect, or `auto` to detect it from the service's answers. */
export const DIALECT_SETTINGS = [...DIALECTS, 'auto'] as const;
export type DialectSetting = (typeof DIALECT_SETTINGS)[number];

/** What a resource is, whichever provider holds it (a row of RESOURCE_TYPE_ROWS names one). */
export type ResourceCategory =
  | 'virtualMachine'
  | 'relationalDatabase'
  | 'objectStore'
  | 'fileSystem'
  | 'disk'
  | 'kubernetesNamespace'
  | 'keyValue'
  | 'documentDatabase'
  | 'unknown';

export const RESTORE_KINDS = ['bucket', 'files'] as const;
export type RestoreKind = (typeof RESTORE_KINDS)[number];

/** Where a restore or a query writes: an object store of one provider. */
export const DESTINATION_KINDS = ['amazonBucket', 'googleBucket', 'azureBlobContainer'] as const;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];

type PerDialect<T extends string = string> = Readonly<Record<Dialect, T | undefined>>;

/**
 * Each provider by its concept: its `cloudProvider` value, and the member naming it in attribute objects (source
 * accounts, vaults). Its keys are the provider concepts.
 */
const PROVIDER_TABLE = {
  amazonWebServices: {
    value: { neutral: 'PROVIDER_A', public: 'AWS' },
    member: { neutral: 'providerA', public: 'aws' },
  },
  microsoftAzure: {
    value: { neutral: 'PROVIDER_B', public: 'AZURE' },
    member: { neutral: 'providerB', public: 'azure' },
  },
  googleCloud: { value: { neutral: 'PROVIDER_C', public: 'GCP' }, member: { neutral: 'providerC', public: 'gcp' } },
  mongodbAtlas: {
    value: { neutral: 'PROVIDER_D', public: 'MONGO_ATLAS' },
    member: { neutral: undefined, public: undefined },
  },
  googleWorkspace: {
    value: { neutral: undefined, public: 'GOOGLE_WORKSPACE' },
    member: { neutral: undefined, public: undefined },
  },
  microsoftOffice365: {
    value: { neutral: undefined, public: 'MICROSOFT_365' },
    member: { neutral: undefined, public: undefined },
  },
} satisfies Record<string, { value: PerDialect; member: PerDialect }>;
export type ProviderConcept = keyof typeof PROVIDER_TABLE;
export const PROVIDERS: Readonly<Record<ProviderConcept, { value: PerDialect; member: PerDialect }>> = PROVIDER_TABLE;
export const PROVIDER_CONCEPTS = Object.keys(PROVIDERS) as ProviderConcept[];

/**
 * Sort fields of the account lists, by dialect and list (docs/service-interface.md §5, §6, §11). Only the account's
 * name is paired across the dialects; a field of one dialect that the other lacks has no translation.
 */
export const ACCOUNT_SORT_FIELDS_BY_DIALECT: Readonly<
  Record<Dialect, Readonly<Record<AccountList, readonly string[]>>>
> = {
  neutral: {
    sourceAccounts: ['name', 'providerAccountId', 'connectedTime'],
    restoreAccounts: ['name', 'providerAccountId', 'connectedTime'],
  },
  public: {
    sourceAccounts: ['accountName', 'installedVersion', 'parentIdentifier', 'createdAt'],
    restoreAccounts: ['accountName', 'installedVersion', 'createdAt'],
  },
};
export type AccountList = 'sourceAccounts' | 'restoreAccounts';
export const PAIRED_ACCOUNT_SORT_FIELDS: readonly Readonly<Record<Dialect, string>>[] = [
  { neutral: 'name', public: 'accountName' },
];

/** Destination members of `ObjectStorageDestination` (and, for `amazonBucket` only, of a query's destination). */
export const DESTINATIONS: Readonly<Record<DestinationKind, PerDialect>> = {
  amazonBucket: { neutral: 'bucketA', public: 's3Bucket' },
  googleBucket: { neutral: 'bucketC', public: 'gcsBucket' },
  azureBlobContainer: { neutral: 'storageAccount', public: 'storageAccount' },
};

/** A query's destination (`QueryDBRestoreDestination`) names an Amazon bucket only, in either dialect. */
export const QUERY_DESTINATION_KINDS: readonly DestinationKind[] = ['amazonBucket'];

/** A public source-account update's provider members: `aws` and `gcp`, no `azure` (docs/service-interface.md §11). */
export const PUBLIC_UPDATE_PROVIDERS: readonly ProviderConcept[] = ['amazonWebServices', 'googleCloud'];

export interface ResourceTypeRow {
  provider: ProviderConcept;
  category: ResourceCategory;
  neutral?: string;
  public?: string;
}

const row = (
  provider: ProviderConcept,
  category: ResourceCategory,
  neutral?: string,
  pub?: string,
): ResourceTypeRow => ({
  provider,
  category,
  ...(neutral ? { neutral } : {}),
  ...(pub ? { public: pub } : {}),
});

/**
 * Resource types, paired across the dialects by name (docs/service-interface.md §10); a type one dialect lacks has only
 * the other's token.
 */
export const RESOURCE_TYPE_ROWS: readonly ResourceTypeRow[] = [
  row('amazonWebServices', 'virtualMachine', 'PA_VM', 'AWS_EC2'),
  row('amazonWebServices', 'relationalDatabase', 'PA_RELATIONAL_DB', 'AWS_RDS'),
  row('amazonWebServices', 'objectStore', 'PA_OBJECT_STORE', 'AWS_S3'),
  row('amazonWebServices', 'fileSystem', 'PA_FILE_SYSTEM', 'AWS_EFS'),
  row('amazonWebServices', 'fileSystem', 'PA_MANAGED_FILE_SYSTEM', 'AWS_FSX'),
  row('amazonWebServices', 'kubernetesNamespace', 'PA_K8S_NAMESPACE', 'AWS_EKS_NAMESPACE'),
  row('amazonWebServices', 'keyValue', 'PA_KEYVALUE_DB', 'AWS_DYNAMO_DB'),
  row('microsoftAzure', 'virtualMachine', 'PB_VM', 'AZURE_VIRTUAL_MACHINE'),
  row('microsoftAzure', 'fileSystem', 'PB_FILE_SHARE', 'AZURE_FILE_SHARE'),
  row('microsoftAzure', 'objectStore', 'PB_STORAGE_ACCOUNT', 'AZURE_STORAGE_ACCOUNT'),
  row('microsoftAzure', 'disk', 'PB_DISK', 'AZURE_DISK'),
  row('microsoftAzure', 'relationalDatabase', 'PB_SQL_DATABASE', 'AZURE_SQL_DATABASE'),
  row('microsoftAzure', 'relationalDatabase', 'PB_SQL_MANAGED_INSTANCE', 'AZURE_SQL_MANAGED_INSTANCE'),
  row('microsoftAzure', 'relationalDatabase', 'PB_SQL_VM', 'AZURE_SQL_VIRTUAL_MACHINE'),
  row('microsoftAzure', 'relationalDatabase', 'PB_MYSQL', 'AZURE_MYSQL'),
  row('microsoftAzure', 'relationalDatabase', 'PB_POSTGRESQL', 'AZURE_POSTGRESQL'),
  row('microsoftAzure', 'documentDatabase', 'PB_DOC_DB_A', 'AZURE_COSMOSDB_MONGODB'),
  row('microsoftAzure', 'documentDatabase', 'PB_DOC_DB_B', 'AZURE_COSMOSDB_NOSQL'),
  row('mongodbAtlas', 'documentDatabase', 'PD_DOC_DB_CLUSTER', 'ATLAS_MONGODB_CLUSTER'),
  row('googleCloud', 'virtualMachine', 'PC_VM', 'GCP_COMPUTE_ENGINE_INSTANCE'),
  row('googleCloud', 'relationalDatabase', 'PC_SQL_INSTANCE', 'GCP_CLOUD_SQL_INSTANCE'),
  row('googleCloud', 'objectStore', 'PC_OBJECT_BUCKET', 'GCP_CLOUD_STORAGE_BUCKET'),
  row('googleCloud', 'disk', undefined, 'GCP_DISK'),
];

/**
 * The one resource type drills ran their SQL check on before they decided by category: histories of those runs
 * replay with it (runbooks/dr-drill, patch `drill-check-by-category`).
 */
export const PRE_CATEGORY_CHECKED_TYPE = 'PA_RELATIONAL_DB';

/**
 * `restoreType` of a restore job, by resource type and restore kind. The neutral dialect has one value per kind,
 * whatever the resource (what the neutral simulator returns); the public one names provider and kind
 * (docs/service-interface.md §10).
 */
export const NEUTRAL_RESTORE_TYPES: Readonly<Record<RestoreKind, string>> = { bucket: 'BUCKET', files: 'FILES' };

export const PUBLIC_RESTORE_TYPES: Readonly<Record<string, Partial<Record<RestoreKind, string>>>> = {
  AWS_S3: { bucket: 'AWS_S3_BUCKET_RESTORE', files: 'AWS_S3_OBJECT_RESTORE' },
  AWS_EC2: { files: 'AWS_EC2_FILE_RESTORE' },
  AZURE_STORAGE_ACCOUNT: { bucket: 'AZURE_STORAGE_ACCOUNT_RESTORE', files: 'AZURE_STORAGE_ACCOUNT_BLOB_RESTORE' },
  AZURE_VIRTUAL_MACHINE: { files: 'AZURE_VM_FILE_RESTORE' },
  GCP_CLOUD_STORAGE_BUCKET: { bucket: 'GCP_CLOUD_STORAGE_BUCKET_RESTORE', files: 'GCP_CLOUD_STORAGE_OBJECT_RESTORE' },
  GCP_COMPUTE_ENGINE_INSTANCE: { files: 'GCP_COMPUTE_ENGINE_FILE_RESTORE' },
};
