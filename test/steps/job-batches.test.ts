import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { BackupServiceClient, closeHttpPools } from '../../api';
import { FailureType } from '../../contracts';
import { MIN_JOB_POLL_MS } from '../../runtime/poll-delays';
import { SimulatorControlClient } from '../../simulator/control-client';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import {
  JOB_IDS_PER_LIST,
  jobBatchActivities,
  lookGapMs,
  type JobsLook,
  type LookAtJobsInput,
} from '../../steps/job-batches';
import { jobActivities } from '../../steps/jobs';
import { objectStoreBackup } from '../helpers/seeded-backup';

// Many jobs looked at with the paged job list, on the simulator: one call per 50 jobs, the per-job GET as fallback.
let sim: RunningSimulator;
let control: SimulatorControlClient;
let client: BackupServiceClient;
let backup: () => Promise<string>;
/** Calls the client made, by endpoint template (`POST /v1/projects/{id}/backup-jobs`, …). */
const calls = new Map<string, number>();
const LIST = 'POST /v1/projects/{id}/backup-jobs';
const GET = 'GET /v1/projects/{id}/backup-jobs/{id}';

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 5 });
  control = new SimulatorControlClient(sim.baseUrl);
  client = new BackupServiceClient({
    baseUrl: sim.baseUrl,
    projectId: sim.projectId,
    credentials: sim,
    onCall: ({ endpoint }) => calls.set(endpoint, (calls.get(endpoint) ?? 0) + 1),
  });
  backup = await objectStoreBackup(client);
  await control.jobsConfig({ backupSeconds: 600, maxConcurrentBackups: 200, outcomes: {} });
});

afterAll(async () => {
  await sim.close();
  await closeHttpPools();
});

beforeEach(() => calls.clear());

/** One attempt of the look, as Temporal runs it. */
function look(input: LookAtJobsInput, attempt = 1): Promise<JobsLook> {
  const activities = jobBatchActivities({ client });
  return new MockActivityEnvironment({ attempt }).run((i: LookAtJobsInput) => activities.lookAtJobs(i), input);
}

async function backups(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) ids.push(await backup());
  calls.clear();
  return ids;
}

test('sixty running jobs take two list calls and no GET; "not yet" asks for the youngest job\'s gap', async () => {
  const jobIds = await backups(60);
  // Thirty seconds old: looks 3 s apart, left to the retries (a younger job is looked at again in the attempt).
  await control.advanceClock(30);
  const failure = await look({ kind: 'backup', jobIds }).catch((err: unknown) => err);
  expect(failure).toBeInstanceOf(ApplicationFailure);
  expect(failure).toMatchObject({ type: FailureType.NotYet });
  expect((failure as ApplicationFailure).nextRetryDelay).toBeGreaterThanOrEqual(2_500);
  expect(Object.fromEntries(calls)).toEqual({ [LIST]: Math.ceil(60 / JOB_IDS_PER_LIST) });
});

test('the jobs that ended come back with what the per-job look returns, and only those', async () => {
  const ended = await backups(3);
  await control.advanceClock(601);
  const running = await backups(2);
  const result = await look({ kind: 'backup', jobIds: [...running, ...ended] });
  expect(result.finished.map((f) => f.jobId).sort()).toEqual([...ended].sort());
  expect(result.calls).toEqual({ listed: 1, fetched: 0 });
  expect(Object.fromEntries(calls)).toEqual({ [LIST]: 1 });
  const perJobActivities = jobActivities({ client });
  const check = (jobId: string) => perJobActivities.checkBackupJob(jobId);
  for (const found of result.finished) {
    const perJob = await new MockActivityEnvironment({ attempt: 1 }).run(check, found.jobId);
    expect(found).toEqual({ jobId: found.jobId, summary: perJob });
  }
});

test('a job the list does not return is fetched alone; one that does not exist fails by itself', async () => {
  const [ended] = await backups(1);
  await control.advanceClock(601);
  if (!ended) throw new Error('no backup started');
  const result = await look({ kind: 'backup', jobIds: [ended, 'no-such-job'] });
  expect(result.calls).toEqual({ listed: 1, fetched: 1 });
  expect(Object.fromEntries(calls)).toEqual({ [LIST]: 1, [GET]: 1 });
  const [found, missing] = result.finished;
  expect(found && 'summary' in found && [found.jobId, found.summary.status]).toEqual([ended, 'JOB_COMPLETED']);
  expect(missing && 'failure' in missing && [missing.jobId, missing.failure.type]).toEqual([
    'no-such-job',
    FailureType.NotFound,
  ]);
  expect(result.finished).toHaveLength(2);
});

test('a first attempt told to wait longer than a second makes no call and asks for that gap', async () => {
  const jobIds = await backups(1);
  const failure = await look({ kind: 'backup', jobIds, firstLookInMs: 5_000 }).catch((err: unknown) => err);
  expect(failure).toMatchObject({ type: FailureType.NotYet, nextRetryDelay: 5_000 });
  expect(calls.size).toBe(0);
  // Its retry looks.
  await control.advanceClock(30);
  await expect(look({ kind: 'backup', jobIds, firstLookInMs: 5_000 }, 2)).rejects.toMatchObject({
    type: FailureType.NotYet,
  });
  expect(Object.fromEntries(calls)).toEqual({ [LIST]: 1 });
});

test('a young job is looked at again in the same attempt, with heartbeats, until it ends', async () => {
  await control.jobsConfig({ backupSeconds: 1 });
  try {
    const jobIds = await backups(2);
    const env = new MockActivityEnvironment({ attempt: 1 });
    let heartbeats = 0;
    env.on('heartbeat', () => (heartbeats += 1));
    const activities = jobBatchActivities({ client });
    const input: LookAtJobsInput = { kind: 'backup', jobIds, firstLookInMs: MIN_JOB_POLL_MS };
    const result: JobsLook = await env.run((i: LookAtJobsInput) => activities.lookAtJobs(i), input);
    expect(result.finished.map((f) => f.jobId).sort()).toEqual([...jobIds].sort());
    expect(heartbeats).toBeGreaterThan(1);
    // Every look of the attempt was one list call for both jobs.
    expect(Object.fromEntries(calls)).toEqual({ [LIST]: result.calls.listed });
    expect(result.calls.listed).toBeGreaterThan(1);
  } finally {
    await control.jobsConfig({ backupSeconds: 600 });
  }
});

test('a service that refuses the filter is asked job by job, and not asked to list again for a while', async () => {
  const jobIds = await backups(2);
  // A service in front of the simulator whose job list refuses the body (400), as one without the jobId filter would.
  const refusing = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'POST' && /\/backup-jobs(\?|$)/.test(req.url ?? '')) {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"unknown filter: jobId"}');
        return;
      }
      const answer = await fetch(`${sim.baseUrl}${req.url ?? ''}`, {
        method: req.method,
        headers: Object.fromEntries(
          Object.entries(req.headers).flatMap(([k, v]) => (typeof v === 'string' && k !== 'host' ? [[k, v]] : [])),
        ),
        ...(body ? { body } : {}),
      });
      res.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/json',
        // The service's clock, by which a job's age is read.
        date: answer.headers.get('date') ?? new Date().toUTCString(),
      });
      res.end(await answer.text());
    })();
  });
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
  const { port } = refusing.address() as AddressInfo;
  try {
    const picky = new BackupServiceClient({
      baseUrl: `http://127.0.0.1:${port}`,
      projectId: sim.projectId,
      credentials: sim,
      dialect: 'neutral',
      onCall: ({ endpoint }) => calls.set(endpoint, (calls.get(endpoint) ?? 0) + 1),
    });
    const activities = jobBatchActivities({ client: picky });
    await control.advanceClock(30);
    const input: LookAtJobsInput = { kind: 'backup', jobIds };
    const once = (): Promise<JobsLook> =>
      new MockActivityEnvironment({ attempt: 2 }).run((i: LookAtJobsInput) => activities.lookAtJobs(i), input);
    await expect(once()).rejects.toMatchObject({ type: FailureType.NotYet });
    expect(calls.get(LIST)).toBe(1);
    expect(calls.get(GET)).toBe(2);
    await control.advanceClock(601);
    const result = await once();
    expect(result.finished.map((f) => ('summary' in f ? f.summary.status : f.failure.type))).toEqual([
      'JOB_COMPLETED',
      'JOB_COMPLETED',
    ]);
    // The refusal is remembered: the second look went job by job at once.
    expect(result.calls).toEqual({ listed: 0, fetched: 2 });
    expect(calls.get(LIST)).toBe(1);
  } finally {
    await new Promise((resolve) => refusing.close(resolve));
  }
});

describe('the look at a job expected to end', () => {
  const created = 1_000_000;
  // The service's clock is 5 s ahead of ours, known within 40 ms.
  const offset = { lo: 4_980, hi: 5_020 };
  const at = (ageMs: number) => ({ ageMs, createdMs: created, offset, nowMs: created + ageMs - 5_000 });

  it('comes at the expected end, placed at the latest moment the clock bounds allow, when that is near', () => {
    // 2.6 s old, expected to take 3 s: its end is 400 ms away on the service, 420 ms at the latest on ours (+10 ms).
    expect(lookGapMs({ ...at(2_600), expectedMs: 3_000 })).toBe(430);
  });

  it('keeps the gap its age asks for when the end is far, unknown, past, or the clock too uncertain', () => {
    const byAge = lookGapMs(at(2_600));
    expect(byAge).toBe(260);
    expect(lookGapMs({ ...at(1_000), expectedMs: 3_000 })).toBe(250);
    expect(lookGapMs({ ...at(3_500), expectedMs: 3_000 })).toBe(350);
    expect(lookGapMs({ ...at(2_600), expectedMs: 3_000, offset: { lo: 4_500, hi: 5_500 } })).toBe(260);
    expect(lookGapMs({ ...at(2_600), expectedMs: 3_000, offset: undefined })).toBe(260);
  });

  it('never comes sooner than a quarter second after the look before, as no look does', () => {
    expect(lookGapMs({ ...at(2_900), expectedMs: 3_000 })).toBe(MIN_JOB_POLL_MS);
  });
});
