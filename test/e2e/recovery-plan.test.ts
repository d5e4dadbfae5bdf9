// recoveryPlan end to end: an application of a database, a bucket and two VMs, restored in dependency order from one
// common point, with a manual step; a failed middle step; a cycle and a skew over the bound refused before anything
// is restored; the RTO's parts summing to the whole; a cancelled plan's restores; latest-clean. On the simulator and a
// real dev server (recovery-plan-handover.test.ts: a plan that continues as new).
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { planConfirmUpdate, planStepsQuery, type PlanReport } from '../../runbooks/recovery-plan/contract';
import type { RecoveryPlanInput } from '../../runbooks/recovery-plan/plan';
import { databaseNameOf } from '../../simulator/seed-databases';
import {
  drillVaultAndAccount,
  eventually,
  expectRefusedInput,
  failureOf,
  setupE2E,
  teardownE2E,
  type E2E,
} from './helpers';
import { backedUpTogether, reportOf, startPlan, threeTierPlan, type Application } from './plan-application';

let fx: E2E;
let ids: Application;
/** The snapshots of the backups taken together, by resource: the common point's. */
let backups = new Map<string, string>();

beforeAll(async () => {
  fx = await setupE2E();
  await fx.control.jobsConfig({ restoreSeconds: 1, querySeconds: 0 });
  ({ ids, backups } = await backedUpTogether(fx));
}, 120_000);

afterAll(() => teardownE2E(fx), 60_000);

const threeTier = (name: string, overrides: { databaseCheck?: string } = {}) => threeTierPlan(fx, ids, name, overrides);
const start = (plan: RecoveryPlanInput) => startPlan(fx, plan);

const restoresSince = (before: number) => Object.keys(fx.sim.ctx.state.restoreJobs).length - before;

test('database → bucket → two VMs with a manual step: PASS, in dependency order, from one point', async () => {
  const restoredBefore = restoresSince(0);
  const handle = await start(threeTier(`three-tier-${randomUUID().slice(0, 8)}`));
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
  const handle = await start(threeTier(`failing-${randomUUID().slice(0, 8)}`, { databaseCheck: 'rows >= 999999' }));
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
  const plan = threeTier(`cycle-${randomUUID().slice(0, 8)}`);
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
    ...threeTier(`skewed-${randomUUID().slice(0, 8)}`),
    pointInTime: { target, maxSkewMinutes: 60 },
  };
  const failure = await failureOf(await start(plan));
  expect(failure.type).toBe('NO_COMMON_POINT');
  expect(failure.message).toMatch(/over maxSkewMinutes \(60\)/);
  expect(failure.message).toContain(ids.database);
  expect(restoresSince(restoredBefore)).toBe(0);
}, 60_000);

test('a cancelled plan cancels its running restores, which outlive its runs otherwise', async () => {
  await fx.control.jobsConfig({ restoreSeconds: 600 });
  try {
    const handle = await start(threeTier(`cancelled-${randomUUID().slice(0, 8)}`));
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
  const base = threeTier(`clean-${randomUUID().slice(0, 8)}`);
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
  const base = threeTier(`unclean-${randomUUID().slice(0, 8)}`);
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
