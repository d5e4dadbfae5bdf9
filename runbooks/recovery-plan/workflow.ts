import { condition, executeChild, isCancellation, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import { heartbeatingCalls, resend, serviceCalls } from '../../runtime/calls';
import { RunbookTracker, parseInput } from '../../runtime/tracker';
import { ValidationDesk } from '../../steps/validation-desk';
import type { Activities } from '../activities';
import type { approvalGatedRestore } from '../approval-gated-restore/workflow';
import type { PlanResource } from './activities';
import {
  RecoveryPlanRunInput,
  planConfirmUpdate,
  planStepsQuery,
  recoveryPlanContract,
  type PhaseInterval,
  type PlanStepConfirmation,
  type PlanStepResult,
  type PlanStepView,
  type RecoveryPlanResult,
} from './contract';
import { dependenciesOf, planRto } from './graph';
import { isolatedDestination, type PlanStep, type RecoveryPlan } from './plan';

const service = serviceCalls<Activities>();
const heartbeating = heartbeatingCalls<Activities>();

type ManualStep = Extract<PlanStep, { kind: 'manual' }>;
type ValidateStep = Extract<PlanStep, { kind: 'validate' }>;
type RestoreStep = Extract<PlanStep, { kind: 'restore' }>;

/** What the steps of one run share. */
interface Run {
  plan: RecoveryPlan;
  mode: 'drill' | 'recover';
  views: Map<string, PlanStepView>;
  /** Each restore step's resources and their points (from the common point). */
  points: Map<string, PlanResource[]>;
  desk: ValidationDesk;
  /** Manual steps waiting, and the confirmations taken. */
  waitingManual: Map<string, ManualStep>;
  confirmed: Map<string, PlanStepConfirmation & { at: string }>;
}

/**
 * Runs an application's recovery plan: one common point in time for every restore, then the steps in dependency
 * order, independent ones at once. A failed step skips its dependents and lets independent branches finish. The sealed
 * report gives one RTO with its parts (critical path, by phase, by step) and the common point with its skew.
 */
export async function recoveryPlan(raw: RecoveryPlanRunInput): Promise<RecoveryPlanResult> {
  const { plan, mode } = parseInput(RecoveryPlanRunInput, raw);
  const tracker = new RunbookTracker(recoveryPlanContract);
  const { workflowId, runId } = workflowInfo();
  const startedAt = new Date();
  const run: Run = {
    plan,
    mode,
    views: new Map(plan.steps.map((s) => [s.id, pendingView(s)])),
    points: new Map(),
    desk: new ValidationDesk(workflowId, 'plan'),
    waitingManual: new Map(),
    confirmed: new Map(),
  };
  setHandler(planStepsQuery, () => plan.steps.map((s) => run.views.get(s.id) ?? pendingView(s)));
  setHandler(planConfirmUpdate, (c) => confirm(run, c), {
    validator: (c: PlanStepConfirmation) => checkConfirmation(run, c),
  });

  tracker.phase('choosing the common point');
  const restores = plan.steps.filter((s): s is RestoreStep => s.kind === 'restore');
  const chosen = restores.length
    ? await service.choosePlanPoints({
        restores: restores.map((s) => ({ stepId: s.id, resource: s.resource })),
        ...plan.pointInTime,
      })
    : undefined;
  for (const r of chosen?.resources ?? []) run.points.set(r.stepId, [...(run.points.get(r.stepId) ?? []), r]);

  tracker.phase('running steps', { progress: { done: 0, total: plan.steps.length, unit: 'steps' } });
  await runSteps(run, () => {
    const done = [...run.views.values()].filter((v) => v.status !== 'pending' && v.status !== 'running').length;
    tracker.progress(done, plan.steps.length, 'steps');
  });

  tracker.phase('writing report');
  const steps = plan.steps.map((s) => finalResult(run.views.get(s.id) ?? pendingView(s)));
  const failedSteps = steps.filter((s) => s.status === 'failed').map((s) => s.id);
  const verdict = steps.every((s) => s.status === 'passed') ? ('PASS' as const) : ('FAIL' as const);
  const rto = planRto({ startedAt: startedAt.toISOString(), steps, targetSeconds: plan.rtoTargetMinutes * 60 });
  const oldest = chosen && Math.min(...chosen.resources.map((r) => Date.parse(r.pointInTime)));
  const report = await service.writePlanReport({
    report: {
      name: plan.name,
      mode,
      workflowId,
      runId,
      planSha256: await service.planDigest({ plan }),
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      verdict,
      failedSteps,
      // On the service's clock, as the points' times are.
      ...(chosen
        ? { commonPoint: chosen.commonPoint, rpoSeconds: (Date.parse(chosen.serviceNow) - (oldest ?? 0)) / 1000 }
        : {}),
      rto,
      steps,
    },
  });
  tracker.phase('completed', { detail: `${verdict}: RTO ${rto.seconds} s of ${rto.targetSeconds} s` });
  return { report, verdict, failedSteps, rtoSeconds: rto.seconds };
}

/**
 * Starts each step once its dependencies have passed, and skips it once one has failed or been skipped; waits for a
 * step to end before looking again. Ends when no step is pending or running.
 */
async function runSteps(run: Run, onChange: () => void): Promise<void> {
  let ended = 0;
  let running = 0;
  for (;;) {
    for (const step of run.plan.steps) {
      const view = run.views.get(step.id);
      if (view?.status !== 'pending') continue;
      const deps = dependenciesOf(step).map((id) => ({ id, status: run.views.get(id)?.status }));
      const blocked = deps.find((d) => d.status === 'failed' || d.status === 'skipped');
      if (blocked) {
        run.views.set(step.id, { ...view, status: 'skipped', reason: `skipped: ${blocked.id} ${blocked.status}` });
        onChange();
        continue;
      }
      if (!deps.every((d) => d.status === 'passed')) continue;
      running += 1;
      void runStep(run, step).finally(() => {
        running -= 1;
        ended += 1;
        onChange();
      });
    }
    if (running === 0 && ![...run.views.values()].some((v) => v.status === 'pending')) return;
    const seen = ended;
    await condition(() => ended > seen);
  }
}

/** Runs one step, recording its result in the run's views; never throws but for cancellation. */
async function runStep(run: Run, step: PlanStep): Promise<void> {
  const began = new Date().toISOString();
  const phases: PhaseInterval[] = [];
  const update = (patch: Partial<PlanStepView>) => {
    const view = run.views.get(step.id) ?? pendingView(step);
    run.views.set(step.id, { ...view, ...patch });
  };
  update({ status: 'running', startedAt: began, phases });
  try {
    const outcome = await stepBody(run, step, phases, update);
    const endedAt = new Date().toISOString();
    const seconds = (Date.parse(endedAt) - Date.parse(began)) / 1000;
    const target = step.rtoTargetMinutes === undefined ? {} : targetOf(step.rtoTargetMinutes, seconds);
    update({ ...outcome, status: outcome.reason ? 'failed' : 'passed', endedAt, phases, ...target });
  } catch (err) {
    if (isCancellation(err)) throw err;
    update({ status: 'failed', endedAt: new Date().toISOString(), phases, reason: messageOf(err) });
  }
}

type Outcome = Partial<PlanStepResult> & { reason?: string };

function stepBody(
  run: Run,
  step: PlanStep,
  phases: PhaseInterval[],
  update: (patch: Partial<PlanStepView>) => void,
): Promise<Outcome> {
  switch (step.kind) {
    case 'restore':
      return restoreStep(run, step, phases, update);
    case 'validate':
      return validateStep(run, step, phases);
    case 'manual':
      return manualStep(run, step, phases);
    case 'wait':
      return waitStep(step, phases);
  }
}

/**
 * Restores each of the step's resources from its common point, at once, each through an approval-gated restore (a
 * child workflow): a restore that needs approval waits for its quorum there, with its windows and nudges.
 */
async function restoreStep(
  run: Run,
  step: RestoreStep,
  phases: PhaseInterval[],
  update: (patch: Partial<PlanStepView>) => void,
): Promise<Outcome> {
  const { workflowId, runId } = workflowInfo();
  const destination = run.mode === 'drill' ? isolatedDestination(step.destination, runId) : step.destination;
  const resources = await Promise.all(
    (run.points.get(step.id) ?? []).map(async (r) => {
      const childId = `${workflowId}--${step.id}--${r.resourceId}`;
      const base = { ...r, workflowId: childId };
      try {
        const restored = await executeChild<typeof approvalGatedRestore>('approvalGatedRestore', {
          workflowId: childId,
          args: [
            {
              resourceId: r.resourceId,
              snapshotId: r.snapshotId,
              kind: step.restoreKind,
              restoreAccountId: run.plan.restoreAccountId,
              destination,
              ...(step.restoreKind === 'files' ? { files: step.files } : {}),
              comment: step.comment ?? `recovery plan ${run.plan.name}, step ${step.id} (${run.mode})`,
            },
          ],
        });
        const { startedAt, approvedAt, restoreStartedAt, finishedAt } = restored.timings;
        if (approvedAt) phases.push({ phase: 'approval', startedAt, endedAt: approvedAt });
        phases.push({ phase: 'restore', startedAt: restoreStartedAt, endedAt: finishedAt });
        const ok = restored.job.succeeded && restored.job.outcome !== 'PARTIAL';
        return {
          ...base,
          restoreJobId: restored.job.jobId,
          status: ok ? ('succeeded' as const) : ('failed' as const),
          ...(ok ? {} : { detail: `restore ${restored.job.status}: ${restored.job.statusMessage ?? ''}` }),
        };
      } catch (err) {
        if (isCancellation(err)) throw err;
        return { ...base, status: 'failed' as const, detail: messageOf(err) };
      }
    }),
  );
  update({ resources });
  const failed = resources.filter((r) => r.status === 'failed');
  const reason = failed.length
    ? `${failed.length} of ${resources.length} restores failed: ` +
      failed.map((r) => `${r.resourceId}: ${r.detail ?? ''}`).join('; ')
    : undefined;
  return { resources, ...(reason ? { reason } : {}) };
}

/** Validates each resource its restore step restored: a query on its point's database, or a verdict from outside. */
async function validateStep(run: Run, step: ValidateStep, phases: PhaseInterval[]): Promise<Outcome> {
  const began = new Date().toISOString();
  const restored = run.views.get(step.of)?.resources?.filter((r) => r.status === 'succeeded') ?? [];
  const validations = await Promise.all(
    restored.map(async (r) => {
      if (step.sql) {
        const { databaseName, query, expectation, destination } = step.sql;
        const checked = await heartbeating.checkRecoveryPoint({
          snapshotId: r.snapshotId,
          restoreAccountId: run.plan.restoreAccountId,
          check: {
            name: step.id,
            databaseName,
            destination,
            queries: [{ name: step.id, sql: query, expect: expectation }],
          },
        });
        const q = checked.queries[0];
        const detail = `${query}: ${q?.rows ?? 0} rows, expected ${expectation}`;
        return { resourceId: r.resourceId, passed: checked.verdict === 'pass', detail };
      }
      return externalVerdict(run, step, r);
    }),
  );
  phases.push({ phase: 'validate', startedAt: began, endedAt: new Date().toISOString() });
  const failed = validations.filter((v) => !v.passed);
  const reason = failed.length ? failed.map((v) => `${v.resourceId}: ${v.detail}`).join('; ') : undefined;
  return { validations, ...(reason ? { reason } : {}) };
}

/** Asks for a verdict on one restored resource (drill.validation.requested) and waits for it, up to the window. */
async function externalVerdict(
  run: Run,
  step: ValidateStep,
  r: NonNullable<PlanStepResult['resources']>[number],
): Promise<{ resourceId: string; passed: boolean; detail: string }> {
  const external = step.external;
  if (!external) throw new Error('a validate step without sql or external'); // refused by the schema
  const deadline = new Date(Date.now() + external.windowHours * 3600 * 1000);
  const { workflowId } = workflowInfo();
  const sent = await service.requestDrillValidation({
    notice: {
      name: `${run.plan.name}: ${step.id}`,
      resourceId: r.resourceId,
      resourceName: r.resourceName,
      resourceType: r.resourceType,
      restoreJobId: r.restoreJobId ?? '',
      restoredTo: null,
      recoveryPoint: { snapshotId: r.snapshotId, pointInTime: r.pointInTime },
      deadline: deadline.toISOString(),
      answerWith: `runbooks drill validate ${workflowId} --resource ${r.resourceId} --result pass|fail`,
    },
    ...(external.notify ? { target: external.notify } : {}),
  });
  resend(sent, external.notify);
  const answer = await run.desk.verdictOn(r.resourceId, deadline);
  if (!answer)
    return { resourceId: r.resourceId, passed: false, detail: `no verdict within ${external.windowHours} h` };
  const said = answer.message ? `: ${answer.message}` : '';
  return { resourceId: r.resourceId, passed: answer.result === 'pass', detail: `validation ${answer.result}${said}` };
}

/** Waits for a person to confirm the step (`runbooks plan confirm`), up to its timeout. */
async function manualStep(run: Run, step: ManualStep, phases: PhaseInterval[]): Promise<Outcome> {
  const began = new Date().toISOString();
  run.waitingManual.set(step.id, step);
  const confirmedInTime = await condition(() => run.confirmed.has(step.id), `${step.timeoutHours} hours`);
  run.waitingManual.delete(step.id);
  const confirmation = run.confirmed.get(step.id);
  phases.push({ phase: 'manual', startedAt: began, endedAt: confirmation?.at ?? new Date().toISOString() });
  if (!confirmedInTime || !confirmation) return { reason: `not confirmed within ${step.timeoutHours} h` };
  return { confirmedBy: confirmation.by, ...(confirmation.note ? { note: confirmation.note } : {}) };
}

async function waitStep(step: Extract<PlanStep, { kind: 'wait' }>, phases: PhaseInterval[]): Promise<Outcome> {
  const began = new Date();
  const ms = step.seconds !== undefined ? step.seconds * 1000 : Date.parse(step.until ?? '') - began.getTime();
  if (ms > 0) await sleep(ms);
  phases.push({ phase: 'wait', startedAt: began.toISOString(), endedAt: new Date().toISOString() });
  return {};
}

/** Refuses a confirmation the plan cannot take: no such step waiting, or someone not among its approvers. */
function checkConfirmation(run: Run, c: PlanStepConfirmation): void {
  if (typeof c?.stepId !== 'string' || typeof c.by !== 'string' || c.by.trim() === '') {
    throw new Error('a confirmation names the step (stepId) and who confirms (by)');
  }
  const step = run.waitingManual.get(c.stepId);
  if (!step) {
    const known = run.views.get(c.stepId);
    throw new Error(
      known
        ? `step ${c.stepId} is not waiting for a confirmation (it is ${known.status})`
        : `plan ${run.plan.name} has no step ${c.stepId}`,
    );
  }
  if (step.approvers && !step.approvers.includes(c.by)) {
    throw new Error(`${c.by} may not confirm step ${c.stepId}: its approvers are ${step.approvers.join(', ')}`);
  }
}

function confirm(run: Run, c: PlanStepConfirmation) {
  run.confirmed.set(c.stepId, { ...c, at: new Date().toISOString() });
  return { stepId: c.stepId, confirmedBy: c.by };
}

function pendingView(step: PlanStep): PlanStepView {
  return {
    id: step.id,
    kind: step.kind,
    after: step.after,
    ...(step.kind === 'validate' ? { of: step.of } : {}),
    status: 'pending',
    phases: [],
    ...(step.rtoTargetMinutes === undefined ? {} : { rtoTargetSeconds: step.rtoTargetMinutes * 60 }),
  };
}

/** A view as the report keeps it: every step has ended or been skipped by now. */
function finalResult(view: PlanStepView): PlanStepResult {
  const status = view.status === 'pending' || view.status === 'running' ? 'skipped' : view.status;
  return { ...view, status };
}

function targetOf(minutes: number, seconds: number) {
  return { rtoTargetSeconds: minutes * 60, targetMet: seconds <= minutes * 60 };
}

function messageOf(err: unknown): string {
  const cause = (err as { cause?: { message?: string } }).cause?.message;
  const message = err instanceof Error ? err.message : String(err);
  return cause ? `${message}: ${cause}` : message;
}
