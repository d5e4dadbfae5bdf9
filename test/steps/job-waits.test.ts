import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { BackupServiceClient, closeHttpPools } from '../../api';
import { FailureType } from '../../contracts';
import { SimulatorControlClient } from '../../simulator/control-client';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { jobActivities } from '../../steps/jobs';
import { objectStoreBackup } from '../helpers/seeded-backup';

// A job wait looks on inside its attempt while the job is young, and leaves older jobs to the retries' schedule.
let sim: RunningSimulator;
let control: SimulatorControlClient;
let client: BackupServiceClient;
let backup: () => Promise<string>;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 5 });
  control = new SimulatorControlClient(sim.baseUrl);
  client = new BackupServiceClient({ baseUrl: sim.baseUrl, projectId: sim.projectId, credentials: sim });
  backup = await objectStoreBackup(client);
});

const check = (jobId: string) => jobActivities({ client }).checkBackupJob(jobId);

afterAll(async () => {
  await sim.close();
  await closeHttpPools();
});

test('a young job is looked at again in the same attempt, with heartbeats, until it ends', async () => {
  await control.jobsConfig({ backupSeconds: 1, outcomes: {} });
  const jobId = await backup();
  const env = new MockActivityEnvironment({ attempt: 1 });
  let heartbeats = 0;
  env.on('heartbeat', () => (heartbeats += 1));
  const summary = await env.run(check, jobId);
  expect(summary).toMatchObject({ jobId, status: 'JOB_COMPLETED' });
  expect(heartbeats).toBeGreaterThan(0);
});

test('an older job is left to the next retry, at the gap its age asks for', async () => {
  await control.jobsConfig({ backupSeconds: 600, outcomes: {} });
  const jobId = await backup();
  await control.advanceClock(40);
  const env = new MockActivityEnvironment({ attempt: 1 });
  let heartbeats = 0;
  env.on('heartbeat', () => (heartbeats += 1));
  const failure = await env.run(check, jobId).catch((err: unknown) => err);
  expect(failure).toBeInstanceOf(ApplicationFailure);
  expect(failure).toMatchObject({ type: FailureType.NotYet });
  // A tenth of its age (about 40 s on the service's clock): longer than any gap waited inside an attempt.
  expect((failure as ApplicationFailure).nextRetryDelay).toBeGreaterThanOrEqual(3_500);
  expect(heartbeats).toBe(0);
});

test('a wait cancelled while it looks on stops at once', async () => {
  await control.jobsConfig({ backupSeconds: 600, outcomes: {} });
  const jobId = await backup();
  const env = new MockActivityEnvironment({ attempt: 1 });
  const waiting = env.run(check, jobId).catch((err: unknown) => err);
  await new Promise((resolve) => setTimeout(resolve, 600));
  env.cancel();
  expect(await waiting).toBeInstanceOf(CancelledFailure);
});
