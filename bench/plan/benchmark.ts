// `npm run bench -- --only plan`: recovery plans of 200 and of 500 restore steps (the most a plan takes; `--quick`: 60
// only) on the simulator, run by one worker process: 10 layers (`--quick`: 6), each step after two steps of the layer
// before, every restore a job of RESTORE_SECONDS. It prints each plan's RTO against its ideal (the critical path's
// restores back to back, with no orchestration between them), the largest history among the plan's runs (a plan
// continues as new past 1,500 events) and its restores, and the verdict.
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PlanReport, RecoveryPlanResult } from '../../runbooks/recovery-plan/contract';
import type { RecoveryPlanInput } from '../../runbooks/recovery-plan/plan';
import { compared, type Benchmark, type Measurement } from '../measure';
import { drillVaultAndAccount, generatedResources } from '../seeded';
import { drillHistories } from '../scale/histories';
import { BenchStack } from '../waiting/stack';

const TASK_QUEUE = 'bench-plan';
const RESTORE_SECONDS = 5;
const BACKUP_SECONDS = 1;
/** The bound each of the plan's runs' histories must stay within. */
const MAX_EVENTS = 2_000;

interface Shape {
  steps: number;
  layers: number;
}

/** A layered plan: step j of layer i restores resource i*width + j after steps j and j+1 of layer i - 1. */
export function layeredPlan(shape: Shape, resourceIds: string[], restoreAccountId: string): RecoveryPlanInput {
  const width = shape.steps / shape.layers;
  const id = (layer: number, k: number) => `l${layer}-s${k}`;
  const steps: RecoveryPlanInput['steps'] = [];
  for (let layer = 0; layer < shape.layers; layer++) {
    for (let k = 0; k < width; k++) {
      const resourceId = resourceIds[layer * width + k];
      if (!resourceId) throw new Error(`no resource for step ${id(layer, k)}`);
      steps.push({
        id: id(layer, k),
        kind: 'restore',
        after: layer === 0 ? [] : [id(layer - 1, k), id(layer - 1, (k + 1) % width)],
        resource: { id: resourceId },
        destination: { bucketA: { bucketName: 'dr-drill-restores', prefix: 'bench-plan/' } },
      });
    }
  }
  return { name: `bench-${shape.steps}`, restoreAccountId, rtoTargetMinutes: 60, steps };
}

async function onePlan(shape: Shape, log: (line: string) => void): Promise<Measurement[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-plan-'));
  const stack = await BenchStack.start(dir, log, { persist: false });
  let kept = true;
  try {
    await stack.startWorker(TASK_QUEUE, { RUNBOOKS_OUTPUT_DIR: join(dir, 'output') });
    const resources = await generatedResources(stack.control, stack.service, shape.steps);
    const { vaultId, restoreAccountId } = await drillVaultAndAccount(stack.service);
    await stack.control.jobsConfig({
      backupSeconds: BACKUP_SECONDS,
      restoreSeconds: RESTORE_SECONDS,
      maxConcurrentBackups: shape.steps,
      outcomes: {},
    });
    // One backup of each, at once: the common point.
    const jobs = await Promise.all(
      resources.map((r) => stack.service.takeSnapshot(r.id, { vaultId, retentionDays: 7 })),
    );
    await new Promise((resolve) => setTimeout(resolve, (BACKUP_SECONDS + 1) * 1000));
    for (const job of jobs) await stack.service.getBackupJob(job);

    const plan = layeredPlan(
      shape,
      resources.map((r) => r.id),
      restoreAccountId,
    );
    const workflowId = `plan-bench-${shape.steps}-${Date.now().toString(36)}`;
    log(`plan ${workflowId}: ${shape.steps} restore steps in ${shape.layers} layers, restores of ${RESTORE_SECONDS} s`);
    const began = Date.now();
    const result = await stack.client.workflow.execute<() => Promise<RecoveryPlanResult>>('recoveryPlan', {
      taskQueue: TASK_QUEUE,
      workflowId,
      args: [{ plan }],
    } as never);
    const wallSeconds = (Date.now() - began) / 1000;
    const report = JSON.parse(await readFile(result.report.json, 'utf8')) as PlanReport;
    const histories = await drillHistories(stack.client, workflowId);
    const planEvents = Math.max(...histories.parentRuns);
    // The ideal: the critical path's restore jobs back to back, as the service ran them.
    const idealSeconds = shape.layers * RESTORE_SECONDS;
    const restorePart = report.rto.byPhase.restore;
    log(
      `  ${result.verdict} in ${wallSeconds.toFixed(1)} s; RTO ${report.rto.seconds.toFixed(1)} s on a path of ` +
        `${report.rto.criticalPath.length} steps (restore ${restorePart.toFixed(1)} s, between ` +
        `${report.rto.byPhase.between.toFixed(1)} s); histories: the plan's ${histories.parentRuns.join(' + ')} ` +
        `events, the largest restore's ${histories.largestChild?.events ?? 0} (of ${histories.children})`,
    );
    if (result.verdict !== 'PASS') kept = false;
    const notes = `${shape.steps} steps, ${shape.layers} layers, restores of ${RESTORE_SECONDS} s, one worker`;
    return [
      compared(
        `plan of ${shape.steps} steps: RTO`,
        's',
        report.rto.seconds,
        { name: `ideal (${shape.layers} restores back to back)`, value: idealSeconds },
        undefined,
        notes,
      ),
      {
        metric: `plan of ${shape.steps} steps: largest history of its runs`,
        unit: 'events',
        value: planEvents,
        goal: `≤${MAX_EVENTS.toLocaleString('en')}`,
        met: planEvents <= MAX_EVENTS,
        notes: `${histories.parentRuns.length} run(s); the largest of ${histories.children} restores: ${histories.largestChild?.events ?? 0} events`,
      },
    ];
  } catch (err) {
    kept = false;
    throw err;
  } finally {
    await stack.close();
    if (kept) rmSync(dir, { recursive: true, force: true });
    else log(`  kept ${dir} for a look`);
  }
}

export const planBenchmark: Benchmark = {
  name: 'plan',
  async run({ quick, log }) {
    if (quick) return onePlan({ steps: 60, layers: 6 }, log);
    return [...(await onePlan({ steps: 200, layers: 10 }, log)), ...(await onePlan({ steps: 500, layers: 10 }, log))];
  },
};
