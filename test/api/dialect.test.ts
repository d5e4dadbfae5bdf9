// The dialect tables: concepts to wire tokens of either dialect and back; unknown tokens stay open.
import { CLOUD_PROVIDERS, RESOURCE_TYPES } from '../../api';
import {
  RESOURCE_TYPE_ROWS,
  destinationIn,
  dialectOfToken,
  dialectOfTokenBody,
  providerConceptOf,
  providerMember,
  providerValue,
  resourceCategoryOf,
  resourceTypeIn,
  resourceTypesOf,
  restoreKindOf,
  restoreTypeFits,
  restoreTypeFor,
} from '../../api/dialect';

test('every neutral resource type and provider of api/enums has its row, so none falls to unknown', () => {
  const types = RESOURCE_TYPES.filter((t) => t !== 'RESOURCE_TYPE_UNSPECIFIED');
  expect(types.filter((t) => resourceCategoryOf(t) === 'unknown')).toEqual([]);
  expect(CLOUD_PROVIDERS.filter((p) => p !== 'PROVIDER_UNSPECIFIED' && !providerConceptOf(p))).toEqual([]);
  // A token appears once per dialect.
  for (const dialect of ['neutral', 'public'] as const) {
    const tokens = RESOURCE_TYPE_ROWS.flatMap((r) => (r[dialect] ? [r[dialect]] : []));
    expect(new Set(tokens).size).toBe(tokens.length);
  }
});

test.each([
  ['PA_RELATIONAL_DB', 'relationalDatabase', 'AWS_RDS'],
  ['PB_SQL_DATABASE', 'relationalDatabase', 'AZURE_SQL_DATABASE'],
  ['PC_SQL_INSTANCE', 'relationalDatabase', 'GCP_CLOUD_SQL_INSTANCE'],
  ['PB_POSTGRESQL', 'relationalDatabase', 'AZURE_POSTGRESQL'],
  ['PA_OBJECT_STORE', 'objectStore', 'AWS_S3'],
  ['PC_OBJECT_BUCKET', 'objectStore', 'GCP_CLOUD_STORAGE_BUCKET'],
  ['PA_VM', 'virtualMachine', 'AWS_EC2'],
  ['PA_KEYVALUE_DB', 'keyValue', 'AWS_DYNAMO_DB'],
  ['PD_DOC_DB_CLUSTER', 'documentDatabase', 'ATLAS_MONGODB_CLUSTER'],
])('%s is a %s, %s in the public dialect, and back', (neutral, category, pub) => {
  expect(resourceCategoryOf(neutral)).toBe(category);
  expect(resourceCategoryOf(pub)).toBe(category);
  expect(resourceTypeIn('public', neutral)).toBe(pub);
  expect(resourceTypeIn('neutral', pub)).toBe(neutral);
});

test('a type neither table knows is of category unknown and translates to nothing', () => {
  expect(resourceCategoryOf('AWS_REDSHIFT_SERVERLESS')).toBe('unknown');
  expect(resourceTypeIn('neutral', 'AWS_REDSHIFT_SERVERLESS')).toBeUndefined();
  expect(dialectOfToken('AWS_REDSHIFT_SERVERLESS')).toBeUndefined();
  expect(resourceTypesOf('relationalDatabase', 'public')).toContain('AZURE_SQL_MANAGED_INSTANCE');
});

test('providers: values and attribute members both ways', () => {
  expect(providerConceptOf('PROVIDER_A')).toBe('amazonWebServices');
  expect(providerConceptOf('AWS')).toBe('amazonWebServices');
  expect(providerConceptOf('gcp')).toBe('googleCloud');
  expect(providerValue('microsoftAzure', 'public')).toBe('AZURE');
  expect(providerMember('microsoftAzure', 'neutral')).toBe('providerB');
  expect(providerMember('amazonWebServices', 'public')).toBe('aws');
  expect(providerConceptOf('ALIBABA')).toBeUndefined();
});

test('destinations rename to either dialect, from either dialect or a concept; an unknown member is kept', () => {
  const b = { bucketName: 'x' };
  expect(destinationIn('public', { bucketA: b })).toEqual({ s3Bucket: b });
  expect(destinationIn('neutral', { gcsBucket: b })).toEqual({ bucketC: b });
  expect(destinationIn('public', { amazonBucket: b })).toEqual({ s3Bucket: b });
  expect(destinationIn('public', { storageAccount: b })).toEqual({ storageAccount: b });
  expect(destinationIn('public', { tape: b })).toEqual({ tape: b });
});

test.each([
  ['AWS_S3', 'bucket', 'AWS_S3_BUCKET_RESTORE'],
  ['AWS_S3', 'files', 'AWS_S3_OBJECT_RESTORE'],
  ['AWS_EC2', 'files', 'AWS_EC2_FILE_RESTORE'],
  ['AZURE_STORAGE_ACCOUNT', 'bucket', 'AZURE_STORAGE_ACCOUNT_RESTORE'],
  ['AZURE_STORAGE_ACCOUNT', 'files', 'AZURE_STORAGE_ACCOUNT_BLOB_RESTORE'],
  ['AZURE_VIRTUAL_MACHINE', 'files', 'AZURE_VM_FILE_RESTORE'],
  ['GCP_CLOUD_STORAGE_BUCKET', 'bucket', 'GCP_CLOUD_STORAGE_BUCKET_RESTORE'],
  ['GCP_CLOUD_STORAGE_BUCKET', 'files', 'GCP_CLOUD_STORAGE_OBJECT_RESTORE'],
  ['GCP_COMPUTE_ENGINE_INSTANCE', 'files', 'GCP_COMPUTE_ENGINE_FILE_RESTORE'],
  ['PA_OBJECT_STORE', 'bucket', 'BUCKET'],
  ['PA_VM', 'files', 'FILES'],
  ['AWS_RDS', 'bucket', undefined],
  ['SOMETHING_NEW', 'files', undefined],
] as const)('a %s restore of kind %s has restoreType %s', (resourceType, kind, restoreType) => {
  expect(restoreTypeFor(resourceType, kind)).toBe(restoreType);
  if (restoreType) expect(restoreKindOf(restoreType)).toBe(kind);
});

test('a restore type fits a kind: known types by their kind and resource, unknown ones always', () => {
  expect(restoreTypeFits('AWS_S3_BUCKET_RESTORE', 'bucket', 'AWS_S3')).toBe(true);
  expect(restoreTypeFits('AWS_S3_OBJECT_RESTORE', 'bucket', 'AWS_S3')).toBe(false);
  expect(restoreTypeFits('AWS_EC2_FILE_RESTORE', 'files', 'AWS_S3')).toBe(false);
  expect(restoreTypeFits('AWS_S3_BUCKET_RESTORE', 'bucket')).toBe(true);
  expect(restoreTypeFits('FILES', 'bucket', 'PA_OBJECT_STORE')).toBe(false);
  expect(restoreTypeFits('RESTORE_JOB_TYPE_NEW', 'bucket', 'AWS_S3')).toBe(true);
});

test('the dialect of a token or a token answer', () => {
  expect(dialectOfToken('PA_VM')).toBe('neutral');
  expect(dialectOfToken('AWS_EC2')).toBe('public');
  expect(dialectOfToken('PROVIDER_C')).toBe('neutral');
  expect(dialectOfToken('azure')).toBe('public');
  expect(dialectOfToken('bucketA')).toBe('neutral');
  expect(dialectOfToken('s3Bucket')).toBe('public');
  expect(dialectOfToken('storageAccount')).toBeUndefined();
  expect(dialectOfToken('BUCKET')).toBe('neutral');
  expect(dialectOfToken('GCP_CLOUD_STORAGE_OBJECT_RESTORE')).toBe('public');
  expect(dialectOfTokenBody({ accessToken: 't', expirationSeconds: 43200 })).toBe('public');
  expect(dialectOfTokenBody({ access_token: 't', token_type: 'Bearer', expires_in: 43200 })).toBe('neutral');
  expect(dialectOfTokenBody({ token: 't' })).toBeUndefined();
});
