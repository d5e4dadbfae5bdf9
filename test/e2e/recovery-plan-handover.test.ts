// recoveryPlan continues as new (full tier): at a history bound of 50 a plan hands over to a new run of itself while a
// restore runs, and again while an outside verdict and a manual confirmation wait. The restore is adopted, not
// started again; the verdict and the confirmation are taken by whichever run is current; the report is the whole
// plan's. On the simulator and a real dev server.
import { randomUUID } from 'node:crypto';
import { drillValidationUpdate } from '../../contracts';
import { planConfirmUpdate, planStepsQuery } from '../../runbooks/recovery-plan/contract';
import type { RecoveryPlanInput } from '../../runbooks/recovery-plan/plan';
import { e2eSuite, eventually } from './helpers';
import { backedUpTogether, reportOf, runsOf, startPlan, threeTierPlan, type Application } from './plan-application';

const fx = e2eSuite();
let ids: Application;

/** The database's restore takes this long: the plan hands over while it runs. */
const LONG_RESTORE_SECONDS = 15;

beforeAll(async () => {
  await fx.control.jobsConfig({ restoreSeconds: LONG_RESTORE_SECONDS, querySeconds: 0 });
  ({ ids } = await backedUpTogether(fx));
}, 120_000);

/** A chain of one-second waits: each one grows the plan's history, and wakes its loop. */
const ticks = (prefix: string, count: number, first: string[]): RecoveryPlanInput['steps'] =>
  Array.from({ length: count }, (_, i) => ({
    id: `${prefix}-${i + 1}`,
    kind: 'wait' as const,
    seconds: 1,
    after: i === 0 ? first : [`${prefix}-${i}`],
  }));

/** The run that started each restore, and whether that run saw it end (it did not when it handed over first). */
async function restoresByRun(workflowId: string, runs: { runId: string }[]) {
  const started = new Map<string, { runId: string; endedThere: boolean }>();
  for (const { runId } of runs) {
    const events = (await fx.env.client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    for (const e of events) {
      const child = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
      if (child) started.set(child, { runId, endedThere: false });
      const ended = e.childWorkflowExecutionCompletedEventAttributes?.workflowExecution?.workflowId;
      const entry = ended ? started.get(ended) : undefined;
      if (entry && entry.runId === runId) entry.endedThere = true;
    }
  }
  return started;
}

test('a plan continues as new while a restore, a verdict and a confirmation wait, and each resource is restored once', async () => {
  const restoresBefore = Object.keys(fx.sim.ctx.state.restoreJobs).length;
  const base = threeTierPlan(fx, ids, `handover-${randomUUID().slice(0, 8)}`);
  // An outside verdict on a VM besides the manual step; ticks from the start, and ticks while both wait.
  const vmCheck = { id: 'vm-check', kind: 'validate' as const, of: 'vm-1', external: { windowHours: 1 } };
  const plan = {
    ...base,
    steps: [...base.steps, vmCheck, ...ticks('early', 12, []), ...ticks('late', 15, ['vm-1'])],
  };
  const handle = await startPlan(fx, plan, { tuning: { historyBound: 50 } });
  const stepStatus = async (id: string) => (await handle.query(planStepsQuery)).find((s) => s.id === id)?.status;

  await eventually('a hand-over while the database restores', async () => {
    const runs = await runsOf(fx, handle.workflowId);
    return runs.length > 1 && (await stepStatus('database')) === 'running';
  });
  await fx.control.jobsConfig({ restoreSeconds: 1 });
  await eventually('the dns step and the VM check to wait', async () =>
    (await Promise.all(['dns', 'vm-check'].map(stepStatus))).every((s) => s === 'running'),
  );
  const runsBefore = (await runsOf(fx, handle.workflowId)).length;
  await eventually(
    'a hand-over while they wait',
    async () => (await runsOf(fx, handle.workflowId)).length > runsBefore,
  );
  // Asked for by an earlier run, both are taken by whichever run is current.
  await handle.executeUpdate(drillValidationUpdate, { args: [{ resourceId: ids.vm1, result: 'pass' }] });
  await handle.executeUpdate(planConfirmUpdate, { args: [{ stepId: 'dns', by: 'oncall-lead' }] });
  const report = await reportOf(handle);

  expect(report.verdict).toBe('PASS');
  expect(report.steps.every((s) => s.status === 'passed')).toBe(true);
  expect(report.steps.find((s) => s.id === 'vm-check')?.validations).toEqual([
    { resourceId: ids.vm1, passed: true, detail: 'validation pass' },
  ]);
  expect(report.steps.find((s) => s.id === 'dns')?.confirmedBy).toBe('oncall-lead');
  const runs = await runsOf(fx, handle.workflowId);
  const [first] = runs;
  // Each run's history stays near the bound; the report is the whole plan's, under its first run's ID.
  expect(runs.length).toBeGreaterThan(2);
  for (const run of runs) expect(run.events).toBeLessThan(150);
  expect(report.runId).toBe(first?.runId);
  // The database's restore was started by one run and its end taken by a later one, which adopted it.
  const byRun = await restoresByRun(handle.workflowId, runs);
  const database = byRun.get(`${handle.workflowId}--database--${ids.database}`);
  expect(database).toEqual({ runId: first?.runId, endedThere: false });
  // One restore per resource, in the first run's folder, whichever run took its end.
  expect(byRun.size).toBe(4);
  expect(Object.keys(fx.sim.ctx.state.restoreJobs).length - restoresBefore).toBe(4);
  const folder = `plan-drill-${first?.runId.slice(0, 8)}/`;
  for (const s of report.steps.filter((x) => x.kind === 'restore')) {
    for (const r of s.resources ?? []) {
      expect(r.status).toBe('succeeded');
      expect(JSON.stringify(fx.sim.ctx.state.restoreJobs[r.restoreJobId ?? '']?.destination)).toContain(folder);
    }
  }
  const { rto } = report;
  expect(Object.values(rto.byPhase).reduce((a, b) => a + b, 0)).toBeCloseTo(rto.seconds, 3);
}, 240_000);
