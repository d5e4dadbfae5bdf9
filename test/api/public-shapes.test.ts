// The public document's shapes decode (docs/service-interface.md §11): the nulls it allows, read as "not known" and
// never as 0, and the structured access-condition expressions, kept as they are.
import { roleInputOf } from '../../api/access-conditions';
import { InvalidResponseError } from '../../api/errors';
import { collect } from '../../api/paging';
import { failureOf, makeClient, recordingServerForSuite } from './helpers';
import { P, mpaRequest, publicService, publicRole, structuredExpression } from './dialect-services';

const server = recordingServerForSuite();

beforeEach(() => publicService(server));

test('a job that has not run: its null times, duration and details are absent, never 0', async () => {
  const client = makeClient(server);
  for (const job of [await client.getRestoreJob('job-9'), ...(await collect(client.listRestoreJobs()))]) {
    const d = job.jobExecutionDetails;
    expect(d).toEqual({ jobId: 'job-9', status: 'JOB_PENDING', createdTime: expect.any(String) as unknown });
    for (const time of [d.startTime, d.endTime, d.expectedStartTime, d.durationSeconds]) expect(time).toBeUndefined();
    expect(Date.parse(d.endTime ?? '')).toBeNaN();
    expect(job.resourceDetails).toBeUndefined();
    expect(job.snapshotDetails).toBeUndefined();
    expect(job.restoreType).toBe('AWS_S3_BUCKET_RESTORE');
  }
});

test("a resource's null classification details decode", async () => {
  const resource = await makeClient(server).getResource('res-1');
  // The details no runbook reads are tolerant: a null one is dropped.
  expect(resource.classifications).toEqual({ environmentDetails: null });
  expect(resource.classifications?.environmentDetails?.environment).toBeUndefined();
  expect(resource.accountDisplayName).toBe('Production');
});

test('a null action request: submit gives undefined, cancel reads the request back, a restore has started', async () => {
  const client = makeClient(server);
  expect(await client.submitActionRequest('req-1', { action: 'CONFIRM' })).toBeUndefined();
  const canceled = await client.cancelActionRequest('req-1');
  expect(canceled).toMatchObject({ id: 'req-1', status: mpaRequest.status });
  expect(server.apiRequests.map((r) => `${r.method} ${r.path.replace(P, '')}`).slice(-2)).toEqual([
    'POST /action-approvals/my-requests/req-1/cancel',
    'GET /action-approvals/my-requests/req-1',
  ]);
  const restore = await client.restoreBucket('res-1', 'snap-1', {
    destination: { bucketA: { bucketName: 'b' } },
    restoreAccountId: 'ra-1',
  });
  expect(restore).toEqual({ kind: 'started', jobId: 'job-9' });
});

test('a 201 whose action request is null, and that started no job, is an unreadable answer', async () => {
  server.handler = () => ({ status: 201, json: { actionApprovalRequest: null } });
  const err = await failureOf(() =>
    makeClient(server, { dialect: 'public' }).restoreBucket('res-1', 'snap-1', {
      destination: { bucketA: { bucketName: 'b' } },
      restoreAccountId: 'ra-1',
    }),
  );
  expect(err).toBeInstanceOf(InvalidResponseError);
});

test('a wrapped request read with a null review and a null policy detail decodes; the null detail is left out', async () => {
  const request = await makeClient(server).getActionRequest('req-1');
  expect(request.id).toBe('req-1');
  expect(request.policyDetails).toEqual([
    { requiredApprovals: 2, currentApprovals: 1, executionWindowHours: 24, approvalWindowHours: 48 },
  ]);
});

test("a role's structured expression is kept as structured data, and a null one as null", async () => {
  const role = await makeClient(server).getRole('role-1');
  expect(role.accessConditions).toEqual(publicRole.accessConditions);
  expect(role.accessConditions?.[0]?.expression).toEqual(structuredExpression);
  expect(role.accessConditions?.[1]?.expression).toBeNull();
});

test('a role read in the public dialect goes back unchanged in an update', async () => {
  const client = makeClient(server);
  const role = await client.getRole('role-1');
  await client.updateRole('role-1', roleInputOf(role));
  expect(JSON.parse(server.lastApi().body)).toEqual({
    name: publicRole.name,
    permissionGrants: publicRole.permissionGrants,
    accessConditions: publicRole.accessConditions,
  });
});
