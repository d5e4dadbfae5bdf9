// What the recovery plan's end-to-end files share: an application's resources backed up together (the common point),
// the three-tier plan over them, and the plan's report and runs as the tests read them.
import { readFile } from 'node:fs/promises';
import type { WorkflowHandle } from '@temporalio/client';
import type { PlanReport, RecoveryPlanRunInput } from '../../runbooks/recovery-plan/contract';
import type { RecoveryPlanInput } from '../../runbooks/recovery-plan/plan';
import { recoveryPlan } from '../../runbooks/workflows';
import { databaseNameOf } from '../../simulator/seed-databases';
import { bucketDestination, drillVaultAndAccount, type E2E } from './helpers';

export interface Application {
  database: string;
  bucket: string;
  vm1: string;
  vm2: string;
}

/**
 * A database, a bucket and two VMs of the seeded simulator, each backed up once after a jump of 400 days that leaves
 * the seeded snapshots out of every window, one after the other: their snapshots, by resource, are the common point.
 */
export async function backedUpTogether(fx: E2E): Promise<{ ids: Application; backups: Map<string, string> }> {
  const resources = Object.values(fx.sim.ctx.state.resources).map((r) => r.resource);
  const ofType = (type: string) => resources.filter((r) => r.resourceType === type).map((r) => r.id);
  const [database] = ofType('PA_RELATIONAL_DB');
  const [bucket] = ofType('PA_OBJECT_STORE');
  const [vm1, vm2] = ofType('PA_VM');
  if (!database || !bucket || !vm1 || !vm2) throw new Error('the seeded simulator lacks a database, a bucket or 2 VMs');
  const ids = { database, bucket, vm1, vm2 };
  await fx.control.advanceClock(400 * 86_400);
  const { vault } = drillVaultAndAccount(fx);
  const jobs = new Map<string, string>();
  for (const id of Object.values(ids)) {
    jobs.set(id, await fx.service.takeSnapshot(id, { vaultId: vault.id, retentionDays: 30 }));
  }
  await fx.control.advanceClock(3600);
  const backups = new Map<string, string>();
  for (const [id, job] of jobs) {
    await fx.service.getBackupJob(job);
    const made = Object.values(fx.sim.ctx.state.snapshots).find((s) => s.jobId === job);
    if (!made) throw new Error(`backup job ${job} made no snapshot`);
    backups.set(id, made.id);
  }
  return { ids, backups };
}

export const restoreTo = (prefix: string) => bucketDestination('dr-drill-restores', `plans/${prefix}/`);

/**
 * database → its SQL check → bucket → two VMs → a manual DNS step (oncall-lead confirms), and an independent wait.
 * `databaseCheck`: the check's expectation (one the data cannot meet fails the step).
 */
export function threeTierPlan(
  fx: E2E,
  ids: Application,
  name: string,
  overrides: { databaseCheck?: string } = {},
): RecoveryPlanInput {
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

export function startPlan(fx: E2E, plan: RecoveryPlanInput, extra: Partial<RecoveryPlanRunInput> = {}) {
  return fx.env.client.workflow.start(recoveryPlan, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `plan-${plan.name}`,
    args: [{ plan, ...extra }],
  });
}

export async function reportOf(handle: WorkflowHandle<typeof recoveryPlan>): Promise<PlanReport> {
  const result = await handle.result();
  return JSON.parse(await readFile(result.report.json, 'utf8')) as PlanReport;
}

/** Every run of a workflow ID, oldest first, with its history's length. */
export async function runsOf(fx: E2E, workflowId: string): Promise<{ runId: string; events: number }[]> {
  const runs: { runId: string; events: number }[] = [];
  for await (const run of fx.env.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    const { events } = await fx.env.client.workflow.getHandle(workflowId, run.runId).fetchHistory();
    runs.push({ runId: run.runId, events: events?.length ?? 0 });
  }
  return runs.reverse();
}
