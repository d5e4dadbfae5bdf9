// The public dialect's restores, queries and jobs (docs/service-interface.md §10, §11), over raw HTTP: public
// destinations, `restoreType` by resource type and restore kind, the nulls of jobs that have not run, and the refusal
// of neutral tokens that a lenient mock would accept.
import { restoreKindOf } from '../../api/dialect';
import { databaseNameOf } from '../../simulator/seed-databases';
import { resourcesOfType } from '../../simulator/seed-inventory';
import { bodyOf, control, errorOf, publicDialectSuite, stateOf, type Json, type Reply } from './helpers';

const { suite, api, project, state } = publicDialectSuite();

/** A snapshotted resource of a neutral type (read through the state, which stays neutral). */
function target(neutralType: string, skip = 0) {
  const resource = resourcesOfType(state(), neutralType).filter((r) =>
    Object.values(state().snapshots).some((s) => s.resourceId === r.id),
  )[skip];
  const snapshot = Object.values(state().snapshots).find((s) => s.resourceId === resource?.id);
  if (!resource || !snapshot) throw new Error(`no snapshotted ${neutralType}`);
  return { resource, snapshot, path: `${project()}/resources/${resource.id}/snapshots/${snapshot.id}` };
}

const restoreAccountId = () => {
  const account = Object.values(state().restoreAccounts).find((a) => a.isRestoreAllowed);
  if (!account) throw new Error('no restore account');
  return account.id;
};

async function restore(kind: 'bucket' | 'files', path: string, destination: Json): Promise<Reply> {
  const files = kind === 'files' ? { files: [{ path: '/data', isDirectory: true }] } : {};
  return api('POST', `${path}/restore-${kind}`, {
    body: { restoreAccountId: restoreAccountId(), destination, ...files },
  });
}

async function job(kind: 'restore' | 'backup', jobId: string): Promise<Json> {
  return bodyOf(await api('GET', `${project()}/${kind}-jobs/${jobId}`), 200).job as Json;
}

const advance = async (seconds: number) =>
  expect((await control(suite.sim, 'POST', '/clock/advance', { seconds })).status).toBe(200);
const s3 = { s3Bucket: { bucketName: 'restores', prefix: 'drill' } };

describe('restores', () => {
  test('an AWS_S3 bucket restore is AWS_S3_BUCKET_RESTORE; its answer says no action request (null)', async () => {
    const { path, resource } = target('PA_OBJECT_STORE');
    const answer = bodyOf(await restore('bucket', path, s3), 202);
    expect(answer).toEqual({ jobId: expect.any(String) as unknown, actionApprovalRequest: null });
    const restored = await job('restore', String(answer.jobId));
    expect(restored.restoreType).toBe('AWS_S3_BUCKET_RESTORE');
    expect((restored.destinationDetails as Json).cloudProvider).toBe('AWS');
    expect(restored.resourceDetails).toMatchObject({ id: resource.id, resourceType: 'AWS_S3', cloudProvider: 'AWS' });
    // The state keeps the neutral destination.
    expect(state().restoreJobs[String(answer.jobId)]?.destination).toEqual({
      bucketA: { bucketName: 'restores', prefix: 'drill' },
    });
  });

  test.each([
    ['PA_OBJECT_STORE', 'files', 'AWS_S3_OBJECT_RESTORE'],
    ['PA_VM', 'files', 'AWS_EC2_FILE_RESTORE'],
    ['PB_STORAGE_ACCOUNT', 'bucket', 'AZURE_STORAGE_ACCOUNT_RESTORE'],
    ['PC_OBJECT_BUCKET', 'files', 'GCP_CLOUD_STORAGE_OBJECT_RESTORE'],
  ] as const)('%s, a %s restore: %s', async (type, kind, expected) => {
    const { path } = target(type);
    const jobId = String(bodyOf(await restore(kind, path, s3), 202).jobId);
    expect((await job('restore', jobId)).restoreType).toBe(expected);
  });

  test.each([
    ['PA_RELATIONAL_DB', 'bucket', 'AWS_RDS_RESTORE'],
    ['PA_RELATIONAL_DB', 'files', 'AWS_RDS_FILE_RESTORE'],
    ['PA_VM', 'bucket', 'AWS_EC2_RESTORE'],
  ] as const)(
    '%s, a %s restore with no value in docs/service-interface.md §10: the stand-in %s, unknown to the table',
    async (type, kind, expected) => {
      const { path } = target(type);
      const jobId = String(bodyOf(await restore(kind, path, s3), 202).jobId);
      const restoreType = (await job('restore', jobId)).restoreType as string;
      expect(restoreType).toBe(expected);
      expect(restoreKindOf(restoreType)).toBeUndefined();
    },
  );

  test('gcsBucket and storageAccount are public destinations too', async () => {
    const { path } = target('PC_OBJECT_BUCKET');
    const gcs = bodyOf(await restore('bucket', path, { gcsBucket: { bucketName: 'restores' } }), 202);
    expect(state().restoreJobs[String(gcs.jobId)]?.destination).toEqual({ bucketC: { bucketName: 'restores' } });
    const azure = { storageAccount: { name: 'sa', container: 'restores' } };
    const blob = bodyOf(await restore('bucket', target('PB_STORAGE_ACCOUNT').path, azure), 202);
    expect(state().restoreJobs[String(blob.jobId)]?.destination).toEqual(azure);
  });
});

describe('jobs say null for what is not known yet', () => {
  test('a pending restore has null times, then the times once it ran', async () => {
    const jobId = String(bodyOf(await restore('bucket', target('PA_OBJECT_STORE', 1).path, s3), 202).jobId);
    const pending = (await job('restore', jobId)).jobExecutionDetails as Json;
    expect(pending).toMatchObject({
      status: 'JOB_PENDING',
      expectedStartTime: null,
      startTime: null,
      endTime: null,
      durationSeconds: null,
    });
    await advance(state().jobsConfig.restoreSeconds);
    const done = (await job('restore', jobId)).jobExecutionDetails as Json;
    expect(done.status).toBe('JOB_COMPLETED');
    for (const key of ['expectedStartTime', 'startTime', 'endTime']) expect(typeof done[key]).toBe('string');
    expect(typeof done.durationSeconds).toBe('number');
  });

  test('the job lists answer the same shapes', async () => {
    const listed = bodyOf(await api('POST', `${project()}/restore-jobs`, { body: {} }), 200).jobs as Json[];
    expect(listed.length).toBeGreaterThan(0);
    for (const j of listed) {
      // Provider- and kind-named, never the neutral BUCKET or FILES.
      expect(j.restoreType).toMatch(/^(AWS|AZURE|GCP)_[A-Z0-9_]+_RESTORE$/);
      expect(j.resourceDetails).toHaveProperty('accountDisplayName');
    }
  });

  test('a backup job: snapshotDetails null until its snapshot exists, resourceDetails with the account name', async () => {
    const resource = resourcesOfType(state(), 'PA_VM')[0];
    const vault = Object.values(state().vaults).find((v) => v.region === resource?.region);
    const started = await api('POST', `${project()}/resources/${resource?.id}/take-snapshot`, {
      body: { vaultId: vault?.id, retentionDays: 7 },
    });
    const jobId = String(bodyOf(started, 202).jobId);
    const pending = await job('backup', jobId);
    expect(pending.snapshotDetails).toBeNull();
    const account = state().sourceAccounts[state().resources[resource?.id ?? '']?.sourceAccountId ?? ''];
    expect(pending.resourceDetails).toMatchObject({ resourceType: 'AWS_EC2', accountDisplayName: account?.name });
    expect((pending.vault as Json).vaultAttributes).toMatchObject({ cloudProvider: 'AWS' });
    await advance(state().jobsConfig.backupSeconds);
    expect((await job('backup', jobId)).snapshotDetails).toMatchObject({ id: expect.any(String) as unknown });
  });

  test('resourceDetails is null once the resource has left the inventory', async () => {
    const record = Object.values(state().resources).find(
      (r) =>
        r.resource.resourceType === 'PB_VM' &&
        !Object.values(state().snapshots).some((s) => s.resourceId === r.resource.id),
    );
    if (!record) throw new Error('no PB_VM without snapshots');
    const vault = Object.values(state().vaults).find((v) => v.region === record.resource.region);
    const started = await api('POST', `${project()}/resources/${record.resource.id}/take-snapshot`, {
      body: { vaultId: vault?.id, retentionDays: 7 },
    });
    const jobId = String(bodyOf(started, 202).jobId);
    const disconnect = await api('POST', `${project()}/source-accounts/${record.sourceAccountId}/disconnect`);
    expect(disconnect.status).toBe(200);
    const gone = await job('backup', jobId);
    expect(gone.resourceDetails).toBeNull();
    expect(gone.snapshotDetails).toBeNull();
    await api('POST', `${project()}/source-accounts/${record.sourceAccountId}/reconnect`);
  });
});

describe('queries', () => {
  test('a query writes to its s3Bucket destination; gcsBucket is no query destination', async () => {
    const { snapshot, resource } = target('PA_RELATIONAL_DB');
    const body = {
      databaseName: databaseNameOf(state().seed, resource.id),
      query: 'SELECT 1 AS one',
      restoreAccountId: restoreAccountId(),
      destination: { s3Bucket: { bucketName: 'exports', prefix: 'public' } },
    };
    const path = `${project()}/snapshots/${snapshot.id}/databases/query`;
    const started = bodyOf(await api('POST', path, { body }), 202);
    expect(state().queries[String(started.queryId)]?.destination).toEqual({
      bucketA: { bucketName: 'exports', prefix: 'public' },
    });
    await control(suite.sim, 'POST', '/clock/advance', { seconds: state().jobsConfig.querySeconds + 60 });
    const status = bodyOf(
      await api('GET', `${project()}/queries/${encodeURIComponent(String(started.queryId))}/status`),
      200,
    );
    expect(status.outputLocations).toEqual([expect.stringMatching(/^s3:\/\/exports\/public\//)]);
    const gcs = await api('POST', path, { body: { ...body, destination: { gcsBucket: { bucketName: 'exports' } } } });
    expect(gcs.status).toBe(400);
    expect(errorOf(gcs)).toContain('gcsBucket');
    expect(errorOf(gcs)).not.toContain('bucketC');
  });
});

describe('neutral tokens are refused with the public word for them', () => {
  // A lenient mock of the public document accepts an unknown destination with 202 (docs/service-interface.md §11); the
  // simulator refuses it.
  const cases = (): [string, string, string, unknown, RegExp][] => [
    [
      'destination bucketA',
      'POST',
      `${target('PA_OBJECT_STORE').path}/restore-bucket`,
      { restoreAccountId: restoreAccountId(), destination: { bucketA: { bucketName: 'b' } } },
      /body\.destination\.bucketA: bucketA is the neutral dialect's destination member; the public dialect calls it s3Bucket/,
    ],
    [
      'destination bucketC',
      'POST',
      `${target('PC_OBJECT_BUCKET').path}/restore-files`,
      { restoreAccountId: restoreAccountId(), destination: { bucketC: { bucketName: 'b' } }, files: [] },
      /bucketC is the neutral dialect's destination member; the public dialect calls it gcsBucket/,
    ],
    [
      'provider PROVIDER_A',
      'POST',
      `${project()}/vaults`,
      { name: 'v', region: 'r', vaultAttributes: { cloudProvider: 'PROVIDER_A' } },
      /body\.vaultAttributes\.cloudProvider: PROVIDER_A is the neutral dialect's provider; the public dialect calls it AWS/,
    ],
    [
      'member providerA',
      'POST',
      `${project()}/source-accounts`,
      { sourceAccountAttributes: { cloudProvider: 'AWS', providerA: { roleArn: 'arn:aws:iam::123456789012:role/x' } } },
      /providerA is the neutral dialect's provider member; the public dialect calls it aws/,
    ],
    [
      'type PA_VM in a resource filter',
      'POST',
      `${project()}/resources`,
      { filters: { resourceType: { in: ['GCP_DISK', 'PA_VM'] } } },
      /body\.filters\.resourceType\.in\.1: PA_VM is the neutral dialect's resource type; the public dialect calls it AWS_EC2/,
    ],
    [
      'provider PROVIDER_B in a cost filter',
      'POST',
      '/v1/cost-data',
      {
        timeFrame: { startTime: '2024-01-01T00:00:00Z', endTime: '2024-02-01T00:00:00Z' },
        filters: { cloudProvider: { notIn: ['PROVIDER_B'] } },
      },
      /PROVIDER_B is the neutral dialect's provider; the public dialect calls it AZURE/,
    ],
    [
      'query destination bucketA',
      'POST',
      `${project()}/snapshots/${target('PA_RELATIONAL_DB').snapshot.id}/databases/query`,
      { databaseName: 'd', query: 'SELECT 1', restoreAccountId: 'a', destination: { bucketA: { bucketName: 'b' } } },
      /bucketA is the neutral dialect's destination member; the public dialect calls it s3Bucket/,
    ],
  ];

  test('each is a 400 that changes nothing', async () => {
    for (const [name, method, path, body, message] of cases()) {
      const before = stateOf(suite.sim);
      const reply = await api(method as 'POST', path, { body });
      expect({ name, status: reply.status }).toEqual({ name, status: 400 });
      expect(errorOf(reply)).toMatch(message);
      expect(stateOf(suite.sim)).toEqual(before);
    }
  });

  test("a route's own refusal speaks public words too", async () => {
    const reply = await api('POST', `${project()}/vaults`, {
      body: { name: 'v', region: 'r', vaultAttributes: { cloudProvider: 'NOT_A_CLOUD' } },
    });
    expect(reply.status).toBe(400);
    expect(errorOf(reply)).toMatch(/AWS/);
    expect(errorOf(reply)).not.toMatch(/PROVIDER_A/);
  });
});
