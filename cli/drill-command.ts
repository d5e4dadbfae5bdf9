import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client';
import { drillValidationUpdate, type DrillValidationTaken, type DrillValidationVerdict } from '../contracts';
import { idArgument, otherSubcommand, parseCommandLine, positionals } from '../operator/args';
import { withTemporal } from '../operator/connection';
import { CliError, UsageError } from '../operator/errors';
import { helpFor } from '../operator/help';
import { notFound } from '../operator/watch';

const HELP = helpFor('drill validate');

/** As long as the contract lets a verdict's message be. */
export const MAX_MESSAGE_LENGTH = 1_000;
/** How long the command waits for a worker to take the verdict before it gives up (and says so). */
const UPDATE_TIMEOUT_MS = 30_000;

/** `runbooks drill …`: what an operator does to a running drill. */
export async function drillCommand(argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub === 'validate') return validateCommand(rest);
  return otherSubcommand(sub, 'drill');
}

async function validateCommand(argv: string[]): Promise<void> {
  const { workflowId, verdict } = parseValidate(argv);
  await withTemporal(async ({ client }) => {
    const taken = await deliverVerdict(client, workflowId, verdict);
    console.log(`taken: ${workflowId} took ${taken.result} for ${taken.resourceId}`);
  });
}

/** The command line of `drill validate`, checked whole before anything connects. */
export function parseValidate(argv: string[]): { workflowId: string; verdict: DrillValidationVerdict } {
  const { values, positionals: rest } = parseCommandLine(argv, HELP);
  const workflowId = idArgument(positionals(rest, ['workflowId'], HELP)[0] ?? '', '<workflowId>', HELP);
  if (values.resource === undefined) throw new UsageError(`--resource is required\n${HELP.usage}`);
  const resourceId = idArgument(values.resource, '--resource', HELP);
  if (values.result === undefined) throw new UsageError(`--result is required: pass or fail\n${HELP.usage}`);
  const result = values.result;
  if (result !== 'pass' && result !== 'fail') {
    throw new UsageError(`--result must be pass or fail, not '${result}'\n${HELP.usage}`);
  }
  const snapshotId = values.snapshot === undefined ? undefined : idArgument(values.snapshot, '--snapshot', HELP);
  const message = values.message;
  if (message !== undefined) {
    if (!/\S/.test(message)) throw new UsageError(`--message must not be blank (leave it out instead)\n${HELP.usage}`);
    if (message.length > MAX_MESSAGE_LENGTH) {
      throw new UsageError(
        `--message is ${message.length} characters long; at most ${MAX_MESSAGE_LENGTH.toLocaleString('en')}\n${HELP.usage}`,
      );
    }
  }
  const verdict: DrillValidationVerdict = {
    resourceId,
    ...(snapshotId === undefined ? {} : { snapshotId }),
    result,
    ...(message === undefined ? {} : { message }),
  };
  return { workflowId, verdict };
}

/**
 * Sends the verdict as an update: the drill's validator refuses what it cannot take, and its reason becomes the
 * error's message. A run that is not a drill, or no longer runs, is told apart first, so that the error says so.
 */
export async function deliverVerdict(
  client: Client,
  workflowId: string,
  verdict: DrillValidationVerdict,
): Promise<DrillValidationTaken> {
  const handle = client.workflow.getHandle(workflowId);
  const description = await handle.describe().catch((err: unknown) => {
    throw err instanceof WorkflowNotFoundError ? notFound(workflowId) : err;
  });
  if (description.type !== 'drDrill' && description.type !== 'cleanPoint') {
    throw new CliError(
      `${workflowId} is a ${description.type} run, not a drill or a clean-point search: it takes no verdict`,
    );
  }
  const ended = (how = '') => new CliError(`${workflowId} has ended${how}: it takes no more verdicts`);
  if (description.status.name !== 'RUNNING') throw ended(` (${description.status.name})`);
  try {
    // To the run just described: a rerun started meanwhile under the same ID is another drill.
    const run = client.workflow.getHandle(workflowId, description.runId);
    return await client.withDeadline(Date.now() + UPDATE_TIMEOUT_MS, () =>
      run.executeUpdate(drillValidationUpdate, { args: [verdict] }),
    );
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) {
      throw new CliError(`refused: ${err.cause?.message ?? err.message}`);
    }
    // The run closed between the check above and the update.
    if (err instanceof WorkflowNotFoundError) throw ended();
    if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
      throw new CliError(
        `no worker took the verdict within ${UPDATE_TIMEOUT_MS / 1000} s: is the worker (\`npm start\`) running? ` +
          `The drill may still take it when a worker picks it up: \`runbooks status ${workflowId}\` shows what it ` +
          'waits for, and the same verdict sent again is refused once one was taken.',
      );
    }
    throw err;
  }
}
