// `runbooks inputs <runbook> --example --discover` against the simulator: the drill it prints names a restore
// account, a vault and resources the service has, and `runbooks start drDrill` runs it as it stands to PASS; the
// restore and the query it prints run as they stand too.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApprovalGatedRestoreResult } from '../../runbooks/approval-gated-restore/contract';
import type { DrDrillResult } from '../../runbooks/dr-drill/contract';
import type { QueryExportResult } from '../../runbooks/query-export/contract';
import { runCliFromSourceAsync } from '../helpers/cli-from-source';
import { setupE2E, teardownE2E, type E2E } from './helpers';

let fx: E2E;

beforeAll(async () => {
  fx = await setupE2E();
}, 120_000);
afterAll(() => teardownE2E(fx), 60_000);

/** The CLI configured as the worker is: the service by BACKUP_* variables, Temporal by TEMPORAL_*. */
function runbooks(...args: string[]) {
  return runCliFromSourceAsync(args, {
    ...process.env,
    BACKUP_SERVICE_URL: fx.sim.baseUrl,
    BACKUP_PROJECT_ID: fx.sim.projectId,
    BACKUP_CLIENT_ID: fx.sim.clientId,
    BACKUP_CLIENT_SECRET: fx.sim.clientSecret,
    BACKUP_CREDENTIALS_FILE: undefined,
    TEMPORAL_ADDRESS: fx.env.address,
    TEMPORAL_NAMESPACE: fx.env.namespace ?? 'default',
    RUNBOOKS_TASK_QUEUE: fx.worker.taskQueue,
    RUNBOOKS_DEBUG: '',
  });
}

test('the discovered drill names what the service has and passes', async () => {
  const discovered = await runbooks('inputs', 'drDrill', '--example', '--discover');
  expect([discovered.status, discovered.stderr]).toEqual([0, '']);
  const input = JSON.parse(discovered.stdout) as {
    resources: { ids: string[] };
    vaultId: string;
    restoreAccountId: string;
  };
  const state = fx.sim.ctx.state;
  expect(input.resources.ids.length).toBeGreaterThan(0);
  for (const id of input.resources.ids) expect(state.resources[id]).toBeDefined();
  expect(state.vaults[input.vaultId]).toBeDefined();
  expect(state.restoreAccounts[input.restoreAccountId]).toBeDefined();

  const file = join(await mkdtemp(join(tmpdir(), 'runbooks-discover-')), 'drill.json');
  await writeFile(file, discovered.stdout);
  const started = await runbooks('start', 'drDrill', '--input', file, '--wait');
  expect(started.stderr).toBe('');
  expect(started.status).toBe(0);
  const match = /^started drDrill as (\S+) \(run (\S+)\)$/m.exec(started.stdout);
  if (!match?.[1]) throw new Error(`no start line in: ${started.stdout}`);
  const result = await fx.env.client.workflow.getHandle<() => Promise<DrDrillResult>>(match[1], match[2]).result();
  expect(result.summary).toMatchObject({ verdict: 'PASS', total: input.resources.ids.length, failed: 0 });
}, 300_000);

/** Discovers an input, starts it with --wait, and returns the run's result. */
async function discoveredRun<R>(runbook: string): Promise<R> {
  const discovered = await runbooks('inputs', runbook, '--example', '--discover');
  expect([discovered.status, discovered.stderr]).toEqual([0, '']);
  const file = join(await mkdtemp(join(tmpdir(), 'runbooks-discover-')), `${runbook}.json`);
  await writeFile(file, discovered.stdout);
  const started = await runbooks('start', runbook, '--input', file, '--wait');
  expect([started.status, started.stderr]).toEqual([0, '']);
  const match = new RegExp(`^started ${runbook} as (\\S+) \\(run (\\S+)\\)$`, 'm').exec(started.stdout);
  if (!match?.[1]) throw new Error(`no start line in: ${started.stdout}`);
  return fx.env.client.workflow.getHandle<() => Promise<R>>(match[1], match[2]).result();
}

test('the discovered restore and query run as they stand', async () => {
  const restore = await discoveredRun<ApprovalGatedRestoreResult>('approvalGatedRestore');
  expect(restore.job.status).toBe('JOB_COMPLETED');
  const query = await discoveredRun<QueryExportResult>('queryExport');
  expect(query.export.rows).toBeGreaterThan(0);
}, 300_000);
