import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { BackupServiceClient, closeHttpPools } from '../../api';
import { FailureType } from '../../contracts';
import { SimulatorControlClient } from '../../simulator/control-client';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { cleanPointActivities } from '../../runbooks/clean-point/activities';
import type { CleanCheck } from '../../runbooks/clean-point/check';
import type { CheckProgress } from '../../runbooks/clean-point/progress';

// A point's check under retries, on the in-process simulator: what it checkpoints, and what a retry starts again.
let sim: RunningSimulator;
let control: SimulatorControlClient;
let input: { snapshotId: string; check: CleanCheck; restoreAccountId: string };

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 5 });
  control = new SimulatorControlClient(sim.baseUrl);
  await control.jobsConfig({ querySeconds: 0 });
  const { databases } = await control.state();
  const database = databases.find((d) => d.tables.includes('customers') && d.snapshotIds.length > 0);
  const snapshotId = database?.snapshotIds.at(-1);
  const snapshot = snapshotId === undefined ? undefined : sim.ctx.state.snapshots[snapshotId];
  const account = Object.values(sim.ctx.state.restoreAccounts).find((a) => a.name === 'restore-pa');
  if (!database || !snapshotId || !snapshot || !account)
    throw new Error('the seeded simulator has no queryable snapshot');
  const region =
    (snapshot.vaultId ? sim.ctx.state.vaults[snapshot.vaultId]?.region : undefined) ??
    sim.ctx.state.resources[snapshot.resourceId]?.resource.region;
  input = {
    snapshotId,
    restoreAccountId: account.id,
    check: {
      name: 'customers present',
      databaseName: database.databaseName,
      destination: { bucketA: { bucketName: `query-results-${region ?? 'unknown'}` } },
      queries: [{ name: 'customers', sql: 'SELECT count(*) FROM customers', expect: 'value >= 1' }],
    },
  };
});

afterAll(async () => {
  await sim.close();
  await closeHttpPools();
});

const checkPoint = () =>
  cleanPointActivities({
    client: new BackupServiceClient({ baseUrl: sim.baseUrl, projectId: sim.projectId, credentials: sim }),
  }).checkRecoveryPoint(input);

const queriesStarted = async () => (await control.state()).counts.queries;

/** Runs one attempt of the check from `details`, and the details it heartbeated last. */
async function attempt(attemptNumber: number, details?: CheckProgress) {
  // The failed attempt is expected: no warning for it.
  const env = new MockActivityEnvironment(
    { attempt: attemptNumber, heartbeatDetails: details },
    { logger: new DefaultLogger('ERROR') },
  );
  let last: CheckProgress | undefined;
  env.on('heartbeat', (d: CheckProgress) => (last = d));
  const outcome = await env.run(checkPoint).catch((err: unknown) => err);
  return { outcome, last };
}

test('a status read answered 429 leaves the started query checkpointed, and the retry reads it without a new start', async () => {
  const before = await queriesStarted();
  await control.faults({
    rate: 1,
    kinds: ['429'],
    retryAfterSeconds: 3,
    method: 'GET',
    pathPrefix: `/v1/projects/${sim.projectId}/queries/`,
    times: 1,
  });
  const first = await attempt(1);
  expect(first.outcome).toBeInstanceOf(ApplicationFailure);
  expect(first.outcome).toMatchObject({ type: FailureType.TooManyRequests, nextRetryDelay: '3s' });
  const queryId = first.last?.running?.queryId;
  expect(first.last).toEqual({ answered: [], running: { index: 0, name: 'customers', queryId } });
  expect(await queriesStarted()).toBe(before + 1);

  const second = await attempt(2, first.last);
  expect(second.outcome).toMatchObject({ verdict: 'pass', queries: [{ name: 'customers', queryId, met: true }] });
  expect(await queriesStarted()).toBe(before + 1);
});

test('a checkpointed query the service answers 404 for is started again', async () => {
  const before = await queriesStarted();
  const forgotten = { answered: [], running: { index: 0, name: 'customers', queryId: 'query-the-service-forgot' } };
  const { outcome, last } = await attempt(2, forgotten);
  expect(outcome).toMatchObject({ verdict: 'pass', queries: [{ name: 'customers', met: true }] });
  const queryId = (outcome as { queries: { queryId: string }[] }).queries[0]?.queryId;
  expect(queryId).not.toBe('query-the-service-forgot');
  expect(last?.answered.map((q) => q.queryId)).toEqual([queryId]);
  expect(await queriesStarted()).toBe(before + 1);
});
