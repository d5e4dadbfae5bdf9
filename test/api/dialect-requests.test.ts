// Request bodies in one dialect, from inputs in either dialect or by concept: pure renaming through the tables, both
// ways, with every token no table knows kept as it is.
import { DIALECT_SETTINGS } from '../../api/dialect';
import {
  accountSortFieldIn,
  providerMemberIn,
  providerValueIn,
  requestBodyIn,
  resourceTypeValueIn,
} from '../../api/dialect/requests';

test('the settings a client takes', () => {
  expect(DIALECT_SETTINGS).toEqual(['neutral', 'public', 'auto']);
});

test('tokens rename from either dialect or a concept; unknown tokens, or ones the target lacks, are kept', () => {
  expect(providerValueIn('public', 'PROVIDER_B')).toBe('AZURE');
  expect(providerValueIn('neutral', 'GCP')).toBe('PROVIDER_C');
  expect(providerValueIn('public', 'mongodbAtlas')).toBe('MONGO_ATLAS');
  expect(providerValueIn('neutral', 'MICROSOFT_365')).toBe('MICROSOFT_365');
  expect(providerValueIn('public', 'aws')).toBe('aws'); // a member is no cloudProvider value
  expect(providerMemberIn('public', 'providerA')).toBe('aws');
  expect(providerMemberIn('neutral', 'googleCloud')).toBe('providerC');
  expect(providerMemberIn('public', 'roleArn')).toBe('roleArn');
  expect(resourceTypeValueIn('public', 'PC_SQL_INSTANCE')).toBe('GCP_CLOUD_SQL_INSTANCE');
  expect(resourceTypeValueIn('neutral', 'GCP_DISK')).toBe('GCP_DISK');
  expect(resourceTypeValueIn('neutral', 'AWS_REDSHIFT')).toBe('AWS_REDSHIFT');
  expect(accountSortFieldIn('public', 'name')).toBe('accountName');
  expect(accountSortFieldIn('neutral', 'accountName')).toBe('name');
  expect(accountSortFieldIn('public', 'connectedTime')).toBe('connectedTime');
});

test('list and cost filters: provider and resource-type values, in and notIn; the rest untouched', () => {
  const body = {
    filters: {
      cloudProvider: { in: ['PROVIDER_A'], notIn: ['microsoftAzure'] },
      resourceType: { in: ['PA_VM', 'NEW_TYPE'] },
      accountId: { in: ['PROVIDER_A'] },
    },
    sorts: [{ field: 'resourceName', order: 'ASC' }],
  };
  expect(requestBodyIn('public', 'resourceList', body)).toEqual({
    filters: {
      cloudProvider: { in: ['AWS'], notIn: ['AZURE'] },
      resourceType: { in: ['AWS_EC2', 'NEW_TYPE'] },
      accountId: { in: ['PROVIDER_A'] },
    },
    sorts: [{ field: 'resourceName', order: 'ASC' }],
  });
  expect(requestBodyIn('neutral', 'costData', requestBodyIn('public', 'costData', body))).toEqual({
    ...body,
    filters: { ...body.filters, cloudProvider: { in: ['PROVIDER_A'], notIn: ['PROVIDER_B'] } },
  });
  expect(requestBodyIn('public', 'sourceAccountList', { sorts: [{ field: 'name', order: 'DESC' }] })).toEqual({
    sorts: [{ field: 'accountName', order: 'DESC' }],
  });
});

test('attributes: connect and vault bodies rename the provider value and member', () => {
  const connect = { name: 'a', sourceAccountAttributes: { cloudProvider: 'PROVIDER_B', providerB: { tenantId: 't' } } };
  expect(requestBodyIn('public', 'connectSourceAccount', connect)).toEqual({
    name: 'a',
    sourceAccountAttributes: { cloudProvider: 'AZURE', azure: { tenantId: 't' } },
  });
  const vault = { name: 'v', region: 'r', vaultAttributes: { cloudProvider: 'AWS', aws: { encryptionKey: 'k' } } };
  expect(requestBodyIn('neutral', 'createVault', vault)).toEqual({
    ...vault,
    vaultAttributes: { cloudProvider: 'PROVIDER_A', providerA: { encryptionKey: 'k' } },
  });
});

test('an update: the public body has no cloudProvider; the neutral one takes it from the one member given', () => {
  const neutral = { name: 'n', sourceAccountAttributes: { cloudProvider: 'PROVIDER_A', providerA: { roleArn: 'r' } } };
  const pub = { name: 'n', sourceAccountAttributes: { aws: { roleArn: 'r' } } };
  expect(requestBodyIn('public', 'updateSourceAccount', neutral)).toEqual(pub);
  expect(requestBodyIn('neutral', 'updateSourceAccount', pub)).toEqual(neutral);
  expect(requestBodyIn('neutral', 'updateSourceAccount', { name: 'only a name' })).toEqual({ name: 'only a name' });
});

test('restore and query destinations', () => {
  const restore = { destination: { googleBucket: { bucketName: 'b' } }, restoreAccountId: 'ra' };
  expect(requestBodyIn('public', 'restoreFiles', restore)).toEqual({
    destination: { gcsBucket: { bucketName: 'b' } },
    restoreAccountId: 'ra',
  });
  expect(requestBodyIn('neutral', 'runQuery', { destination: { s3Bucket: { bucketName: 'q' } } })).toEqual({
    destination: { bucketA: { bucketName: 'q' } },
  });
});
