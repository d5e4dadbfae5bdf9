// Bad input never acts: the CLI as a child process, runbooks started straight through Temporal, and the simulator's
// raw HTTP. Every case checks the message, the exit code or status, and that the simulator's jobs and state (and
// Temporal's workflows and schedules) are unchanged. The tables are in bad-input-cases.ts.
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { request } from 'undici';
import { databaseNameOf } from '../../simulator/seed-databases';
import { FailureType } from '../../contracts';
import { drill, HTTP_CASES, RUNBOOK_CASES, type Targets } from './bad-input-cases';
import { CLI_CASES } from './bad-input-cli-cases';
import { expectRefusedInput, failureOf, setupE2E, teardownE2E, type E2E } from './helpers';

const ROOT = join(__dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');

let fx: E2E;
let targets: Targets;
let token: string;

/** Builds dist/ (what `runbooks` runs) from the sources under test. */
function build(): Promise<void> {
  const tsc = require.resolve('typescript/bin/tsc');
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT }, (err, stdout) =>
      err ? reject(new Error(`npm run build failed: ${stdout}`)) : resolve(),
    );
  });
}

beforeAll(async () => {
  [fx] = await Promise.all([setupE2E(), build()]);
  const state = fx.sim.ctx.state;
  const vault = Object.values(state.vaults).find((v) => v.name === 'backups-pa-east-1');
  const account = Object.values(state.restoreAccounts).find((a) => a.name === 'restore-pa');
  const snapshot = Object.values(state.snapshots).find(
    (s) => state.resources[s.resourceId]?.resource.resourceType === 'PA_RELATIONAL_DB',
  );
  const source = Object.values(state.sourceAccounts)[0];
  if (!vault || !account || !snapshot || !source) throw new Error('the seeded simulator lacks a target');
  targets = {
    vaultId: vault.id,
    restoreAccountId: account.id,
    resourceId: snapshot.resourceId,
    snapshotId: snapshot.id,
    databaseName: databaseNameOf(state.seed, snapshot.resourceId),
    accountId: source.id,
  };
  const res = await request(`${fx.sim.baseUrl}/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ clientId: fx.sim.clientId, clientSecret: fx.sim.clientSecret }),
  });
  token = ((await res.body.json()) as { access_token: string }).access_token;
}, 180_000);

afterAll(() => teardownE2E(fx), 60_000);

/**
 * What bad input must not change: the simulator's counts and job lists (through its control API), the rest of its
 * state (tokens aside: the worker may sign in), and the workflows and schedules Temporal holds.
 */
async function observed(options: { workflows: boolean }) {
  const state = await fx.control.state();
  const jobs = await fx.control.jobs();
  const { tokens: _tokens, ...rest } = fx.sim.ctx.state;
  let schedules = 0;
  for await (const _schedule of fx.env.client.schedule.list()) schedules += 1;
  return {
    counts: state.counts,
    backupJobs: jobs.backupJobs.length,
    restoreJobs: jobs.restoreJobs.length,
    state: createHash('sha256').update(JSON.stringify(rest)).digest('hex'),
    schedules,
    workflows: options.workflows ? (await fx.env.client.workflow.count()).count : undefined,
  };
}

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    ...process.env,
    TEMPORAL_ADDRESS: fx.env.address,
    TEMPORAL_NAMESPACE: fx.env.namespace ?? 'default',
    // The suite's worker: a run that slipped through would act on the simulator.
    RUNBOOKS_TASK_QUEUE: fx.worker.taskQueue,
    RUNBOOKS_DEBUG: '',
  };
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, env, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the CLI', () => {
  test.each(CLI_CASES.map((c) => [c.name, c] as const))('%s: exit 2, one message, nothing started', async (_, c) => {
    const before = await observed({ workflows: true });
    const { code, stdout, stderr } = await runCli(c.args(targets));
    expect(stderr).toMatch(c.message);
    expect(code).toBe(2);
    expect(`${stdout}${stderr}`).not.toMatch(/^\s+at .+[:(]/m);
    expect(stdout).toBe('');
    expect(await observed({ workflows: true })).toEqual(before);
  });
});

describe('runbooks started straight through Temporal', () => {
  const cases = RUNBOOK_CASES.map(([runbook, input, field, message]) => [runbook, field, input, message] as const);
  test.each(cases)('%s refuses a bad %s', async (runbook, field, input, message) => {
    const before = await observed({ workflows: false });
    const handle = await fx.env.client.workflow.start(runbook, {
      taskQueue: fx.worker.taskQueue,
      workflowId: `bad-input-${randomUUID()}`,
      args: [input(targets)],
    });
    const failure = await expectRefusedInput(
      handle,
      field === 'input' ? 'invalid input: ' : `invalid input ${field}: `,
    );
    expect(failure.message).toMatch(message);
    expect(await observed({ workflows: false })).toEqual(before);
  });

  test.each([
    ['every resource, under the default bound of 25', undefined, undefined, 25],
    ['every PA_VM, over an explicit bound of 2', ['PA_VM'], 2, 2],
  ])('a drill by filters matching %s refuses to start and takes nothing', async (_, types, maxResources, bound) => {
    const before = await observed({ workflows: false });
    const matching = Object.values(fx.sim.ctx.state.resources).filter(
      (r) => !types || types.includes(r.resource.resourceType),
    ).length;
    expect(matching).toBeGreaterThan(bound);
    const filters = types ? { resourceType: { in: types } } : {};
    const handle = await fx.env.client.workflow.start('drDrill', {
      taskQueue: fx.worker.taskQueue,
      workflowId: `bad-input-${randomUUID()}`,
      args: [drill(targets, { resources: { filters, maxResources } })],
    });
    const failure = await failureOf(handle);
    expect(failure.type).toBe(FailureType.InvalidInput);
    expect(failure.message).toContain(
      `invalid input resources.maxResources: the filters match ${matching} resources, more than maxResources (${bound})`,
    );
    expect(failure.message).toContain('raise resources.maxResources (at most 5000)');
    // Only the selection was read: no snapshot, no restore (then the runbook.failed notification).
    const { events } = await handle.fetchHistory();
    const scheduled = (events ?? []).flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    expect(scheduled).toEqual(['selectDrillResources', 'notify']);
    expect(await observed({ workflows: false })).toEqual(before);
  });
});

describe("the simulator's HTTP", () => {
  test.each(HTTP_CASES.map((c) => [c.name, c] as const))('%s: 400 naming the field', async (_, c) => {
    const before = await observed({ workflows: false });
    const path = c.path
      .replace('{project}', fx.sim.projectId)
      .replace('{resource}', encodeURIComponent(targets.resourceId))
      .replace('{snapshot}', encodeURIComponent(targets.snapshotId));
    const res = await request(`${fx.sim.baseUrl}${path}`, {
      method: c.method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(c.body(targets)),
    });
    const body = (await res.body.json()) as { error?: string };
    expect(res.statusCode).toBe(400);
    expect(body.error).toMatch(/^invalid (body|query)\./);
    expect(body.error).toMatch(c.error);
    expect(await observed({ workflows: false })).toEqual(before);
  });
});
