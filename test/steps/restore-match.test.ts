// Which restore jobs a retried restore may adopt: only one that matches every parameter of its call.
import type { RestoreJob } from '../../api';
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
  ['a job type this client does not know', job({ restoreType: 'FULL_VM' }), bucketCall, false],
])('%s: ours is %s', (_what, candidate, call, ours) => {
  expect(isRestoreOf(candidate, call)).toBe(ours);
});
