// `kill-plan-edges`: a recovery plan of five restores and a manual step (a → b → c, d → confirm → e), run twice on
// the simulator: once undisturbed, then with the worker killed -9 at each edge of the graph: each time a step that
// others wait for has passed (seen through the plan's steps query), the worker dies and comes back after a short
// pause. The checks: the killed run completes with PASS, each resource was restored exactly once in it (no duplicate
// job), every job in its report is its own, and its sealed report equals the undisturbed one's in everything but
// times and IDs.
import { readFile } from 'node:fs/promises';
import type { PlanReport, PlanStepView, RecoveryPlanResult } from '../../runbooks/recovery-plan/contract';
import { planConfirmUpdate, planStepsQuery } from '../../runbooks/recovery-plan/contract';
import type { RecoveryPlanInput } from '../../runbooks/recovery-plan/plan';
import { generatedResources } from '../seeded';
import { emptyCheck, type RunCheck } from './checks';
import { sleep } from './processes';
import type { RunRecord } from './runs';
import type { TrialEnv, TrialResult } from './trials';

const RESOURCES = 5;
const TIMEOUT_MS = 5 * 60_000;

/** The plan: a → b → (c, d) → confirm → e, each restore of one resource. */
function edgesPlan(name: string, ids: string[], env: TrialEnv, index: number): RecoveryPlanInput {
  const [a, b, c, d, e] = ids;
  if (!a || !b || !c || !d || !e) throw new Error(`the plan needs ${RESOURCES} resources`);
  const restore = (id: string, resourceId: string, after: string[]) => ({
    id,
    kind: 'restore' as const,
    after,
    resource: { id: resourceId },
    destination: env.fixtures.bucket('dr-drill-restores', `reliability/t${index}/plan/${id}/`),
  });
  return {
    name,
    restoreAccountId: env.fixtures.restoreAccountId,
    rtoTargetMinutes: 30,
    steps: [
      restore('a', a, []),
      restore('b', b, ['a']),
      restore('c', c, ['b']),
      restore('d', d, ['b']),
      { id: 'confirm', kind: 'manual', after: ['c', 'd'], instructions: 'confirm', approvers: ['harness'] },
      restore('e', e, ['confirm']),
    ],
  };
}

/** Steps that other steps wait for: where an edge of the graph leaves. */
const EDGE_SOURCES = ['a', 'b', 'c', 'd', 'confirm'];

/** Runs the plan under `workflowId`, confirming its manual step; with `onPassed`, called once per step that passed. */
async function runPlan(
  env: TrialEnv,
  workflowId: string,
  plan: RecoveryPlanInput,
  onPassed?: (stepId: string) => Promise<void>,
): Promise<{ result: RecoveryPlanResult; report: PlanReport; startedAt: number; endedAt: number }> {
  const { client, taskQueue } = env.stack;
  const startedAt = Date.now();
  const handle = await client.workflow.start('recoveryPlan', { taskQueue, workflowId, args: [{ plan }] });
  const seenPassed = new Set<string>();
  let ended = false;
  const ending = handle.result().finally(() => (ended = true)) as Promise<RecoveryPlanResult>;
  ending.catch(() => undefined);
  const deadline = startedAt + TIMEOUT_MS;
  while (!ended && Date.now() < deadline) {
    const steps: PlanStepView[] | undefined = await handle.query(planStepsQuery).catch(() => undefined);
    for (const step of steps ?? []) {
      if (step.status === 'passed' && !seenPassed.has(step.id)) {
        seenPassed.add(step.id);
        await onPassed?.(step.id);
      }
      if (step.id === 'confirm' && step.status === 'running') {
        await handle
          .executeUpdate(planConfirmUpdate, { args: [{ stepId: 'confirm', by: 'harness' }] })
          .catch(() => undefined);
      }
    }
    await sleep(100);
  }
  const result = await Promise.race([
    ending,
    sleep(Math.max(0, deadline - Date.now())).then(() => {
      throw new Error(`${workflowId} did not end within ${TIMEOUT_MS / 1000} s`);
    }),
  ]);
  const report = JSON.parse(await readFile(result.report.json, 'utf8')) as PlanReport;
  return { result, report, startedAt, endedAt: Date.now() };
}

/** A report without what differs between two runs of one plan: times, durations, run and job IDs. */
export function comparable(report: PlanReport): unknown {
  return {
    name: report.name,
    mode: report.mode,
    planSha256: report.planSha256,
    verdict: report.verdict,
    failedSteps: report.failedSteps,
    commonPoint: report.commonPoint && {
      target: report.commonPoint.target,
      at: report.commonPoint.at,
      skewSeconds: report.commonPoint.skewSeconds,
      resources: report.commonPoint.resources,
    },
    rtoTargetSeconds: report.rto.targetSeconds,
    steps: report.steps.map((s) => ({
      id: s.id,
      kind: s.kind,
      after: s.after,
      status: s.status,
      reason: s.reason,
      phases: s.phases.map((p) => p.phase),
      confirmedBy: s.confirmedBy,
      resources: s.resources?.map((r) => ({ resourceId: r.resourceId, snapshotId: r.snapshotId, status: r.status })),
    })),
  };
}

export async function planEdgesTrial(env: TrialEnv, index: number): Promise<TrialResult> {
  const began = Date.now();
  const { stack, fixtures, log } = env;
  const resources = await generatedResources(stack.control, stack.service, RESOURCES);
  const ids = resources.map((r) => r.id);
  const jobs = [];
  for (const id of ids)
    jobs.push(await stack.service.takeSnapshot(id, { vaultId: fixtures.vaultId, retentionDays: 3 }));
  const deadline = Date.now() + 60_000;
  for (const job of jobs) {
    for (;;) {
      const { status } = (await stack.service.getBackupJob(job)).jobExecutionDetails;
      if (status === 'JOB_COMPLETED') break;
      if (status !== 'JOB_PENDING' && status !== 'JOB_RUNNING') throw new Error(`backup job ${job} ended ${status}`);
      if (Date.now() > deadline) throw new Error(`backup job ${job} still ${status} after 60 s`);
      await sleep(500);
    }
  }
  const plan = edgesPlan(`reliability-t${index}-plan`, ids, env, index);

  const undisturbed = await runPlan(env, `reliability-t${index}-plan-undisturbed`, plan);
  const since = (await stack.control.state()).now;
  const victim = stack.workers[0];
  if (!victim) throw new Error('no worker to kill');
  const kills: { at: number; after: string; pauseMs: number; restartedAt: number }[] = [];
  const killed = await runPlan(env, `reliability-t${index}-plan-killed`, plan, async (stepId) => {
    if (!EDGE_SOURCES.includes(stepId)) return;
    const at = Date.now();
    await victim.kill();
    const pauseMs = env.random.int(300, 1_500);
    await sleep(pauseMs);
    await victim.start();
    kills.push({ at, after: stepId, pauseMs, restartedAt: victim.readyAt });
    log(`  kill -9 ${victim.spec.name} once ${stepId} passed, restarted after ${pauseMs} ms`);
  });

  // Each resource restored once by the killed run: its jobs are those created since the undisturbed run ended.
  const { restoreJobs } = await stack.control.jobs();
  const ours = restoreJobs.filter(
    (j) => j.jobExecutionDetails.createdTime >= since && ids.includes(j.resourceDetails?.id ?? ''),
  );
  const perResource = new Map<string, number>();
  for (const j of ours)
    perResource.set(j.resourceDetails?.id ?? '', (perResource.get(j.resourceDetails?.id ?? '') ?? 0) + 1);
  const duplicateJobs = [...perResource.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0);
  const reported = killed.report.steps.flatMap((s) => s.resources ?? []).map((r) => r.restoreJobId ?? '');
  const foreign = reported.filter((id) => !ours.some((j) => j.jobExecutionDetails.jobId === id)).length;

  const problems: string[] = [];
  if (killed.result.verdict !== 'PASS') problems.push(`the killed run ended ${killed.result.verdict}`);
  if (undisturbed.result.verdict !== 'PASS') problems.push(`the undisturbed run ended ${undisturbed.result.verdict}`);
  const missing = ids.filter((id) => !perResource.has(id));
  if (missing.length > 0) problems.push(`not restored in the killed run: ${missing.join(', ')}`);
  if (duplicateJobs > 0) problems.push(`${duplicateJobs} duplicate restore jobs`);
  if (foreign > 0) problems.push(`${foreign} restore jobs in the report are not the run's`);
  if (JSON.stringify(comparable(killed.report)) !== JSON.stringify(comparable(undisturbed.report))) {
    problems.push('the killed run sealed another report than the undisturbed run (besides times and IDs)');
  }
  if (kills.length < EDGE_SOURCES.length) {
    problems.push(`${kills.length} of the ${EDGE_SOURCES.length} edges were hit: the plan ended first`);
  }

  const check: RunCheck = {
    ...emptyCheck(),
    completed: killed.result.verdict === 'PASS',
    jobs: ours.length,
    duplicateJobs,
    foreignAdoptions: foreign,
    problems,
  };
  const run: RunRecord = {
    plan: { kind: 'recovery-plan', runbook: 'recoveryPlan', input: { plan } },
    workflowId: `reliability-t${index}-plan-killed`,
    startedAt: killed.startedAt,
    endedAt: killed.endedAt,
    status: 'COMPLETED',
    result: killed.result,
    heartbeats: [],
    activities: {},
  };
  return {
    index,
    kind: 'kill-plan-edges',
    dialect: stack.dialect,
    disruption: `kill -9 ${victim.spec.name} at each of ${kills.length} edges (after ${kills.map((k) => k.after).join(', ')})`,
    runs: [run],
    checks: [check],
    disrupted: kills.length > 0 ? ['recovery-plan'] : [],
    delays: [],
    crash: true,
    durationMs: Date.now() - began,
    problems,
    notes: [
      `RTO ${killed.report.rto.seconds.toFixed(1)} s killed, ${undisturbed.report.rto.seconds.toFixed(1)} s undisturbed`,
    ],
  };
}
