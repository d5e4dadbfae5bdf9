// `runbooks inputs <runbook> --example --discover` against a simulator started in-process (no Temporal): each input
// it fills is valid, names what the service has, and the service takes the call the runbook makes first with it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BackupServiceClient, closeHttpPools } from '../../api';
import { DISCOVERABLE, discoverInput } from '../../cli/discover-inputs';
import { validateRunbookInput, exampleInput } from '../../operator/runbooks';
import { ApprovalGatedRestoreInput } from '../../runbooks/approval-gated-restore/contract';
import { QueryExportInput } from '../../runbooks/query-export/contract';
import { SimulatorControlClient } from '../../simulator/control-client';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { serviceEnv } from '../helpers/service-env';

let sim: RunningSimulator;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startSimulator();
  env = serviceEnv(sim);
});
afterAll(async () => {
  await closeHttpPools();
  await sim.close();
});

const client = () =>
  new BackupServiceClient({
    baseUrl: sim.baseUrl,
    projectId: sim.projectId,
    credentials: { clientId: sim.clientId, clientSecret: sim.clientSecret },
  });

test('every runbook whose example names IDs of the service is discoverable', () => {
  expect([...DISCOVERABLE].sort()).toEqual(['approvalGatedRestore', 'drDrill', 'queryExport']);
});

test.each(DISCOVERABLE.map((runbook) => [runbook]))(
  'a discovered %s input is valid as the CLI reads it',
  async (runbook) => {
    const input = await discoverInput(runbook, exampleInput(runbook) ?? {}, env);
    expect(validateRunbookInput(runbook, input).args).toEqual([input]);
  },
);

test('a discovered restore names a snapshot of the resource, and the service starts it (no NOT_FOUND)', async () => {
  const raw = await discoverInput('approvalGatedRestore', exampleInput('approvalGatedRestore') ?? {}, env);
  const input = ApprovalGatedRestoreInput.parse(raw);
  const { state } = sim.ctx;
  expect(state.snapshots[input.snapshotId]?.resourceId).toBe(input.resourceId);
  expect(state.restoreAccounts[input.restoreAccountId]?.isRestoreAllowed).toBe(true);
  expect(input.kind).toBe('bucket');
  const started = await client().restoreBucket(input.resourceId, input.snapshotId, {
    restoreAccountId: input.restoreAccountId,
    destination: input.destination,
  });
  expect(started).toMatchObject({ kind: 'started' });
});

test('a discovered query names a database the snapshot holds, and the service runs it (no NOT_FOUND)', async () => {
  const input = QueryExportInput.parse(await discoverInput('queryExport', exampleInput('queryExport') ?? {}, env));
  const { databases } = await new SimulatorControlClient(sim.baseUrl).state();
  const database = databases.find((d) => d.databaseName === input.query.databaseName);
  expect(sim.ctx.state.snapshots[input.snapshotId]?.resourceId).toBe(database?.resourceId);
  const queryId = await client().runQuery(input.snapshotId, input.query);
  expect((await client().getQueryStatus(queryId)).status).not.toBe('FAILED');
});

test('with no service configured, it says what works, and never an option inputs does not take', async () => {
  const empty = { RUNBOOKS_DATA_DIR: mkdtempSync(join(tmpdir(), 'runbooks-discover-')) };
  const refusal = discoverInput('approvalGatedRestore', exampleInput('approvalGatedRestore') ?? {}, empty);
  await expect(refusal).rejects.toThrow(/--discover needs a service: BACKUP_SERVICE_URL is not set/);
  await expect(refusal).rejects.toThrow(/set BACKUP_SERVICE_URL, BACKUP_PROJECT_ID/);
  await expect(refusal).rejects.not.toThrow(/--service-url/);
});
