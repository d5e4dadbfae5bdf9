// Which restore jobs a retried restore may adopt: only one that matches every parameter of its call.
import type { ObjectStorageDestination, RestoreJob } from '../../api';
import { isRestoreOf, type StartRestoreInput } from '../../steps/jobs';

const destination = { bucketA: { bucketName: 'restored', prefix: 'a/' } };
const bucketCall: StartRestoreInput = {
  resourceId: 'res-1',
  snapshotId: 'snap-1',
  kind: 'bucket',
  bucket: { destination, restoreAccountId: 'acct-R' },
};
const filesCall: StartRestoreInput = {
  resourceId: 'res-1',
  snapshotId: 'snap-1',
  kind: 'files',
  files: { destination, restoreAccountId: 'acct-R', files: [{ path: '/data', isDirectory: true }] },
};

function job(overrides: {
  restoreType?: string;
  account?: string;
  snapshot?: string;
  resource?: string;
  extra?: object;
}) {
  return {
    jobExecutionDetails: { jobId: 'job-1', status: 'JOB_RUNNING', createdTime: '2026-11-23T10:00:00Z' },
    restoreType: overrides.restoreType ?? 'BUCKET',
    destinationDetails: {
      restoreAccountId: overrides.account ?? 'acct-R',
      providerAccountId: '123456789012',
      cloudProvider: 'PROVIDER_A',
      region: 'us-east-1',
      ...overrides.extra,
    },
    snapshotDetails: { pointInTime: '2026-11-22T00:00:00Z', id: overrides.snapshot ?? 'snap-1' },
    resourceDetails: {
      id: overrides.resource ?? 'res-1',
      providerResourceId: 'arn:bucket',
      resourceName: 'objects',
      resourceType: 'PA_OBJECT_STORE',
      providerAccountId: '123456789012',
      cloudProvider: 'PROVIDER_A',
      region: 'us-east-1',
    },
  } as RestoreJob;
}

test.each([
  ['the same bucket restore', job({}), bucketCall, true],
  ['a files job, for a bucket restore', job({ restoreType: 'FILES' }), bucketCall, false],
  ['a bucket job, for a files restore', job({}), filesCall, false],
  ['the same files restore', job({ restoreType: 'FILES' }), filesCall, true],
  ['another restore account', job({ account: 'acct-B' }), bucketCall, false],
  ['another snapshot', job({ snapshot: 'snap-2' }), bucketCall, false],
  ['another resource', job({ resource: 'res-2' }), bucketCall, false],
  [
    'a carried destination that differs',
    job({ extra: { destination: { bucketA: { bucketName: 'other' } } } }),
    bucketCall,
    false,
  ],
  [
    'a carried destination in another key order',
    job({ extra: { destination: { bucketA: { prefix: 'a/', bucketName: 'restored' } } } }),
    bucketCall,
    true,
  ],
  [
    'a destination carried in restoreResult that differs',
    job({ extra: { restoreResult: { destination: { bucketC: { bucketName: 'restored' } } } } }),
    bucketCall,
    false,
  ],
  // An unfamiliar type is no reason to restore twice: every other parameter matches, so it is ours.
  ['a job type this client does not know', job({ restoreType: 'FULL_VM' }), bucketCall, true],
  [
    'a job type this client does not know, another snapshot',
    job({ restoreType: 'FULL_VM', snapshot: 'x' }),
    bucketCall,
    false,
  ],
])('%s', (_what, candidate, call, ours) => {
  expect(isRestoreOf(candidate, call)).toBe(ours);
});

describe('in the public dialect', () => {
  // The client's request types name the neutral members only until it speaks the public dialect (issue 17).
  const s3 = { s3Bucket: { bucketName: 'restored', prefix: 'a/' } } as unknown as ObjectStorageDestination;
  const publicBucketCall: StartRestoreInput = {
    ...bucketCall,
    bucket: { destination: s3, restoreAccountId: 'acct-R' },
  };
  const publicFilesCall: StartRestoreInput = {
    ...filesCall,
    files: { destination: s3, restoreAccountId: 'acct-R', files: [{ path: '/data', isDirectory: true }] },
  };
  /** A job as the real service lists it: provider-named types, a destination carried under `s3Bucket`. */
  function publicJob(overrides: Parameters<typeof job>[0] & { resourceType?: string; createdTime?: string }) {
    const base = job({ ...overrides, extra: { destination: s3, ...overrides.extra } });
    return {
      ...base,
      restoreType: overrides.restoreType ?? 'AWS_S3_BUCKET_RESTORE',
      jobExecutionDetails: {
        ...base.jobExecutionDetails,
        createdTime: overrides.createdTime ?? '2026-11-23T10:00:00Z',
      },
      destinationDetails: { ...base.destinationDetails, cloudProvider: 'AWS' },
      resourceDetails: {
        ...base.resourceDetails,
        resourceType: overrides.resourceType ?? 'AWS_S3',
        cloudProvider: 'AWS',
      },
    } as RestoreJob;
  }
  const since = Date.parse('2026-11-23T09:59:00Z');

  test.each([
    ['the bucket restore of an AWS_S3 resource', publicJob({}), publicBucketCall, true],
    [
      'the object (files) restore, for a bucket restore',
      publicJob({ restoreType: 'AWS_S3_OBJECT_RESTORE' }),
      publicBucketCall,
      false,
    ],
    [
      'the object (files) restore, for a files restore',
      publicJob({ restoreType: 'AWS_S3_OBJECT_RESTORE' }),
      publicFilesCall,
      true,
    ],
    ['a bucket job, for a files restore', publicJob({}), publicFilesCall, false],
    ["another resource type's files type", publicJob({ restoreType: 'AWS_EC2_FILE_RESTORE' }), publicFilesCall, false],
    [
      'a type no table knows, all else the same',
      publicJob({ restoreType: 'AWS_S3_VERSIONED_RESTORE' }),
      publicBucketCall,
      true,
    ],
    ['the neutral call for a public job (destination by concept)', publicJob({}), bucketCall, true],
    ['another restore account', publicJob({ account: 'acct-B' }), publicBucketCall, false],
    ['another snapshot', publicJob({ snapshot: 'snap-2' }), publicBucketCall, false],
    ['another resource', publicJob({ resource: 'res-2' }), publicBucketCall, false],
    [
      'another destination',
      publicJob({ extra: { destination: { s3Bucket: { bucketName: 'x' } } } }),
      publicBucketCall,
      false,
    ],
    ['created before the first attempt', publicJob({ createdTime: '2026-11-23T09:00:00Z' }), publicBucketCall, false],
    [
      'a type no table knows, another restore account',
      publicJob({ restoreType: 'AWS_S3_VERSIONED_RESTORE', account: 'acct-B' }),
      publicBucketCall,
      false,
    ],
  ])('%s', (_what, candidate, call, ours) => {
    expect(isRestoreOf(candidate, call, since)).toBe(ours);
  });
});
