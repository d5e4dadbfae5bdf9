// Continue-as-new. A plan of hundreds of steps would grow one history past what Temporal keeps well, so past
// PLAN_HISTORY_BOUND events a run hands over to a new one (`PlanHandOver`): it starts no more steps, waits until each
// running step is parked (waiting only on what outlives the run: a restore's end, a verdict, a confirmation, a time),
// and continues as new with every step as it stands. The new run takes the running steps where they were. Restores are
// child workflows with the ABANDON parent-close policy: the run that started one awaits its result; a later run asks
// it (reportEnd) to tell its end by signal to the plan's workflow ID, looks once at those that closed before, and asks
// after them every ASK_AFTER_INHERITED_MS (one terminated from outside never tells). Only restores that cross a
// hand-over signal: the others cost their plan no more than an awaited child.
import {
  ApplicationFailure,
  CancellationScope,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  continueAsNew,
  executeChild,
  getExternalWorkflowHandle,
  isCancellation,
  setHandler,
  sleep,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { APPROVAL_REFUSALS, FailureType, failureMessage, failureTypeOf } from '../../contracts';
import { heartbeatingCalls, resend, serviceCalls } from '../../runtime/calls';
import { RunbookTracker, parseInput } from '../../runtime/tracker';
import { ValidationDesk } from '../../steps/validation-desk';
import type { Activities } from '../activities';
import { reportEndSignal, restoreEndedSignal, type RestoreEnded } from '../approval-gated-restore/contract';
import type { approvalGatedRestore } from '../approval-gated-restore/workflow';
import type { cleanPoint } from '../clean-point/workflow';
import { timestampsLater, timestampsOutcome } from '../dr-drill/timestamps';
import type { PlanResource } from './activities';
import {
  RecoveryPlanRunInput,
  planConfirmUpdate,
  planStepsQuery,
  recoveryPlanContract,
  type PhaseInterval,
  type PlanCleanPoint,
  type PlanHandOver,
  type PlanStepConfirmation,
  type PlanStepResult,
  type PlanStepView,
  type RecoveryPlanResult,
} from './contract';
import { dependenciesOf, planRto } from './graph';
import { isolatedDestination, type CleanSearch, type PlanStep, type RecoveryPlan } from './plan';

const service = serviceCalls<Activities>();
const heartbeating = heartbeatingCalls<Activities>();

/** Past this many events a run hands over to the next (Temporal warns at 10,240; a plan keeps under 2,000). */
export const PLAN_HISTORY_BOUND = 1_500;
/** How often a run asks after the restores an earlier run started, whose ends it cannot await. */
const ASK_AFTER_INHERITED_MS = 5 * 60_000;

type ManualStep = Extract<PlanStep, { kind: 'manual' }>;
type ValidateStep = Extract<PlanStep, { kind: 'validate' }>;
type RestoreStep = Extract<PlanStep, { kind: 'restore' }>;
type Chosen = NonNullable<PlanHandOver['chosen']>;

/** What the steps of one run share. */
interface Run {
  plan: RecoveryPlan;
  mode: 'drill' | 'recover';
  /** The first run's ID: destinations and the report keep it across runs. */
  firstRunId: string;
  views: Map<string, PlanStepView>;
  /** Each restore step's resources and their points (from the common point). */
  points: Map<string, PlanResource[]>;
  desk: ValidationDesk;
  /** Manual steps waiting, and the confirmations taken. */
  waitingManual: Map<string, ManualStep>;
  confirmed: Map<string, PlanStepConfirmation & { at: string }>;
  /** Restores' ends by their workflow ID, from their results, their signals or a look. */
  restoreEnds: Map<string, RestoreEnded>;
  /** Restores this run started: it awaits their results; it asks after the others. */
  startedHere: Set<string>;
  /** Running steps that wait only on what outlives a run: a hand-over waits for every running step to be parked. */
  parked: Set<string>;
  /** Bumped when a step ends or a restore does: the loop looks again. */
  version: number;
}

/**
 * Runs an application's recovery plan: one common point in time for every restore, then the steps in dependency
 * order, independent ones at once. A failed step skips its dependents and lets independent branches finish. The sealed
 * report gives one RTO with its parts (critical path, by phase, by step) and the common point with its skew.
 */
export async function recoveryPlan(raw: RecoveryPlanRunInput, handedOver?: PlanHandOver): Promise<RecoveryPlanResult> {
  const { plan, mode, tuning } = parseInput(RecoveryPlanRunInput, raw);
  const tracker = new RunbookTracker(recoveryPlanContract);
  const { workflowId, firstExecutionRunId } = workflowInfo();
  const startedAt = handedOver?.startedAt ?? new Date().toISOString();
  const run: Run = {
    plan,
    mode,
    firstRunId: handedOver?.firstRunId ?? firstExecutionRunId,
    views: new Map(plan.steps.map((s) => [s.id, pendingView(s)])),
    points: new Map(),
    desk: new ValidationDesk(workflowId, 'plan', handedOver?.verdicts),
    waitingManual: new Map(),
    confirmed: new Map(handedOver?.confirmed.map((c) => [c.stepId, c])),
    restoreEnds: new Map(handedOver?.restoreEnds.map((e) => [e.workflowId, e])),
    startedHere: new Set(),
    parked: new Set(),
    version: 0,
  };
  for (const view of handedOver?.steps ?? []) run.views.set(view.id, view);
  setHandler(planStepsQuery, () => plan.steps.map((s) => run.views.get(s.id) ?? pendingView(s)));
  setHandler(planConfirmUpdate, (c) => confirm(run, c), {
    validator: (c: PlanStepConfirmation) => checkConfirmation(run, c),
  });
  setHandler(restoreEndedSignal, (end) => restoreEnded(run, end));

  let chosen = handedOver?.chosen;
  if (!handedOver) {
    tracker.phase('choosing the common point');
    chosen = await commonPointOf(plan);
  }
  for (const r of chosen?.resources ?? []) run.points.set(r.stepId, [...(run.points.get(r.stepId) ?? []), r]);

  const showProgress = () => {
    const done = [...run.views.values()].filter((v) => v.status !== 'pending' && v.status !== 'running').length;
    tracker.progress(done, plan.steps.length, 'steps');
  };
  tracker.phase('running steps', { progress: { done: 0, total: plan.steps.length, unit: 'steps' } });
  showProgress();
  let handingOver: boolean;
  try {
    handingOver = await runSteps(run, tuning?.historyBound ?? PLAN_HISTORY_BOUND, showProgress);
  } catch (err) {
    // The restores outlive a run (ABANDON): a cancelled plan cancels them, and each withdraws its approval request.
    if (isCancellation(err)) await cancelRestores(run);
    throw err;
  }
  if (handingOver) return await continueAsNew<typeof recoveryPlan>(raw, handOver(run, startedAt, chosen, handedOver));

  tracker.phase('writing report');
  const steps = plan.steps.map((s) => finalResult(run.views.get(s.id) ?? pendingView(s)));
  const report = await writeReport(run, { startedAt, chosen, steps });
  tracker.phase('completed', {
    detail: `${report.verdict}: RTO ${report.rtoSeconds} s of ${plan.rtoTargetMinutes * 60} s`,
  });
  return report;
}

/**
 * One point for every restore. With `latest-clean`, the last clean point of each resource searched (a cleanPoint
 * child per resource) first: the oldest of them is the target, and the report keeps each search's answer.
 */
async function commonPointOf(plan: RecoveryPlan): Promise<Chosen | undefined> {
  const restores = plan.steps
    .filter((s): s is RestoreStep => s.kind === 'restore')
    .map((s) => ({ stepId: s.id, resource: s.resource }));
  if (restores.length === 0) return undefined;
  const { clean: searches, ...pointInTime } = plan.pointInTime;
  if (!searches) return service.choosePlanPoints({ restores, ...pointInTime });
  const clean = await lastCleanPoints(plan, searches, restores);
  const target = new Date(Math.min(...clean.map((c) => Date.parse(c.pointInTime)))).toISOString();
  const chosen = await service.choosePlanPoints({ restores, ...pointInTime, target });
  return { ...chosen, commonPoint: { ...chosen.commonPoint, target: 'latest-clean', clean } };
}

/** Searches each resource of the `clean` steps for its last clean point; one with none fails the plan, naming it. */
async function lastCleanPoints(
  plan: RecoveryPlan,
  searches: CleanSearch[],
  restores: { stepId: string; resource: RestoreStep['resource'] }[],
): Promise<PlanCleanPoint[]> {
  const { workflowId } = workflowInfo();
  const searched = await service.planStepResources({
    restores: restores.filter((r) => searches.some((s) => s.step === r.stepId)),
  });
  const found = await Promise.all(
    searched.resources.map(async ({ stepId, resourceId }) => {
      const check = searches.find((s) => s.step === stepId)?.check;
      if (!check) throw new Error(`no check for step ${stepId}`); // searched came from these searches' steps
      const childId = `${workflowId}--clean--${stepId}--${resourceId}`;
      const result = await executeChild<typeof cleanPoint>('cleanPoint', {
        workflowId: childId,
        args: [
          {
            resourceId,
            check,
            restoreAccountId: plan.restoreAccountId,
            windowDays: plan.pointInTime.windowDays,
            before: searched.serviceNow,
          },
        ],
      });
      return { stepId, resourceId, childId, result };
    }),
  );
  const none = found.filter((f) => !f.result.clean);
  if (none.length > 0) {
    throw ApplicationFailure.create({
      type: FailureType.NoCommonPoint,
      nonRetryable: true,
      message:
        'no clean point to recover from: ' +
        none.map((f) => `${f.resourceId} (step ${f.stepId}): ${f.result.verdict}`).join('; '),
    });
  }
  return found.flatMap(({ stepId, resourceId, childId, result }) =>
    result.clean
      ? [
          {
            stepId,
            resourceId,
            snapshotId: result.clean.snapshotId,
            pointInTime: result.clean.pointInTime,
            check: { name: result.check.name, sha256: result.check.sha256 },
            examined: result.examined.length,
            verdict: result.verdict,
            workflowId: childId,
          },
        ]
      : [],
  );
}

async function writeReport(
  run: Run,
  { startedAt, chosen, steps }: { startedAt: string; chosen: Chosen | undefined; steps: PlanStepResult[] },
): Promise<RecoveryPlanResult> {
  const { plan, mode } = run;
  const failedSteps = steps.filter((s) => s.status === 'failed').map((s) => s.id);
  const verdict = steps.every((s) => s.status === 'passed') ? ('PASS' as const) : ('FAIL' as const);
  const rto = planRto({ startedAt, steps, targetSeconds: plan.rtoTargetMinutes * 60 });
  const oldest = chosen && Math.min(...chosen.resources.map((r) => Date.parse(r.pointInTime)));
  const { timestamps, ...report } = await service.writePlanReport({
    report: {
      name: plan.name,
      mode,
      workflowId: workflowInfo().workflowId,
      runId: run.firstRunId,
      planSha256: await service.planDigest({ plan }),
      startedAt,
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
  // Tokens the authority could not give now are asked for by a run of their own: the verdict never waits on them.
  await timestampsLater(timestamps?.pending);
  return { report, verdict, failedSteps, rtoSeconds: rto.seconds, ...timestampsOutcome(timestamps) };
}

/**
 * Starts each step once its dependencies have passed, and skips it once one has failed or been skipped; steps an
 * earlier run left running go on where they were. Ends when no step is pending or running (false), or when the
 * history has grown long and every running step is parked (true: hand over).
 */
async function runSteps(run: Run, historyBound: number, onChange: () => void): Promise<boolean> {
  const ended = () => {
    run.version += 1;
    onChange();
  };
  const historyIsLong = () => workflowInfo().historyLength > historyBound || workflowInfo().continueAsNewSuggested;
  for (const step of run.plan.steps) {
    if (run.views.get(step.id)?.status === 'running') void runStep(run, step).then(ended, ended);
  }
  if (inheritedRestores(run).length > 0) await adoptRestores(run);
  for (;;) {
    startReady(run, ended);
    const views = [...run.views.values()];
    if (!views.some((v) => v.status === 'pending' || v.status === 'running')) return false;
    if (historyIsLong()) {
      const parked = () => [...run.views.values()].every((v) => v.status !== 'running' || run.parked.has(v.id));
      await condition(() => parked() && allHandlersFinished());
      return true;
    }
    const seen = run.version;
    const lookAgain = () => run.version !== seen || historyIsLong();
    if (inheritedRestores(run).length === 0) await condition(lookAgain);
    else if (!(await condition(lookAgain, ASK_AFTER_INHERITED_MS))) await askAfterInherited(run);
  }
}

/** Starts the pending steps whose dependencies passed; skips those one of whose dependencies did not. */
function startReady(run: Run, ended: () => void): void {
  for (const step of run.plan.steps) {
    const view = run.views.get(step.id);
    if (view?.status !== 'pending') continue;
    const deps = dependenciesOf(step).map((id) => ({ id, status: run.views.get(id)?.status }));
    const blocked = deps.find((d) => d.status === 'failed' || d.status === 'skipped');
    if (blocked) {
      run.views.set(step.id, { ...view, status: 'skipped', reason: `skipped: ${blocked.id} ${blocked.status}` });
      ended();
    } else if (deps.every((d) => d.status === 'passed')) {
      run.views.set(step.id, { ...view, status: 'running', startedAt: new Date().toISOString(), phases: [] });
      void runStep(run, step).then(ended, ended);
    }
  }
}

/** Runs (or goes on with) one running step, recording its result in the run's views; never throws but for cancellation. */
async function runStep(run: Run, step: PlanStep): Promise<void> {
  const view = () => run.views.get(step.id) ?? pendingView(step);
  const update = (patch: Partial<PlanStepView>) => run.views.set(step.id, { ...view(), ...patch });
  const began = view().startedAt ?? new Date().toISOString();
  try {
    const outcome = await stepBody(run, step, view().phases, update);
    const endedAt = new Date().toISOString();
    const seconds = (Date.parse(endedAt) - Date.parse(began)) / 1000;
    const target = step.rtoTargetMinutes === undefined ? {} : targetOf(step.rtoTargetMinutes, seconds);
    update({ ...outcome, status: outcome.reason ? 'failed' : 'passed', endedAt, ...target });
  } catch (err) {
    if (isCancellation(err)) throw err;
    update({ status: 'failed', endedAt: new Date().toISOString(), reason: failureMessage(err) });
  } finally {
    run.parked.delete(step.id);
  }
}

type Outcome = Omit<Partial<PlanStepResult>, 'resources'> & { resources?: PlanStepView['resources']; reason?: string };

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
      return waitStep(run, step, phases);
  }
}

/**
 * Restores each of the step's resources from its common point, at once, each through an approval-gated restore (a
 * child workflow): a restore that needs approval waits for its quorum there, with its windows and nudges. Restores an
 * earlier run started are waited for, not started again.
 */
async function restoreStep(
  run: Run,
  step: RestoreStep,
  phases: PhaseInterval[],
  update: (patch: Partial<PlanStepView>) => void,
): Promise<Outcome> {
  const { workflowId } = workflowInfo();
  const destination = run.mode === 'drill' ? isolatedDestination(step.destination, run.firstRunId) : step.destination;
  const before = new Map((run.views.get(step.id)?.resources ?? []).map((r) => [r.resourceId, r]));
  const resources: NonNullable<PlanStepView['resources']> = (run.points.get(step.id) ?? []).map(
    (r) =>
      before.get(r.resourceId) ?? { ...r, workflowId: `${workflowId}--${step.id}--${r.resourceId}`, status: 'running' },
  );
  const toStart = resources.filter((r) => r.status === 'running' && !before.has(r.resourceId));
  await Promise.all(
    toStart.map(async (r) => {
      try {
        const handle = await startChild<typeof approvalGatedRestore>('approvalGatedRestore', {
          workflowId: r.workflowId,
          parentClosePolicy: ParentClosePolicy.ABANDON,
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
        run.startedHere.add(r.workflowId);
        handle.result().then(
          (result) => restoreEnded(run, { workflowId: r.workflowId, result }),
          (err: unknown) => restoreEnded(run, failedEnd(r.workflowId, err)),
        );
      } catch (err) {
        if (isCancellation(err)) throw err;
        restoreEnded(run, failedEnd(r.workflowId, err));
      }
    }),
  );
  update({ resources });
  run.parked.add(step.id);
  const ends = await Promise.all(
    resources.map(async (r) => {
      if (r.status !== 'running') return r;
      await condition(() => run.restoreEnds.has(r.workflowId));
      const end = run.restoreEnds.get(r.workflowId) ?? { workflowId: r.workflowId, error: 'no end' };
      const result = restoredFrom(r, end, phases, startOf(run, step));
      // Each end as it comes: `plan status` shows it, and a hand-over carries it.
      update({
        resources: (run.views.get(step.id)?.resources ?? []).map((x) => (x.resourceId === r.resourceId ? result : x)),
      });
      return result;
    }),
  );
  run.parked.delete(step.id);
  const failed = ends.filter((r) => r.status === 'failed');
  const reason = failed.length
    ? `${failed.length} of ${ends.length} restores failed: ` +
      failed.map((r) => `${r.resourceId}: ${r.detail ?? ''}`).join('; ')
    : undefined;
  return { resources: ends, ...(reason ? { reason } : {}) };
}

/** A restore's result, from its end, adding its approval and restore phases to the step's. */
function restoredFrom(
  r: NonNullable<PlanStepView['resources']>[number],
  end: RestoreEnded,
  phases: PhaseInterval[],
  stepStart: Date,
): NonNullable<PlanStepResult['resources']>[number] {
  if (!end.result) {
    // An approval refused or expired: the reviewers' time, from the restore's start (the step's) to the refusal.
    if (end.errorType && APPROVAL_REFUSALS.includes(end.errorType)) {
      const endedAt = end.failedAt ?? new Date().toISOString();
      phases.push({ phase: 'approval', startedAt: stepStart.toISOString(), endedAt });
    }
    return { ...r, status: 'failed', detail: end.error ?? 'ended without a result' };
  }
  const { job, timings } = end.result;
  if (timings.approvedAt) phases.push({ phase: 'approval', startedAt: timings.startedAt, endedAt: timings.approvedAt });
  phases.push({ phase: 'restore', startedAt: timings.restoreStartedAt, endedAt: timings.finishedAt });
  const ok = job.succeeded && job.outcome !== 'PARTIAL';
  return {
    ...r,
    restoreJobId: job.jobId,
    status: ok ? 'succeeded' : 'failed',
    ...(ok ? {} : { detail: `restore ${job.status}: ${job.statusMessage ?? ''}` }),
  };
}

function failedEnd(workflowId: string, err: unknown): RestoreEnded {
  const errorType = failureTypeOf(err);
  return { workflowId, error: failureMessage(err), ...(errorType ? { errorType } : {}) };
}

/** Takes a restore's end once, from whichever way it came first. */
function restoreEnded(run: Run, end: RestoreEnded): void {
  if (run.restoreEnds.has(end.workflowId)) return;
  run.restoreEnds.set(end.workflowId, end);
  run.version += 1;
}

/** Restores an earlier run started whose ends have not come. */
function inheritedRestores(run: Run): string[] {
  return [...run.views.values()]
    .flatMap((v) => v.resources ?? [])
    .filter((r) => r.status === 'running' && !run.startedHere.has(r.workflowId) && !run.restoreEnds.has(r.workflowId))
    .map((r) => r.workflowId);
}

/**
 * Asks each restore an earlier run started to tell its end to this workflow ID (it cannot be awaited from here), then
 * looks once at those that closed before they were asked.
 */
async function adoptRestores(run: Run): Promise<void> {
  const to = workflowInfo().workflowId;
  await Promise.all(
    inheritedRestores(run).map(
      (id) =>
        getExternalWorkflowHandle(id)
          .signal(reportEndSignal, { to })
          .catch(() => undefined), // closed already: the look below finds how
    ),
  );
  await askAfterInherited(run);
}

/** Asks after inherited restores: one closed without telling its end (terminated, say) ends with how it closed. */
async function askAfterInherited(run: Run): Promise<void> {
  const closed = await service.closedPlanRestores({ workflowIds: inheritedRestores(run) });
  for (const c of closed) {
    restoreEnded(
      run,
      c.result
        ? { workflowId: c.workflowId, result: c.result }
        : { workflowId: c.workflowId, error: `restore run closed (${c.status}) without telling its end` },
    );
  }
}

/** Cancels every restore still running, whichever run started it. */
async function cancelRestores(run: Run): Promise<void> {
  const running = [...run.views.values()]
    .flatMap((v) => v.resources ?? [])
    .filter((r) => r.status === 'running' && !run.restoreEnds.has(r.workflowId));
  await CancellationScope.nonCancellable(() =>
    Promise.all(
      running.map((r) =>
        getExternalWorkflowHandle(r.workflowId)
          .cancel()
          .catch(() => undefined),
      ),
    ),
  );
}

/** What the next run takes over. */
function handOver(
  run: Run,
  startedAt: string,
  chosen: Chosen | undefined,
  before: PlanHandOver | undefined,
): PlanHandOver {
  const steps = run.plan.steps.map((s) => run.views.get(s.id) ?? pendingView(s));
  const runningIn = (v: PlanStepView, workflowId: string) =>
    v.resources?.some((r) => r.workflowId === workflowId && r.status === 'running') ?? false;
  return {
    startedAt,
    firstRunId: run.firstRunId,
    ...(chosen ? { chosen } : {}),
    steps,
    confirmed: [...run.confirmed.values()],
    verdicts: run.desk.carried(),
    restoreEnds: [...run.restoreEnds.values()].filter((e) => steps.some((v) => runningIn(v, e.workflowId))),
    runs: (before?.runs ?? 0) + 1,
  };
}

/** Validates each resource its restore step restored: a query on its point's database, or a verdict from outside. */
async function validateStep(run: Run, step: ValidateStep, phases: PhaseInterval[]): Promise<Outcome> {
  const began = startOf(run, step);
  const restored = run.views.get(step.of)?.resources?.filter((r) => r.status === 'succeeded') ?? [];
  const validations = step.external
    ? await externalVerdicts(run, step, step.external, restored)
    : await Promise.all(restored.map((r) => sqlVerdict(run, step, r)));
  phases.push({ phase: 'validate', startedAt: began.toISOString(), endedAt: new Date().toISOString() });
  const failed = validations.filter((v) => !v.passed);
  const reason = failed.length ? failed.map((v) => `${v.resourceId}: ${v.detail}`).join('; ') : undefined;
  return { validations, ...(reason ? { reason } : {}) };
}

type Restored = NonNullable<PlanStepView['resources']>[number];
type Validation = NonNullable<PlanStepResult['validations']>[number];

async function sqlVerdict(run: Run, step: ValidateStep, r: Restored): Promise<Validation> {
  if (!step.sql) throw new Error('a validate step without sql or external'); // refused by the schema
  const { databaseName, query, expectation, destination } = step.sql;
  const checked = await heartbeating.checkRecoveryPoint({
    snapshotId: r.snapshotId,
    restoreAccountId: run.plan.restoreAccountId,
    check: { name: step.id, databaseName, destination, queries: [{ name: step.id, sql: query, expect: expectation }] },
  });
  const detail = `${query}: ${checked.queries[0]?.rows ?? 0} rows, expected ${expectation}`;
  return { resourceId: r.resourceId, passed: checked.verdict === 'pass', detail };
}

/**
 * Asks for a verdict on each restored resource (drill.validation.requested) and waits for them, up to the window
 * from the step's start. A verdict an earlier run asked for is waited for, not asked again.
 */
async function externalVerdicts(
  run: Run,
  step: ValidateStep,
  external: NonNullable<ValidateStep['external']>,
  restored: Restored[],
): Promise<Validation[]> {
  const deadline = new Date(startOf(run, step).getTime() + external.windowHours * 3600 * 1000);
  const { workflowId } = workflowInfo();
  const allAsked = () => restored.every((r) => run.desk.asked(r.resourceId));
  const verdictOf = async (r: Restored) => {
    if (run.desk.asked(r.resourceId)) return run.desk.verdictAskedBefore(r.resourceId);
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
    const answer = run.desk.verdictOn(r.resourceId, deadline);
    if (allAsked()) run.parked.add(step.id);
    return answer;
  };
  const answers = restored.map(verdictOf);
  if (allAsked()) run.parked.add(step.id);
  return (await Promise.all(answers)).map((answer, i) => {
    const resourceId = restored[i]?.resourceId ?? '';
    if (!answer) return { resourceId, passed: false, detail: `no verdict within ${external.windowHours} h` };
    const said = answer.message ? `: ${answer.message}` : '';
    return { resourceId, passed: answer.result === 'pass', detail: `validation ${answer.result}${said}` };
  });
}

/** Waits for a person to confirm the step (`runbooks plan confirm`), up to its timeout from the step's start. */
async function manualStep(run: Run, step: ManualStep, phases: PhaseInterval[]): Promise<Outcome> {
  const began = startOf(run, step);
  run.waitingManual.set(step.id, step);
  run.parked.add(step.id);
  const left = began.getTime() + step.timeoutHours * 3600 * 1000 - Date.now();
  const confirmedInTime = await condition(() => run.confirmed.has(step.id), Math.max(1, left));
  run.waitingManual.delete(step.id);
  const confirmation = run.confirmed.get(step.id);
  phases.push({
    phase: 'manual',
    startedAt: began.toISOString(),
    endedAt: confirmation?.at ?? new Date().toISOString(),
  });
  if (!confirmedInTime || !confirmation) return { reason: `not confirmed within ${step.timeoutHours} h` };
  return { confirmedBy: confirmation.by, ...(confirmation.note ? { note: confirmation.note } : {}) };
}

async function waitStep(
  run: Run,
  step: Extract<PlanStep, { kind: 'wait' }>,
  phases: PhaseInterval[],
): Promise<Outcome> {
  const began = startOf(run, step);
  const until = step.seconds !== undefined ? began.getTime() + step.seconds * 1000 : Date.parse(step.until ?? '');
  run.parked.add(step.id);
  if (until > Date.now()) await sleep(until - Date.now());
  phases.push({ phase: 'wait', startedAt: began.toISOString(), endedAt: new Date().toISOString() });
  return {};
}

/** When a running step started (in this run or an earlier one). */
function startOf(run: Run, step: PlanStep): Date {
  const at = run.views.get(step.id)?.startedAt;
  return at ? new Date(at) : new Date();
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

/** A view as the report keeps it: every step (and restore) has ended or been skipped by now. */
function finalResult({ resources, ...view }: PlanStepView): PlanStepResult {
  const status = view.status === 'pending' || view.status === 'running' ? 'skipped' : view.status;
  const ended = resources?.map((r) => ({ ...r, status: r.status === 'running' ? ('failed' as const) : r.status }));
  return { ...view, status, ...(ended ? { resources: ended } : {}) };
}

function targetOf(minutes: number, seconds: number) {
  return { rtoTargetSeconds: minutes * 60, targetMet: seconds <= minutes * 60 };
}
