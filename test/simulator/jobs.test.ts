// Conformance of take-snapshot, the restores and the job calls (docs/service-interface.md §2–§4) over raw HTTP, with
// the job lifecycle driven by advancing the simulated clock.
import {
  ActionRequestBody,
  BackupJob,
  BackupJobBody,
  BackupJobPage,
  JOB_SORT_FIELDS,
  JobStarted,
  ResourceBody,
  RestoreJob,
  RestoreJobBody,
  RestoreJobPage,
  SnapshotBody,
  type InventoryResource,
  type Snapshot,
} from '../../api';
import { sortItems } from '../../simulator/filters';
import { backupJobView, settleJobs } from '../../simulator/jobs';
import { resourcesOfType } from '../../simulator/seed-inventory';
import { type RunningSimulator } from '../../simulator/server';
import { allPages, call as callSimulator, errorOf, type Method, simulatorForSuite, tokenFor } from './helpers';

let sim: RunningSimulator;
let token: string;

/** The body, the token and the headers come positionally here; a null token sends none. */
const call = (
  method: Method,
  path: string,
  body?: unknown,
  auth: string | null = token,
  headers?: Record<string, string>,
) => callSimulator(sim, method, path, { body, token: auth ?? undefined, headers });

const project = () => `/v1/projects/${sim.projectId}`;
const advance = (seconds: number) => call('POST', '/_simulator/clock/advance', { seconds }, null);
const configure = (config: Record<string, unknown>) => call('PUT', '/_simulator/jobs/config', config, null);
const DAY_MS = 86_400_000;

/** Resources of one type, handed out once each so that tests do not share them. */
let pool: InventoryResource[];
const nextResource = (): InventoryResource => {
  const resource = pool.shift();
  if (!resource) throw new Error('out of test resources');
  return resource;
};
const vaultIn = (region: string) => {
  const vault = Object.values(sim.ctx.state.vaults).find((v) => v.region === region);
  if (!vault) throw new Error(`no vault in ${region}`);
  return vault.id;
};

async function takeSnapshot(resource: InventoryResource, retentionDays = 7): Promise<string> {
  const reply = await call('POST', `${project()}/resources/${resource.id}/take-snapshot`, {
    vaultId: vaultIn(resource.region),
    retentionDays,
  });
  expect(reply.status).toBe(202);
  return JobStarted.parse(reply.body).jobId;
}

async function backupJob(jobId: string): Promise<BackupJob> {
  const reply = await call('GET', `${project()}/backup-jobs/${jobId}`);
  expect(reply.status).toBe(200);
  return BackupJobBody.parse(reply.body).job;
}

async function restoreJob(jobId: string): Promise<RestoreJob> {
  const reply = await call('GET', `${project()}/restore-jobs/${jobId}`);
  expect(reply.status).toBe(200);
  return RestoreJobBody.parse(reply.body).job;
}

async function resourceOf(id: string): Promise<InventoryResource> {
  return ResourceBody.parse((await call('GET', `${project()}/resources/${id}`)).body).resource;
}

async function everyJob(): Promise<{ backupJobs: BackupJob[]; restoreJobs: RestoreJob[] }> {
  const reply = await call('GET', '/_simulator/jobs', undefined, null);
  expect(reply.status).toBe(200);
  const body = reply.body as { backupJobs: unknown[]; restoreJobs: unknown[] };
  return {
    backupJobs: body.backupJobs.map((j) => BackupJob.parse(j)),
    restoreJobs: body.restoreJobs.map((j) => RestoreJob.parse(j)),
  };
}

simulatorForSuite({}, (started, bootstrap) => {
  [sim, token] = [started, bootstrap];
  pool = [...resourcesOfType(sim.ctx.state, 'PA_VM'), ...resourcesOfType(sim.ctx.state, 'PC_VM')];
});

// Every test starts with the default timing, no configured outcome, no job still running and a fresh token.
beforeEach(async () => {
  await advance(3600);
  token = await tokenFor(sim);
  await configure({ backupSeconds: 30, restoreSeconds: 45, maxConcurrentBackups: 5, outcomes: {} });
});

describe('take-snapshot and the backup job lifecycle', () => {
  test('pending, running, then completed with a snapshot that expires after retentionDays', async () => {
    const resource = nextResource();
    const before = await resourceOf(resource.id);
    const jobId = await takeSnapshot(resource, 10);

    const pending = await backupJob(jobId);
    expect(pending.jobExecutionDetails.status).toBe('JOB_PENDING');
    expect(pending.jobExecutionDetails.startTime).toBeUndefined();
    expect(pending.jobExecutionDetails.expectedStartTime).toBeDefined();
    expect(pending.backupType).toBe('ON_DEMAND');
    expect(pending.resourceDetails?.id).toBe(resource.id);
    expect(pending.resourceDetails?.providerResourceId).toBe(resource.providerResourceId);
    expect(pending.vault?.id).toBe(vaultIn(resource.region));
    expect(pending.snapshotDetails).toBeUndefined();

    await advance(5);
    const running = await backupJob(jobId);
    expect(running.jobExecutionDetails.status).toBe('JOB_RUNNING');
    expect(running.jobExecutionDetails.startTime).toBe(running.jobExecutionDetails.expectedStartTime);
    expect(running.jobExecutionDetails.endTime).toBeUndefined();

    await advance(30);
    const done = await backupJob(jobId);
    const details = done.jobExecutionDetails;
    expect(details.status).toBe('JOB_COMPLETED');
    expect(details.endTime).toBeDefined();
    expect(details.durationSeconds).toBe(28);
    expect(details.errorCode).toBeUndefined();
    const pointInTime = done.snapshotDetails?.pointInTime ?? '';
    expect(pointInTime).toBe(details.startTime);
    expect(Date.parse(done.snapshotDetails?.expirationTime ?? '')).toBe(Date.parse(pointInTime) + 10 * DAY_MS);

    const snapshotReply = await call('GET', `${project()}/snapshots/${done.snapshotDetails?.id}`);
    expect(snapshotReply.status).toBe(200);
    const snapshot = SnapshotBody.parse(snapshotReply.body).snapshot;
    expect(snapshot).toMatchObject({ resourceId: resource.id, jobId, vaultId: vaultIn(resource.region), pointInTime });
    expect(snapshot.expirationTime).toBe(done.snapshotDetails?.expirationTime);

    const after = await resourceOf(resource.id);
    expect(after.snapshotStorage.eonSnapshotCount).toBe((before.snapshotStorage.eonSnapshotCount ?? 0) + 1);
    expect(after.latestSnapshotTime).toBe(pointInTime);
    expect(after.oldestSnapshotTime).toBe(before.oldestSnapshotTime ?? pointInTime);
  });

  test('reaches each configured outcome', async () => {
    const [failed, partial, rejected, skipped] = [nextResource(), nextResource(), nextResource(), nextResource()];
    const outcomes = {
      [failed.id]: 'JOB_FAILED',
      [partial.id]: 'JOB_PARTIAL',
      [rejected.id]: 'JOB_REJECTED',
      [skipped.id]: 'JOB_SKIPPED',
    };
    expect((await configure({ outcomes })).status).toBe(200);
    const counts = new Map<string, number>();
    for (const r of [failed, partial, rejected, skipped]) {
      counts.set(r.id, (await resourceOf(r.id)).snapshotStorage.eonSnapshotCount ?? 0);
    }
    const ids = [await takeSnapshot(failed), await takeSnapshot(partial), await takeSnapshot(rejected)];
    ids.push(await takeSnapshot(skipped));
    const [failedId, partialId, rejectedId, skippedId] = ids as [string, string, string, string];

    // Refused jobs end as soon as they leave JOB_PENDING, without ever running.
    await advance(3);
    expect((await backupJob(failedId)).jobExecutionDetails.status).toBe('JOB_RUNNING');
    const rejectedJob = (await backupJob(rejectedId)).jobExecutionDetails;
    expect(rejectedJob.status).toBe('JOB_REJECTED');
    expect(rejectedJob.startTime).toBeUndefined();
    expect(rejectedJob.errorCode).toBe('INVALID_INPUT_PARAMETERS');
    expect(rejectedJob.statusMessage).toBeTruthy();
    const skippedJob = (await backupJob(skippedId)).jobExecutionDetails;
    expect(skippedJob.status).toBe('JOB_SKIPPED');
    expect(skippedJob.statusMessage).toBeTruthy();

    await advance(30);
    const failedJob = await backupJob(failedId);
    expect(failedJob.jobExecutionDetails.status).toBe('JOB_FAILED');
    expect(failedJob.jobExecutionDetails.errorCode).toBe('CLOUD_OPERATION_FAILED');
    expect(failedJob.jobExecutionDetails.statusMessage).toBeTruthy();
    expect(failedJob.snapshotDetails).toBeUndefined();
    const partialJob = await backupJob(partialId);
    expect(partialJob.jobExecutionDetails.status).toBe('JOB_PARTIAL');
    expect(partialJob.jobExecutionDetails.statusMessage).toBeTruthy();
    expect(partialJob.snapshotDetails?.id).toBeDefined();

    for (const r of [failed, rejected, skipped]) {
      expect((await resourceOf(r.id)).snapshotStorage.eonSnapshotCount).toBe(counts.get(r.id));
    }
    expect((await resourceOf(partial.id)).snapshotStorage.eonSnapshotCount).toBe((counts.get(partial.id) ?? 0) + 1);
  });

  test('refuses more simultaneous backups than the cap with 429 and Retry-After', async () => {
    await configure({ maxConcurrentBackups: 2, backupSeconds: 60 });
    const resource = nextResource();
    await takeSnapshot(resource);
    await takeSnapshot(resource);
    const before = (await everyJob()).backupJobs.length;
    const refused = await call('POST', `${project()}/resources/${resource.id}/take-snapshot`, {
      vaultId: vaultIn(resource.region),
      retentionDays: 1,
    });
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await everyJob()).backupJobs.length).toBe(before);
    await advance(retryAfter);
    await takeSnapshot(resource);
  });

  test('refuses bad calls: 400 naming the field, 404 resource, vault or project, 401, 403', async () => {
    const resource = nextResource();
    const path = `${project()}/resources/${resource.id}/take-snapshot`;
    const vaultId = vaultIn(resource.region);
    for (const [body, field] of [
      [{ vaultId }, 'body.retentionDays'],
      [{ vaultId, retentionDays: 0 }, 'body.retentionDays'],
      [{ retentionDays: 3 }, 'body.vaultId'],
    ] as const) {
      const reply = await call('POST', path, body);
      expect(reply.status).toBe(400);
      expect(errorOf(reply)).toContain(field);
    }
    const body = { vaultId, retentionDays: 3 };
    expect((await call('POST', `${project()}/resources/nope/take-snapshot`, body)).status).toBe(404);
    expect((await call('POST', path, { vaultId: 'no-such-vault', retentionDays: 3 })).status).toBe(404);
    const otherProject = `/v1/projects/00000000-0000-4000-8000-000000000000/resources/${resource.id}/take-snapshot`;
    expect((await call('POST', otherProject, body)).status).toBe(404);
    expect((await call('POST', path, body, null)).status).toBe(401);
    expect((await call('POST', path, body, await tokenFor(sim, ['inventory.view', 'jobs.view']))).status).toBe(403);
  });

  test('a backup that ends between settling and showing is shown running, never finished without its snapshot', async () => {
    const resource = nextResource();
    const jobId = await takeSnapshot(resource);
    const record = sim.ctx.state.backupJobs[jobId];
    if (!record) throw new Error(`no job ${jobId}`);
    // Settled a moment before the job's end, shown a moment after it: as a list of many jobs may be. The wall clock is
    // held still meanwhile: on a loaded machine, a millisecond passing between the two calls would end the job first.
    const wallClock = jest.spyOn(Date, 'now').mockReturnValue(Date.now());
    let unsettled;
    try {
      sim.ctx.state.clockOffsetMs += record.endAt - 1 - sim.ctx.clock.now();
      settleJobs(sim.ctx);
      sim.ctx.state.clockOffsetMs += 2;
      unsettled = backupJobView(sim.ctx, record);
    } finally {
      wallClock.mockRestore();
    }
    expect(unsettled.jobExecutionDetails.status).toBe('JOB_RUNNING');
    expect(unsettled.snapshotDetails).toBeUndefined();

    const settled = await backupJob(jobId);
    expect(settled.jobExecutionDetails.status).toBe('JOB_COMPLETED');
    expect(settled.snapshotDetails?.id).toBe(record.snapshotId);
    expect(settled.snapshotDetails?.id).toBeDefined();
  });

  test('starts a new job on every call: no idempotency', async () => {
    const resource = nextResource();
    const before = (await everyJob()).backupJobs.length;
    const first = await takeSnapshot(resource);
    const second = await takeSnapshot(resource);
    expect(first).not.toBe(second);
    const jobs = (await everyJob()).backupJobs;
    expect(jobs.length).toBe(before + 2);
    expect(jobs.filter((j) => j.resourceDetails?.id === resource.id && j.backupType === 'ON_DEMAND')).toHaveLength(2);
  });
});

describe('restores', () => {
  /** The next unused resource that has a snapshot, with one of them. */
  const withSnapshots = (): { resource: InventoryResource; snapshot: Snapshot } => {
    for (;;) {
      const resource = nextResource();
      const snapshot = Object.values(sim.ctx.state.snapshots).find((s) => s.resourceId === resource.id);
      if (snapshot) return { resource, snapshot };
    }
  };
  const restoreAccount = (allowed: boolean) => {
    const account = Object.values(sim.ctx.state.restoreAccounts).find(
      (a) => a.isRestoreAllowed === allowed && a.status === 'CONNECTED',
    );
    if (!account) throw new Error('no such restore account');
    return account;
  };
  const filesBody = (restoreAccountId: string) => ({
    destination: { bucketA: { bucketName: 'restore-target', prefix: 'drill/' } },
    files: [{ path: '/var/lib/app', isDirectory: true }],
    restoreAccountId,
  });
  const bucketBody = (restoreAccountId: string) => ({
    destination: { bucketA: { bucketName: 'restore-target' } },
    restoreAccountId,
  });
  const restorePath = (resource: InventoryResource, snapshot: Snapshot, kind: string) =>
    `${project()}/resources/${resource.id}/snapshots/${snapshot.id}/${kind}`;
  type RestoreKind = 'restore-files' | 'restore-bucket';
  const restoreBody = (kind: RestoreKind, restoreAccountId: string) =>
    kind === 'restore-files' ? filesBody(restoreAccountId) : bucketBody(restoreAccountId);
  /** A restore of the next resource's snapshot into an account that allows restores. */
  const restoreOfNext = (kind: RestoreKind) => {
    const { resource, snapshot } = withSnapshots();
    return call('POST', restorePath(resource, snapshot, kind), restoreBody(kind, restoreAccount(true).id));
  };

  test('restore-files runs a FILES job through its lifecycle', async () => {
    const { resource, snapshot } = withSnapshots();
    const account = restoreAccount(true);
    const reply = await call('POST', restorePath(resource, snapshot, 'restore-files'), filesBody(account.id));
    expect(reply.status).toBe(202);
    const { jobId } = JobStarted.parse(reply.body);
    const pending = await restoreJob(jobId);
    expect(pending.jobExecutionDetails.status).toBe('JOB_PENDING');
    expect(pending.restoreType).toBe('FILES');
    expect(pending.destinationDetails).toEqual({
      restoreAccountId: account.id,
      providerAccountId: account.providerAccountId,
      cloudProvider: account.restoreAccountAttributes.cloudProvider,
      region: resource.region,
    });
    expect(pending.resourceDetails?.id).toBe(resource.id);
    expect(pending.snapshotDetails).toEqual({
      id: snapshot.id,
      pointInTime: snapshot.pointInTime,
      expirationTime: snapshot.expirationTime,
    });
    expect(pending.vault?.id).toBe(snapshot.vaultId);
    await advance(10);
    expect((await restoreJob(jobId)).jobExecutionDetails.status).toBe('JOB_RUNNING');
    await advance(40);
    const done = (await restoreJob(jobId)).jobExecutionDetails;
    expect(done.status).toBe('JOB_COMPLETED');
    expect(done.durationSeconds).toBe(43);
  });

  test('restore jobs reach configured outcomes, and a restore account that refuses restores rejects them', async () => {
    const { resource, snapshot } = withSnapshots();
    await configure({ outcomes: { [resource.id]: 'JOB_FAILED' } });
    const failed = await call(
      'POST',
      restorePath(resource, snapshot, 'restore-files'),
      filesBody(restoreAccount(true).id),
    );
    const other = withSnapshots();
    const locked = await call(
      'POST',
      restorePath(other.resource, other.snapshot, 'restore-bucket'),
      bucketBody(restoreAccount(false).id),
    );
    expect([failed.status, locked.status]).toEqual([202, 202]);
    await advance(60);
    const failedJob = (await restoreJob(JobStarted.parse(failed.body).jobId)).jobExecutionDetails;
    expect(failedJob).toMatchObject({ status: 'JOB_FAILED', errorCode: 'CLOUD_OPERATION_FAILED' });
    const lockedJob = (await restoreJob(JobStarted.parse(locked.body).jobId)).jobExecutionDetails;
    expect(lockedJob.status).toBe('JOB_REJECTED');
    expect(lockedJob.statusMessage).toContain('does not accept restores');
  });

  test('restore-bucket without a covering policy starts a BUCKET job at once', async () => {
    const reply = await restoreOfNext('restore-bucket');
    expect(reply.status).toBe(202);
    expect((await restoreJob(JobStarted.parse(reply.body).jobId)).restoreType).toBe('BUCKET');
  });

  test('restore-bucket under a policy needs an approved request, then runs once', async () => {
    const policy = await call(
      'POST',
      '/_simulator/policies',
      {
        operations: ['MPA_OPERATION_RESTORE_RESOURCE'],
        requiredApprovals: 1,
        approvalWindowHours: 24,
        executionWindowHours: 24,
      },
      null,
    );
    expect(policy.status).toBe(201);
    try {
      const { resource, snapshot } = withSnapshots();
      const path = restorePath(resource, snapshot, 'restore-bucket');
      const body = bucketBody(restoreAccount(true).id);
      const before = (await everyJob()).restoreJobs.length;
      const created = await call('POST', path, body);
      expect(created.status).toBe(201);
      const request = ActionRequestBody.parse(created.body).actionApprovalRequest;
      expect(request).toMatchObject({ status: 'CREATED', operation: 'MPA_OPERATION_RESTORE_RESOURCE' });
      expect((await everyJob()).restoreJobs.length).toBe(before);

      const header = { 'x-action-approval-request-id': request.id };
      expect((await call('POST', path, body, token, header)).status).toBe(409);
      const submit = `${project()}/action-approvals/my-requests/${request.id}/submit`;
      expect((await call('POST', submit, { action: 'CONFIRM' })).status).toBe(200);
      expect((await call('POST', `/_simulator/action-requests/${request.id}/approve`, {}, null)).status).toBe(200);

      // Other parameters, or another caller, cannot use the approval.
      const changed = { ...body, destination: { bucketA: { bucketName: 'elsewhere' } } };
      expect((await call('POST', path, changed, token, header)).status).toBe(409);
      const stranger = await tokenFor(sim, ['resources.restore']);
      expect((await call('POST', path, body, stranger, header)).status).toBe(403);

      const executed = await call('POST', path, body, token, header);
      expect(executed.status).toBe(202);
      expect((await restoreJob(JobStarted.parse(executed.body).jobId)).restoreType).toBe('BUCKET');
      const read = await call('GET', `/_simulator/action-requests/${request.id}`, undefined, null);
      expect((read.body as { actionApprovalRequest: { status: string } }).actionApprovalRequest.status).toBe(
        'EXECUTED',
      );
      expect((await call('POST', path, body, token, header)).status).toBe(409);
      expect((await everyJob()).restoreJobs.length).toBe(before + 1);
      const unknown = { 'x-action-approval-request-id': '00000000-0000-4000-8000-000000000000' };
      expect((await call('POST', path, body, token, unknown)).status).toBe(404);
    } finally {
      await call('DELETE', '/_simulator/policies', undefined, null);
    }
  });

  test('restore-files is never protected', async () => {
    await call(
      'POST',
      '/_simulator/policies',
      {
        operations: ['MPA_OPERATION_RESTORE_RESOURCE'],
        requiredApprovals: 1,
        approvalWindowHours: 1,
        executionWindowHours: 1,
      },
      null,
    );
    try {
      const reply = await restoreOfNext('restore-files');
      expect(reply.status).toBe(202);
    } finally {
      await call('DELETE', '/_simulator/policies', undefined, null);
    }
  });

  test.each<RestoreKind>(['restore-files', 'restore-bucket'])(
    '%s refuses: 404 targets, 400 bodies, 401, 403',
    async (kind) => {
      const { resource, snapshot } = withSnapshots();
      const other = withSnapshots();
      const body = restoreBody(kind, restoreAccount(true).id);
      const post = (path: string, b: unknown = body, auth: string | null = token) => call('POST', path, b, auth);
      expect((await post(restorePath(resource, snapshot, kind))).status).toBe(202);
      const notFound = [
        `/v1/projects/00000000-0000-4000-8000-000000000000/resources/${resource.id}/snapshots/${snapshot.id}/${kind}`,
        `${project()}/resources/no-such-resource/snapshots/${snapshot.id}/${kind}`,
        `${project()}/resources/${resource.id}/snapshots/no-such-snapshot/${kind}`,
        restorePath(resource, other.snapshot, kind),
      ];
      for (const path of notFound) expect({ path, status: (await post(path)).status }).toEqual({ path, status: 404 });
      const noAccount = await post(restorePath(resource, snapshot, kind), {
        ...body,
        restoreAccountId: 'no-such-account',
      });
      expect(noAccount.status).toBe(404);

      const bad: [unknown, string][] = [
        [{ ...body, destination: undefined }, 'body.destination'],
        [{ ...body, restoreAccountId: undefined }, 'body.restoreAccountId'],
      ];
      if (kind === 'restore-files') {
        bad.push(
          [{ ...body, files: [] }, 'body.files'],
          [{ ...body, files: [{ path: 'rel', isDirectory: false }] }, 'body.files.0.path'],
        );
      }
      for (const [b, field] of bad) {
        const reply = await post(restorePath(resource, snapshot, kind), b);
        expect(reply.status).toBe(400);
        expect(errorOf(reply)).toContain(field);
      }
      expect((await post(restorePath(resource, snapshot, kind), body, null)).status).toBe(401);
      const lacking = await tokenFor(sim, [kind === 'restore-files' ? 'resources.restore' : 'files.restore']);
      expect((await post(restorePath(resource, snapshot, kind), body, lacking)).status).toBe(403);
    },
  );
});

describe('job reading and listing', () => {
  type AnyJob = BackupJob | RestoreJob;
  const id = (j: AnyJob) => j.jobExecutionDetails.jobId;
  const timeOf = (j: AnyJob, field: string) =>
    (j.jobExecutionDetails as Record<string, unknown>)[field] as string | undefined;
  // The comparison itself (missing times last, the ID breaking ties) is checked in filters.test.ts.
  const sortedBy = <T extends AnyJob>(jobs: T[], sorts: { field: string; order: 'ASC' | 'DESC' }[]) =>
    sortItems(jobs, sorts, timeOf, id);

  async function listJobs(kind: 'backup-jobs' | 'restore-jobs', body: unknown, query = '?pageSize=5000') {
    const reply = await call('POST', `${project()}/${kind}${query}`, body);
    expect(reply.status).toBe(200);
    return kind === 'backup-jobs' ? BackupJobPage.parse(reply.body) : RestoreJobPage.parse(reply.body);
  }

  async function walk(kind: 'backup-jobs' | 'restore-jobs', body: unknown, pageSize: number): Promise<string[]> {
    const pages = await allPages(pageSize, (query) => listJobs(kind, body, query));
    for (const page of pages) expect(page.jobs.length).toBeLessThanOrEqual(pageSize);
    return pages.flatMap((page) => page.jobs.map(id));
  }

  test('GET a job: 404 unknown, 401 without token, 403 without jobs.view', async () => {
    const resource = nextResource();
    const jobId = await takeSnapshot(resource);
    expect((await backupJob(jobId)).jobExecutionDetails.jobId).toBe(jobId);
    expect((await call('GET', `${project()}/backup-jobs/no-such-job`)).status).toBe(404);
    expect((await call('GET', `${project()}/restore-jobs/no-such-job`)).status).toBe(404);
    expect((await call('GET', `${project()}/restore-jobs/${jobId}`)).status).toBe(404);
    expect((await call('GET', `/v1/projects/00000000-0000-4000-8000-000000000000/backup-jobs/${jobId}`)).status).toBe(
      404,
    );
    expect((await call('GET', `${project()}/backup-jobs/${jobId}`, undefined, null)).status).toBe(401);
    const viewer = await tokenFor(sim, ['inventory.view']);
    expect((await call('GET', `${project()}/backup-jobs/${jobId}`, undefined, viewer)).status).toBe(403);
    expect((await call('POST', `${project()}/restore-jobs`, {}, viewer)).status).toBe(403);
    expect((await call('POST', `${project()}/backup-jobs`, {}, null)).status).toBe(401);
  });

  test('backup job lists: every filter and sort agree with a brute-force computation, and page exactly', async () => {
    // A mix of statuses that stays put while the test lists: finished jobs, a long-running one, a failed one.
    const [a, b, c] = [nextResource(), nextResource(), nextResource()];
    await configure({ outcomes: { [c.id]: 'JOB_FAILED' } });
    await takeSnapshot(a);
    await takeSnapshot(c);
    await advance(40);
    await takeSnapshot(a);
    await advance(5);
    await configure({ backupSeconds: 100_000 });
    await takeSnapshot(b);
    // Past its pending phase: a job is pending for 2 s of real time at most, too short to list reliably.
    await advance(3);

    const { backupJobs: all } = await everyJob();
    const def = await listJobs('backup-jobs', {});
    expect(def.totalCount).toBe(all.length);
    expect(def.jobs.map(id)).toEqual(sortedBy(all, [{ field: 'createdTime', order: 'DESC' }]).map(id));
    const statuses = new Set(all.map((j) => j.jobExecutionDetails.status));
    for (const s of ['JOB_COMPLETED', 'JOB_RUNNING', 'JOB_FAILED']) expect(statuses.has(s)).toBe(true);

    const some = all[7] as BackupJob;
    const snapshotId = some.snapshotDetails?.id ?? '';
    const pri = a.providerResourceId;
    const cases: [string, unknown, (j: BackupJob) => boolean][] = [
      ['jobId.in', { jobId: { in: [id(some)] } }, (j) => id(j) === id(some)],
      ['jobId.notIn', { jobId: { notIn: [id(some)] } }, (j) => id(j) !== id(some)],
      ['snapshotId.in', { snapshotId: { in: [snapshotId] } }, (j) => j.snapshotDetails?.id === snapshotId],
      ['snapshotId.notIn', { snapshotId: { notIn: [snapshotId] } }, (j) => j.snapshotDetails?.id !== snapshotId],
      [
        'status.in',
        { status: { in: ['JOB_RUNNING', 'JOB_FAILED'] } },
        (j) => ['JOB_RUNNING', 'JOB_FAILED'].includes(j.jobExecutionDetails.status),
      ],
      [
        'status.notIn',
        { status: { notIn: ['JOB_COMPLETED'] } },
        (j) => j.jobExecutionDetails.status !== 'JOB_COMPLETED',
      ],
      [
        'providerResourceId.in',
        { providerResourceId: { in: [pri] } },
        (j) => j.resourceDetails?.providerResourceId === pri,
      ],
      [
        'providerResourceId.notIn',
        { providerResourceId: { notIn: [pri] } },
        (j) => j.resourceDetails?.providerResourceId !== pri,
      ],
    ];
    const byCreated = [{ field: 'createdTime', order: 'DESC' as const }];
    for (const [name, filters, predicate] of cases) {
      const page = await listJobs('backup-jobs', { filters });
      const expected = sortedBy(all.filter(predicate), byCreated).map(id);
      expect({ name, ids: page.jobs.map(id) }).toEqual({ name, ids: expected });
      expect({ name, selective: expected.length > 0 && expected.length < all.length }).toEqual({
        name,
        selective: true,
      });
    }
    for (const field of JOB_SORT_FIELDS) {
      for (const order of ['ASC', 'DESC'] as const) {
        const sorts = [{ field, order }];
        const page = await listJobs('backup-jobs', { sorts });
        expect({ field, order, ids: page.jobs.map(id) }).toEqual({ field, order, ids: sortedBy(all, sorts).map(id) });
      }
    }
    const sorts = [{ field: 'endTime', order: 'DESC' as const }];
    expect(await walk('backup-jobs', { sorts }, 7)).toEqual(sortedBy(all, sorts).map(id));
    const fiftyOnly = await listJobs('backup-jobs', {}, '');
    expect(fiftyOnly.jobs).toHaveLength(50);
  });

  test('restore job lists: filters, sorts and paging', async () => {
    const account = Object.values(sim.ctx.state.restoreAccounts).find((x) => x.isRestoreAllowed) ?? { id: '' };
    const restore = async (kind: 'restore-bucket' | 'restore-files') => {
      let snapshot: Snapshot | undefined;
      let resource: InventoryResource;
      do {
        resource = nextResource();
        snapshot = Object.values(sim.ctx.state.snapshots).find((s) => s.resourceId === resource.id);
      } while (!snapshot);
      const path = `${project()}/resources/${resource.id}/snapshots/${snapshot.id}/${kind}`;
      const files = kind === 'restore-files' ? { files: [{ path: '/etc', isDirectory: true }] } : {};
      const reply = await call('POST', path, { destination: {}, restoreAccountId: account.id, ...files });
      expect(reply.status).toBe(202);
      return JobStarted.parse(reply.body).jobId;
    };
    for (let i = 0; i < 8; i++) {
      await restore(i % 2 === 0 ? 'restore-bucket' : 'restore-files');
      await advance(i * 7);
    }
    // One still running while the lists are read (past its pending phase, which lasts 2 s of real time at most).
    await configure({ restoreSeconds: 100_000 });
    const runningId = await restore('restore-files');
    await advance(3);

    const { restoreJobs: all } = await everyJob();
    expect(all.length).toBeGreaterThan(8);
    for (const field of JOB_SORT_FIELDS) {
      for (const order of ['ASC', 'DESC'] as const) {
        const page = await listJobs('restore-jobs', { sorts: [{ field, order }] });
        expect(page.jobs.map(id)).toEqual(sortedBy(all, [{ field, order }]).map(id));
      }
    }
    const snap = all[2]?.snapshotDetails?.id ?? '';
    const bySnapshot = await listJobs('restore-jobs', { filters: { snapshotId: { in: [snap] } } });
    expect(bySnapshot.jobs.map(id).sort()).toEqual(
      all
        .filter((j) => j.snapshotDetails?.id === snap)
        .map(id)
        .sort(),
    );
    const running = await listJobs('restore-jobs', { filters: { status: { in: ['JOB_RUNNING', 'JOB_PENDING'] } } });
    expect(running.jobs.map(id)).toEqual([runningId]);
    expect(all.filter((j) => j.jobExecutionDetails.status === 'JOB_RUNNING').map(id)).toEqual([runningId]);
    const notDone = await listJobs('restore-jobs', { filters: { status: { notIn: ['JOB_COMPLETED'] } } });
    const expected = all.filter((j) => j.jobExecutionDetails.status !== 'JOB_COMPLETED').map(id);
    expect(notDone.jobs.map(id).sort()).toEqual(expected.sort());
    expect(expected.length).toBeGreaterThan(1);
    const sorts = [{ field: 'startTime', order: 'ASC' as const }];
    expect(await walk('restore-jobs', { sorts }, 2)).toEqual(sortedBy(all, sorts).map(id));
  });

  test('job lists refuse bad requests with 400 naming the field', async () => {
    for (const [body, query, field] of [
      [{ filters: { status: { in: ['JOB_UNSPECIFIED'] } } }, '', 'body.filters.status.in.0'],
      [{ sorts: [{ field: 'pointInTime', order: 'ASC' }] }, '', 'body.sorts.0.field'],
      [{}, '?pageSize=0', 'query.pageSize'],
    ] as const) {
      for (const kind of ['backup-jobs', 'restore-jobs']) {
        const reply = await call('POST', `${project()}/${kind}${query}`, body);
        expect(reply.status).toBe(400);
        expect(errorOf(reply)).toContain(field);
      }
    }
  });
});

describe('control routes', () => {
  test('PUT /_simulator/jobs/config returns the whole config and validates it', async () => {
    const reply = await configure({ backupSeconds: 12, maxConcurrentBackups: 3, outcomes: { x: 'JOB_SKIPPED' } });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      backupSeconds: 12,
      restoreSeconds: 45,
      querySeconds: sim.ctx.state.jobsConfig.querySeconds,
      maxConcurrentBackups: 3,
      outcomes: { x: 'JOB_SKIPPED' },
    });
    for (const [body, field] of [
      [{ backupSeconds: -1 }, 'body.backupSeconds'],
      [{ maxConcurrentBackups: 1.5 }, 'body.maxConcurrentBackups'],
      [{ outcomes: { x: 'JOB_COMPLETED' } }, 'body.outcomes.x'],
    ] as const) {
      const bad = await configure(body);
      expect(bad.status).toBe(400);
      expect(errorOf(bad)).toContain(field);
    }
  });

  test('GET /_simulator/jobs lists every job ever created, seeded ones included', async () => {
    const { backupJobs, restoreJobs } = await everyJob();
    expect(backupJobs.length).toBe(Object.keys(sim.ctx.state.backupJobs).length);
    expect(restoreJobs.length).toBe(Object.keys(sim.ctx.state.restoreJobs).length);
    expect(backupJobs.some((j) => j.backupType === 'SCHEDULED')).toBe(true);
  });
});
