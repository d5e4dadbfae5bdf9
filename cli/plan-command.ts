import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client';
import { explainIssue, issuesInOrder } from '../api/validate';
import { idArgument, newIdArgument, otherSubcommand, parseCommandLine, positionals, readInput } from '../operator/args';
import { withTemporal } from '../operator/connection';
import { CliError, RunFailedError, UsageError } from '../operator/errors';
import { helpFor, type Help } from '../operator/help';
import { withoutSchemaKey } from '../operator/input-schemas';
import { outputFormat, printJson, printTable } from '../operator/output';
import { formatDuration, statusLine } from '../operator/progress';
import { isRunbookName, type RunbookName } from '../runbooks/registry';
import { startRunbook } from '../operator/start-run';
import { followUntilInterrupted, notFound, resultOf, statusPrinter, waitUntilClosed } from '../operator/watch';
import {
  PLAN_MODES,
  planConfirmUpdate,
  planStepsQuery,
  recoverConfirmation,
  recoveryPlanContract,
  RecoveryPlanRunInput,
  type PlanMode,
  type PlanStepConfirmation,
  type PlanStepView,
  type RecoveryPlanResult,
} from '../runbooks/recovery-plan/contract';
import { dependenciesOf, layersOf, topologicalLayers } from '../runbooks/recovery-plan/graph';
import { StepId, type PlanStep, type RecoveryPlan } from '../runbooks/recovery-plan/plan';

const VALIDATE_HELP = helpFor('plan validate');
const START_HELP = helpFor('plan start');
const STATUS_HELP = helpFor('plan status');
const CONFIRM_HELP = helpFor('plan confirm');

/** As long as a confirmation's note may be. */
export const MAX_NOTE_LENGTH = 1_000;
/** How long the command waits for a worker to take a confirmation before it gives up (and says so). */
const UPDATE_TIMEOUT_MS = 30_000;
const WORKFLOW_TYPE = recoveryPlanContract.workflowType;

/** `runbooks plan …`: check a plan, start it, follow its steps, confirm a manual one. */
export async function planCommand(argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub === 'validate') return validateCommand(rest);
  if (sub === 'start') return startCommand(rest);
  if (sub === 'status') return statusCommand(rest);
  if (sub === 'confirm') return confirmCommand(rest);
  return otherSubcommand(sub, 'plan');
}

/**
 * A plan checked whole, through the runbook's own input schema, so that every problem names its field as a run's
 * input would (`plan.steps.3.after.0`). Nothing connects; a bad plan is a usage error listing every problem.
 */
export function checkedPlan(given: unknown, mode: PlanMode = 'drill', confirm?: string): RecoveryPlan {
  const plan = withoutSchemaKey(given);
  if (typeof plan === 'object' && plan !== null && Object.hasOwn(plan, 'plan') && !Object.hasOwn(plan, 'steps')) {
    throw new UsageError("this is a run input ({ plan, mode }): give its 'plan' alone");
  }
  const raw = { plan, mode, ...(confirm === undefined ? {} : { confirm }) };
  const result = RecoveryPlanRunInput.safeParse(raw);
  if (result.success) return result.data.plan;
  const lines = issuesInOrder(result.error.issues).map((issue) => `  ${explainIssue(issue, raw)}`);
  throw new UsageError(`invalid plan; nothing was started:\n${lines.join('\n')}`);
}

/** The one positional argument, a plan as a file, inline JSON or -, read and checked. */
function planArgument(rest: string[], help: Help): { given: unknown; source: string } {
  const [source = ''] = positionals(rest, ['plan'], help);
  return { given: readInput(source, '<plan>'), source };
}

/** The command line of `plan validate`: the plan, checked. */
export function parsePlanValidate(argv: string[]): RecoveryPlan {
  const { positionals: rest } = parseCommandLine(argv, VALIDATE_HELP);
  return checkedPlan(planArgument(rest, VALIDATE_HELP).given);
}

async function validateCommand(argv: string[]): Promise<void> {
  printPlan(parsePlanValidate(argv));
}

/** What one step does, in a few words. */
function stepSummary(step: PlanStep): string {
  switch (step.kind) {
    case 'restore': {
      const what =
        'id' in step.resource ? step.resource.id : `what its filters match, at most ${step.resource.maxResources}`;
      return `${what} (${step.restoreKind})`;
    }
    case 'validate':
      return `of ${step.of}, ${step.sql ? `by sql on ${step.sql.databaseName}` : 'by an external verdict'}`;
    case 'manual':
      return step.approvers ? `confirmed by ${step.approvers.join(' or ')}` : 'confirmed by anyone';
    case 'wait':
      return step.seconds === undefined ? `until ${step.until ?? ''}` : `${step.seconds} s`;
  }
}

/** `plan validate`'s output: the plan in two lines, then its steps layer by layer, with kinds and dependencies. */
function printPlan(plan: RecoveryPlan): void {
  const { target, maxSkewMinutes, windowDays } = plan.pointInTime;
  const layers = topologicalLayers(plan).length;
  console.log(`plan ${plan.name}: valid, ${plan.steps.length} steps in ${layers} layers`);
  console.log(
    `point in time ${target} (skew at most ${maxSkewMinutes} min, snapshots of ${windowDays} days); ` +
      `RTO target ${plan.rtoTargetMinutes} min`,
  );
  printTable(planRows(plan));
}

/** A plan's steps as a table, layer by layer (topologicalLayers), each with its kind, dependencies and what it does. */
export function planRows(plan: RecoveryPlan): string[][] {
  const byId = new Map(plan.steps.map((s) => [s.id, s]));
  const rows = [['LAYER', 'STEP', 'KIND', 'AFTER', 'WHAT']];
  topologicalLayers(plan).forEach((layer, depth) => {
    for (const id of layer) {
      const step = byId.get(id);
      if (step) rows.push([String(depth), id, step.kind, dependenciesOf(step).join(', '), stepSummary(step)]);
    }
  });
  return rows;
}

export interface PlanStartArgs {
  /** The runbook's input, as started. */
  input: { plan: unknown; mode: PlanMode; confirm?: string };
  plan: RecoveryPlan;
  workflowId?: string;
  wait: boolean;
}

/** The command line of `plan start`, checked whole before anything connects. */
export function parsePlanStart(argv: string[]): PlanStartArgs {
  const { values, positionals: rest } = parseCommandLine(argv, START_HELP);
  const { given } = planArgument(rest, START_HELP);
  const mode = PLAN_MODES.find((m) => m === values.mode);
  if (mode === undefined) {
    throw new UsageError(`--mode must be ${PLAN_MODES.join(' or ')}, not '${values.mode}'\n${START_HELP.usage}`);
  }
  const confirm = values.confirm;
  // A confirmation that a drill would ignore says the user meant something else.
  if (confirm !== undefined && mode !== 'recover') {
    throw new UsageError(`--confirm goes with --mode recover; a drill needs none\n${START_HELP.usage}`);
  }
  // The plan first: the confirmation names it.
  const plan = checkedPlan(given);
  if (mode === 'recover' && confirm !== recoverConfirmation(plan.name)) {
    throw new UsageError(
      `--mode recover restores where the plan says, over what is there: confirm it with ` +
        `--confirm '${recoverConfirmation(plan.name)}'\n${START_HELP.usage}`,
    );
  }
  checkedPlan(given, mode, confirm);
  const workflowId = values.id === undefined ? undefined : newIdArgument(values.id, '--id', START_HELP);
  const input = { plan: withoutSchemaKey(given), mode, ...(confirm === undefined ? {} : { confirm }) };
  return { input, plan, ...(workflowId === undefined ? {} : { workflowId }), wait: values.wait };
}

/** The runbook's name in the registry; a build without it says so instead of starting nothing. */
function planRunbook(): RunbookName {
  const name: string = WORKFLOW_TYPE;
  if (isRunbookName(name)) return name;
  throw new CliError(`this build has no ${WORKFLOW_TYPE} runbook in runbooks/registry.ts: nothing was started`);
}

async function startCommand(argv: string[]): Promise<void> {
  const { input, plan, workflowId, wait } = parsePlanStart(argv);
  const runbook = planRunbook();
  await withTemporal(async ({ client, taskQueue }) => {
    const started = await startRunbook(client, taskQueue, runbook, input, workflowId);
    console.log(`started plan ${plan.name} (${input.mode}) as ${started.workflowId} (run ${started.runId})`);
    for (const note of started.notes) console.log(note);
    if (!wait) {
      console.log(`follow it with: runbooks plan status ${started.workflowId}`);
      return;
    }
    const handle = client.workflow.getHandle(started.workflowId, started.runId);
    const printer = statusPrinter();
    const began = Date.now();
    await followUntilInterrupted(client, ({ signal, calls }) => {
      console.log('following the plan until it closes (Ctrl-C stops following; the run goes on)');
      return waitUntilClosed(handle, { signal, calls, onStatus: (s) => s && printer.show(statusLine(s)) });
    }).finally(() => printer.done());
    const result = await resultOf<RecoveryPlanResult>(handle);
    for (const line of verdictLines(result, Date.now() - began)) console.log(line);
    // A plan that did not pass is no recovery for whoever waited on it.
    if (result.verdict !== 'PASS') {
      throw new RunFailedError(`plan ${plan.name} failed: ${result.failedSteps.join(', ') || 'see its report'}`);
    }
  });
}

/** The verdict of a closed plan, its RTO and its report. */
export function verdictLines(result: RecoveryPlanResult, followedMs: number): string[] {
  return [
    `${result.verdict}: RTO ${formatDuration(result.rtoSeconds * 1000)} (followed for ${formatDuration(followedMs)})`,
    ...(result.failedSteps.length > 0 ? [`failed steps: ${result.failedSteps.join(', ')}`] : []),
    `report: ${result.report.markdown} (also ${result.report.json}, ${result.report.html})`,
  ];
}

/** The command line of `plan status`. */
export function parsePlanStatus(argv: string[]): { workflowId: string; format: 'text' | 'json' } {
  const { values, positionals: rest } = parseCommandLine(argv, STATUS_HELP);
  const workflowId = idArgument(positionals(rest, ['workflowId'], STATUS_HELP)[0] ?? '', '<workflowId>', STATUS_HELP);
  return { workflowId, format: outputFormat(values.output, STATUS_HELP) };
}

async function statusCommand(argv: string[]): Promise<void> {
  const { workflowId, format } = parsePlanStatus(argv);
  await withTemporal(async ({ client }) => {
    const { runId } = await recoveryPlanRun(client, workflowId);
    const steps = await client.workflow
      .getHandle(workflowId, runId)
      .query(planStepsQuery)
      .catch((err: unknown) => {
        throw new CliError(
          `no worker answered the steps query of ${workflowId}; is \`npm start\` running? (${(err as Error).message})`,
        );
      });
    // An object, as every JSON document of the CLI is: fields can be added without breaking a reader.
    if (format === 'json') printJson({ steps });
    else printTable(stepRows(steps));
  });
}

/** `plan status`'s table: a step a row, in the order they run, with its kind, status, dependencies, times and reason. */
export function stepRows(steps: readonly PlanStepView[]): string[][] {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const rows = [['LAYER', 'STEP', 'KIND', 'STATUS', 'AFTER', 'STARTED', 'ENDED', 'REASON']];
  layersOf(steps).forEach((layer, depth) => {
    for (const id of layer) {
      const step = byId.get(id);
      if (!step) continue;
      const reason = step.reason ?? (step.confirmedBy ? `confirmed by ${step.confirmedBy}` : '');
      rows.push([
        String(depth),
        id,
        step.kind,
        step.status,
        dependenciesOf(step).join(', '),
        step.startedAt ?? '',
        step.endedAt ?? '',
        // One line a row: a reason's line breaks would break the table.
        reason.replace(/\s+/g, ' '),
      ]);
    }
  });
  return rows;
}

/** The command line of `plan confirm`, checked whole before anything connects. */
export function parsePlanConfirm(argv: string[]): { workflowId: string; confirmation: PlanStepConfirmation } {
  const { values, positionals: rest } = parseCommandLine(argv, CONFIRM_HELP);
  const { usage } = CONFIRM_HELP;
  const workflowId = idArgument(positionals(rest, ['workflowId'], CONFIRM_HELP)[0] ?? '', '<workflowId>', CONFIRM_HELP);
  if (values.step === undefined) throw new UsageError(`--step is required: the manual step's id\n${usage}`);
  if (!StepId.safeParse(values.step).success) {
    throw new UsageError(
      `--step must be a step id (lowercase letters, digits and dashes), not '${values.step}'\n${usage}`,
    );
  }
  if (values.by === undefined) throw new UsageError(`--by is required: who confirms the step\n${usage}`);
  const by = idArgument(values.by, '--by', CONFIRM_HELP).trim();
  const note = values.note;
  if (note !== undefined) {
    if (!/\S/.test(note)) throw new UsageError(`--note must not be blank (leave it out instead)\n${usage}`);
    if (note.length > MAX_NOTE_LENGTH) {
      throw new UsageError(
        `--note is ${note.length} characters long; at most ${MAX_NOTE_LENGTH.toLocaleString('en')}\n${usage}`,
      );
    }
  }
  return { workflowId, confirmation: { stepId: values.step, by, ...(note === undefined ? {} : { note }) } };
}

async function confirmCommand(argv: string[]): Promise<void> {
  const { workflowId, confirmation } = parsePlanConfirm(argv);
  await withTemporal(async ({ client }) => {
    const taken = await deliverConfirmation(client, workflowId, confirmation);
    console.log(`taken: ${workflowId} took step ${taken.stepId} as confirmed by ${taken.confirmedBy}`);
  });
}

/** The run under a workflow ID, told apart first when it is no recovery plan or is missing. */
async function recoveryPlanRun(client: Client, workflowId: string): Promise<{ runId: string; running: boolean }> {
  const description = await client.workflow
    .getHandle(workflowId)
    .describe()
    .catch((err: unknown) => {
      throw err instanceof WorkflowNotFoundError ? notFound(workflowId) : err;
    });
  if (description.type !== WORKFLOW_TYPE) {
    throw new CliError(`${workflowId} is a ${description.type} run, not a recovery plan`);
  }
  return { runId: description.runId, running: description.status.name === 'RUNNING' };
}

/**
 * Sends the confirmation as an update: the plan refuses what it cannot take (a step that does not wait, someone not
 * among its approvers), and its reason becomes the error's message, exit 1.
 */
export async function deliverConfirmation(
  client: Client,
  workflowId: string,
  confirmation: PlanStepConfirmation,
): Promise<{ stepId: string; confirmedBy: string }> {
  const { runId, running } = await recoveryPlanRun(client, workflowId);
  const ended = new CliError(`${workflowId} has ended: it takes no more confirmations`);
  if (!running) throw ended;
  try {
    // To the run just described: a rerun started meanwhile under the same ID is another plan.
    const run = client.workflow.getHandle(workflowId, runId);
    return await client.withDeadline(Date.now() + UPDATE_TIMEOUT_MS, () =>
      run.executeUpdate(planConfirmUpdate, { args: [confirmation] }),
    );
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) throw new CliError(`refused: ${err.cause?.message ?? err.message}`);
    // The run closed between the check above and the update.
    if (err instanceof WorkflowNotFoundError) throw ended;
    if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
      throw new CliError(
        `no worker took the confirmation within ${UPDATE_TIMEOUT_MS / 1000} s: is the worker (\`npm start\`) ` +
          `running? \`runbooks plan status ${workflowId}\` shows whether step ${confirmation.stepId} still waits.`,
      );
    }
    throw err;
  }
}
