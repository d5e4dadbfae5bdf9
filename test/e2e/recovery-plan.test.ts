// recoveryPlan end to end: an application of a database, a bucket and two VMs, restored in dependency order from one
// common point, with a manual step; a failed middle step; a cycle and a skew over the bound refused before anything
// is restored; the RTO's parts summing to the whole; and a plan that continues as new while its steps wait. On the
// simulator and a real dev server.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { WorkflowHandle } from '@temporalio/client';
import type { PlanReport, RecoveryPlanRunInput } from '../../runbooks/recovery-plan/contract';
import { drillValidationUpdate } from '../../contracts';
import { planConfirmUpdate, planStepsQuery } from '../../runbooks/recovery-plan/contract';
import type { RecoveryPlanInput } from '../../runbooks/recovery-plan/plan';
import { recoveryPlan } from '../../runbooks/workflows';
import { databaseNameOf } from '../../simulator/seed-databases';
import {
  bucketDestination,
  drillVaultAndAccount,
  eventually,
  expectRefusedInput,
  failureOf,
  setupE2E,
  teardownE2E,
  type E2E,
} from './helpers';

let fx: E2E;
let ids: { database: string; bucket: string; vm1: string; vm2: string };
/** The snapshots of the backups taken together, by resource: the common point's. */
const backups = new Map<string, string>();

beforeAll(async () => {
  fx = await setupE2E();
  await fx.control.jobsConfig({ restoreSeconds: 1, querySeconds: 0 });
  const resources = Object.values(fx.sim.ctx.state.resources).map((r) => r.resource);
  const ofType = (type: string) => resources.filter((r) => r.resourceType === type).map((r) => r.id);
  const [database] = ofType('PA_RELATIONAL_DB');
  const [bucket] = ofType('PA_OBJECT_STORE');
  const [vm1, vm2] = ofType('PA_VM');
  if (!database || !bucket || !vm1 || !vm2) throw new Error('the seeded simulator lacks a database, a bucket or 2 VMs');
  ids = { database, bucket, vm1, vm2 };
  // Out of every window of the seeded snapshots, then one backup of each at the same moment.
  await fx.control.advanceClock(400 * 86_400);
  const { vault } = drillVaultAndAccount(fx);
  const jobs = new Map<string, string>();
  for (const id of Object.values(ids)) {
    jobs.set(id, await fx.service.takeSnapshot(id, { vaultId: vault.id, retentionDays: 30 }));
  }
  await fx.control.advanceClock(3600);
  for (const [id, job] of jobs) {
    await fx.service.getBackupJob(job);
    const made = Object.values(fx.sim.ctx.state.snapshots).find((s) => s.jobId === job);
    if (!made) throw new Error(`backup job ${job} made no snapshot`);
    backups.set(id, made.id);
  }
}, 120_000);

afterAll(() => teardownE2E(fx), 60_000);

const restoreTo = (prefix: string) => bucketDestination('dr-drill-restores', `plans/${prefix}/`);

function threeTierPlan(name: string, overrides: { databaseCheck?: string } = {}): RecoveryPlanInput {
  const { vault, account } = drillVaultAndAccount(fx);
  return {
    name,
    restoreAccountId: account.id,
    rtoTargetMinutes: 60,
    steps: [
      { id: 'database', kind: 'restore', resource: { id: ids.database }, destination: restoreTo('db') },
      {
        id: 'database-check',
        kind: 'validate',
        of: 'database',
        sql: {
          databaseName: databaseNameOf(fx.sim.ctx.state.seed, ids.database),
          query: 'SELECT id FROM customers',
          expectation: overrides.databaseCheck ?? 'rows >= 1',
          destination: { bucketA: { bucketName: `query-results-${vault.region}` } },
        },
      },
      {
        id: 'bucket',
        kind: 'restore',
        after: ['database-check'],
        resource: { id: ids.bucket },
        destination: restoreTo('bucket'),
      },
      { id: 'vm-1', kind: 'restore', after: ['bucket'], resource: { id: ids.vm1 }, destination: restoreTo('vm1') },
      { id: 'vm-2', kind: 'restore', after: ['bucket'], resource: { id: ids.vm2 }, destination: restoreTo('vm2') },
      {
        id: 'dns',
        kind: 'manual',
        after: ['vm-1', 'vm-2'],
        instructions: 'Point the application at the restored servers',
        approvers: ['oncall-lead'],
      },
      // Independent of the others: a failure elsewhere lets it finish.
      { id: 'warm-up', kind: 'wait', seconds: 1 },
    ],
  };
}

function start(plan: RecoveryPlanInput, extra: Partial<RecoveryPlanRunInput> = {}) {
  return fx.env.client.workflow.start(recoveryPlan, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `plan-${plan.name}`,
    args: [{ plan, ...extra }],
  });
}

async function reportOf(handle: WorkflowHandle<typeof recoveryPlan>): Promise<PlanReport> {
  const result = await handle.result();
  return JSON.parse(await readFile(result.report.json, 'utf8')) as PlanReport;
}

const restoresSince = (before: number) => Object.keys(fx.sim.ctx.state.restoreJobs).length - before;

test('database → bucket → two VMs with a manual step: PASS, in dependency order, from one point', async () => {
  const restoredBefore = restoresSince(0);
  const handle = await start(threeTierPlan(`three-tier-${randomUUID().slice(0, 8)}`));
  await eventually('the dns step to wait', async () => {
    const steps = await handle.query(planStepsQuery);
    return steps.find((s) => s.id === 'dns')?.status === 'running';
  });
  await expect(
    handle.executeUpdate(planConfirmUpdate, { args: [{ stepId: 'dns', by: 'someone-else' }] }),
  ).rejects.toThrow();
  await handle.executeUpdate(planConfirmUpdate, { args: [{ stepId: 'dns', by: 'oncall-lead', note: 'DNS switched' }] });
  const report = await reportOf(handle);

  expect(report.verdict).toBe('PASS');
  expect(report.steps.map((s) => [s.id, s.status])).toEqual([
    ['database', 'passed'],
    ['database-check', 'passed'],
    ['bucket', 'passed'],
    ['vm-1', 'passed'],
    ['vm-2', 'passed'],
    ['dns', 'passed'],
    ['warm-up', 'passed'],
  ]);
  const step = (id: string) => report.steps.find((s) => s.id === id);
  // Each step started after its dependencies ended.
  for (const s of report.steps) {
    for (const dep of [...s.after, ...(s.kind === 'validate' ? ['database'] : [])]) {
      expect(Date.parse(s.startedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(step(dep)?.endedAt ?? ''));
    }
  }
  expect(step('dns')).toMatchObject({ confirmedBy: 'oncall-lead', note: 'DNS switched' });
  // One restore per resource, each from the common point, into the run's own folder (drill mode).
  expect(restoresSince(restoredBefore)).toBe(4);
  // Backed up one after the other: milliseconds apart.
  expect(report.commonPoint?.skewSeconds).toBeLessThan(1);
  expect(report.commonPoint?.resources).toHaveLength(4);
  for (const r of report.commonPoint?.resources ?? []) expect(r.snapshotId).toBe(backups.get(r.resourceId));
  const restoreJob = fx.sim.ctx.state.restoreJobs[step('vm-1')?.resources?.[0]?.restoreJobId ?? ''];
  expect(JSON.stringify(restoreJob?.destination)).toMatch(/plans\/vm1\/plan-drill-/);
  // The RTO's parts sum to the whole, on a critical path that ends at the last step of the chain.
  const { rto } = report;
  const byPhase = Object.values(rto.byPhase).reduce((a, b) => a + b, 0);
  const byStep = rto.byStep.reduce((a, b) => a + b.seconds, 0) + gapsOnPath(report);
  expect(byPhase).toBeCloseTo(rto.seconds, 3);
  expect(byStep).toBeCloseTo(rto.seconds, 3);
  expect(rto.criticalPath[0]).toBe('database');
  expect(rto.criticalPath).toContain('database-check');
  expect(report.planSha256).toMatch(/^[0-9a-f]{64}$/);
}, 120_000);

/** The gaps on the critical path between one step's end (or the plan's start) and the next one's start, in seconds. */
function gapsOnPath(report: PlanReport): number {
  let previous = Date.parse(report.startedAt);
  let gaps = 0;
  for (const id of report.rto.criticalPath) {
    const s = report.steps.find((step) => step.id === id);
    gaps += Date.parse(s?.startedAt ?? '') - previous;
    previous = Date.parse(s?.endedAt ?? '');
  }
  return gaps / 1000;
}

test('a failed middle step: its dependents are skipped, the independent step finishes, the verdict names it', async () => {
  const restoredBefore = restoresSince(0);
  const handle = await start(threeTierPlan(`failing-${randomUUID().slice(0, 8)}`, { databaseCheck: 'rows >= 999999' }));
  const report = await reportOf(handle);
  expect(report.verdict).toBe('FAIL');
  expect(report.failedSteps).toEqual(['database-check']);
  const status = Object.fromEntries(report.steps.map((s) => [s.id, s.status]));
  expect(status).toEqual({
    database: 'passed',
    'database-check': 'failed',
    bucket: 'skipped',
    'vm-1': 'skipped',
    'vm-2': 'skipped',
    dns: 'skipped',
    'warm-up': 'passed',
  });
  expect(report.steps.find((s) => s.id === 'bucket')?.reason).toBe('skipped: database-check failed');
  expect(restoresSince(restoredBefore)).toBe(1);
}, 120_000);

test('a cycle is refused before any call, naming the steps', async () => {
  const plan = threeTierPlan(`cycle-${randomUUID().slice(0, 8)}`);
  const steps = plan.steps.map((s) => (s.id === 'database' ? { ...s, after: ['dns'] } : s));
  // Refused by the input's schema: no activity ran (expectRefusedInput checks the history).
  const failure = await expectRefusedInput(await start({ ...plan, steps }), /cycle/);
  for (const id of ['database', 'database-check', 'bucket', 'vm-1', 'dns']) expect(failure.message).toContain(id);
}, 60_000);

test('points further apart than maxSkewMinutes are refused, naming the resources, and nothing is restored', async () => {
  // The database backed up again 3 hours later: at a target after it, its point is 3 hours newer than the others'.
  const { vault } = drillVaultAndAccount(fx);
  await fx.control.advanceClock(2 * 3600);
  const job = await fx.service.takeSnapshot(ids.database, { vaultId: vault.id, retentionDays: 30 });
  await fx.control.advanceClock(60);
  await fx.service.getBackupJob(job);
  const target = (await fx.control.state()).now;
  const restoredBefore = restoresSince(0);
  const plan = {
    ...threeTierPlan(`skewed-${randomUUID().slice(0, 8)}`),
    pointInTime: { target, maxSkewMinutes: 60 },
  };
  const failure = await failureOf(await start(plan));
  expect(failure.type).toBe('NO_COMMON_POINT');
  expect(failure.message).toMatch(/over maxSkewMinutes \(60\)/);
  expect(failure.message).toContain(ids.database);
  expect(restoresSince(restoredBefore)).toBe(0);
}, 60_000);

/** Every run of a workflow ID, oldest first, with its history's length. */
async function runsOf(workflowId: string) {
  const runs: { runId: string; events: number }[] = [];
  for await (const run of fx.env.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    const { events } = await fx.env.client.workflow.getHandle(workflowId, run.runId).fetchHistory();
    runs.push({ runId: run.runId, events: events?.length ?? 0 });
  }
  return runs.reverse();
}

/** Restores whose end (the restoreEnded signal) a run took that did not start them. */
async function restoresEndedInALaterRun(workflowId: string, runs: { runId: string }[]): Promise<string[]> {
  const crossed: string[] = [];
  for (const { runId } of runs) {
    const events = (await fx.env.client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    const started = new Set(events.map((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId));
    for (const e of events) {
      const signal = e.workflowExecutionSignaledEventAttributes;
      const data = signal?.signalName === 'restoreEnded' ? signal.input?.payloads?.[0]?.data : undefined;
      if (!data) continue;
      const end = JSON.parse(Buffer.from(data).toString('utf8')) as { workflowId: string };
      if (!started.has(end.workflowId)) crossed.push(end.workflowId);
    }
  }
  return crossed;
}

test('a plan continues as new while its restores, its verdict and its confirmation wait, and each resource is restored once', async () => {
  const restoredBefore = restoresSince(0);
  const base = threeTierPlan(`handover-${randomUUID().slice(0, 8)}`);
  // An outside verdict on a VM besides the manual step, and a chain of one-second waits that grows the history while
  // both wait: the kinds of wait a hand-over carries.
  const vmCheck = { id: 'vm-check', kind: 'validate' as const, of: 'vm-1', external: { windowHours: 1 } };
  const ticks = Array.from({ length: 8 }, (_, i) => ({
    id: `tick-${i + 1}`,
    kind: 'wait' as const,
    seconds: 1,
    after: [i === 0 ? 'vm-1' : `tick-${i}`],
  }));
  const plan = { ...base, steps: [...base.steps, vmCheck, ...ticks] };
  // A bound this low hands over every few steps.
  const handle = await start(plan, { tuning: { historyBound: 50 } });
  await eventually('the dns step and the VM check to wait', async () => {
    const steps = await handle.query(planStepsQuery);
    return ['dns', 'vm-check'].every((id) => steps.find((s) => s.id === id)?.status === 'running');
  });
  const runsBefore = (await runsOf(handle.workflowId)).length;
  await eventually('a hand-over while they wait', async () => (await runsOf(handle.workflowId)).length > runsBefore);
  // Asked for by an earlier run, both are taken by whichever run is current.
  await handle.executeUpdate(drillValidationUpdate, { args: [{ resourceId: ids.vm1, result: 'pass' }] });
  await handle.executeUpdate(planConfirmUpdate, { args: [{ stepId: 'dns', by: 'oncall-lead' }] });
  const report = await reportOf(handle);

  expect(report.verdict).toBe('PASS');
  expect(report.steps.every((s) => s.status === 'passed')).toBe(true);
  expect(report.steps.find((s) => s.id === 'vm-check')?.validations).toEqual([
    { resourceId: ids.vm1, passed: true, detail: 'validation pass' },
  ]);
  const runs = await runsOf(handle.workflowId);
  const [first] = runs;
  // Each run's history stays near the bound, and the report is the whole plan's, under its first run.
  expect(runs.length).toBeGreaterThan(runsBefore);
  for (const run of runs) expect(run.events).toBeLessThan(150);
  expect(report.runId).toBe(first?.runId);
  // Some restore ended in a run that did not start it: its end came by its signal, across a hand-over.
  expect(await restoresEndedInALaterRun(handle.workflowId, runs)).not.toEqual([]);
  // One restore per resource, in the first run's folder, whichever run took its end.
  expect(restoresSince(restoredBefore)).toBe(4);
  const folder = `plan-drill-${first?.runId.slice(0, 8)}/`;
  for (const s of report.steps.filter((x) => x.kind === 'restore')) {
    for (const r of s.resources ?? []) {
      expect(r.status).toBe('succeeded');
      expect(JSON.stringify(fx.sim.ctx.state.restoreJobs[r.restoreJobId ?? '']?.destination)).toContain(folder);
    }
  }
  const { rto } = report;
  expect(Object.values(rto.byPhase).reduce((a, b) => a + b, 0)).toBeCloseTo(rto.seconds, 3);
}, 180_000);

test('a cancelled plan cancels its running restores, which outlive its runs otherwise', async () => {
  await fx.control.jobsConfig({ restoreSeconds: 600 });
  try {
    const handle = await start(threeTierPlan(`cancelled-${randomUUID().slice(0, 8)}`));
    const restore = fx.env.client.workflow.getHandle(`${handle.workflowId}--database--${ids.database}`);
    await eventually('the database restore to run', async () => (await restore.describe()).status.name === 'RUNNING');
    await handle.cancel();
    await expect(handle.result()).rejects.toThrow(/cancel/i);
    await eventually('the restore to be cancelled', async () => (await restore.describe()).status.name === 'CANCELLED');
  } finally {
    await fx.control.jobsConfig({ restoreSeconds: 1 });
  }
}, 120_000);

test('latest-clean: every resource comes back from before the database was corrupted, and the report says by what check', async () => {
  // Five days of backups, the bucket's a moment before the database's; the database corrupted from day 4.
  const { vault } = drillVaultAndAccount(fx);
  await fx.control.advanceClock(86_400);
  const days: { database: string; bucket: string }[] = [];
  for (let day = 0; day < 5; day += 1) {
    const bucketJob = await fx.service.takeSnapshot(ids.bucket, { vaultId: vault.id, retentionDays: 30 });
    const databaseJob = await fx.service.takeSnapshot(ids.database, { vaultId: vault.id, retentionDays: 30 });
    await fx.control.advanceClock(86_400);
    const made = async (job: string) => {
      await fx.service.getBackupJob(job);
      return Object.values(fx.sim.ctx.state.snapshots).find((s) => s.jobId === job)?.id ?? '';
    };
    days.push({ bucket: await made(bucketJob), database: await made(databaseJob) });
  }
  await fx.control.corrupt(ids.database, { from: days[3]?.database, kind: 'rows-changed' });
  const databaseName = databaseNameOf(fx.sim.ctx.state.seed, ids.database);
  const check = {
    name: 'no encrypted emails',
    databaseName,
    destination: { bucketA: { bucketName: `query-results-${vault.region}` } },
    queries: [
      { name: 'encrypted', sql: "SELECT count(*) FROM customers WHERE email LIKE 'ENC:%'", expect: 'value = 0' },
    ],
  };
  const base = threeTierPlan(`clean-${randomUUID().slice(0, 8)}`);
  const plan: RecoveryPlanInput = {
    ...base,
    steps: base.steps.filter((s) => ['database', 'bucket'].includes(s.id)).map((s) => ({ ...s, after: [] })),
    pointInTime: { target: 'latest-clean', clean: [{ step: 'database', check }], windowDays: 7 },
  };
  const handle = await start(plan);
  const report = await reportOf(handle);

  expect(report.verdict).toBe('PASS');
  const cp = report.commonPoint;
  expect(cp?.target).toBe('latest-clean');
  // Day 3's database is the last clean one; the bucket comes back from the same day, not from after the corruption.
  const chosen = Object.fromEntries((cp?.resources ?? []).map((r) => [r.resourceId, r.snapshotId]));
  expect(chosen).toEqual({ [ids.database]: days[2]?.database, [ids.bucket]: days[2]?.bucket });
  expect(cp?.skewSeconds).toBeLessThan(1);
  expect(cp?.clean).toEqual([
    expect.objectContaining({
      stepId: 'database',
      resourceId: ids.database,
      snapshotId: days[2]?.database,
      check: expect.objectContaining({ name: 'no encrypted emails' }) as unknown,
    }),
  ]);
  expect(cp?.clean?.[0]?.verdict).toMatch(/^clean as of no encrypted emails/);
  const restored = report.steps.flatMap((s) => s.resources ?? []).map((r) => r.snapshotId);
  expect(restored.sort()).toEqual([days[2]?.bucket, days[2]?.database].sort());
  const markdown = await readFile((await handle.result()).report.markdown, 'utf8');
  expect(markdown).toContain(`Last clean point of ${ids.database} (step database): ${days[2]?.database}`);
}, 180_000);

test('latest-clean with no clean point in the window fails NO_COMMON_POINT, naming the resource, and restores nothing', async () => {
  const { vault } = drillVaultAndAccount(fx);
  const databaseName = databaseNameOf(fx.sim.ctx.state.seed, ids.database);
  const check = {
    name: 'impossible',
    databaseName,
    destination: { bucketA: { bucketName: `query-results-${vault.region}` } },
    queries: [{ name: 'none', sql: 'SELECT id FROM customers', expect: 'rows = 0' }],
  };
  const base = threeTierPlan(`unclean-${randomUUID().slice(0, 8)}`);
  const restoredBefore = restoresSince(0);
  const plan: RecoveryPlanInput = {
    ...base,
    pointInTime: { target: 'latest-clean', clean: [{ step: 'database', check }], windowDays: 7 },
  };
  const failure = await failureOf(await start(plan));
  expect(failure.type).toBe('NO_COMMON_POINT');
  expect(failure.message).toContain(`no clean point to recover from: ${ids.database} (step database)`);
  expect(restoresSince(restoredBefore)).toBe(0);
}, 120_000);
