import { isGrpcServiceError, type Client } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { ConfigError, loadVersioningConfig } from '../runtime/config';
import { otherSubcommand, parseCommandLine, positionals } from '../operator/args';
import { withTemporal } from '../operator/connection';
import { countPinnedRuns, moveRuns, pollersByBuildId, POLLER_MEMORY, type MovedRun } from './deployment-runs';
import { NotFoundError, UsageError } from '../operator/errors';
import { helpFor } from '../operator/help';
import { outputFormat, printJson } from '../operator/output';
import type { DeploymentStatusOutput } from '../operator/output-shapes';
import { printTable } from '../operator/output';

const STATUS_HELP = helpFor('deployment status');
const PROMOTE_HELP = helpFor('deployment promote');
const MOVE_HELP = helpFor('deployment move');

/** The deployment named has no version in the namespace: no versioned worker of it has polled. */
export class NoDeploymentError extends NotFoundError {}

/** A build ID the deployment does not know: no worker of that build has polled yet. */
export class UnknownBuildIdError extends NotFoundError {}

export interface VersionStatus {
  buildId: string;
  /** Where new runs go: `current` takes what `ramping` does not. */
  routing: 'current' | 'ramping' | 'inactive';
  /** Whether pinned runs still need this version; Temporal refreshes it every few minutes. */
  drainage?: 'DRAINING' | 'DRAINED';
  createdAt?: Date;
  drainageCheckedAt?: Date;
  /** Workers that polled its workflow tasks within POLLER_MEMORY. */
  pollers: number;
  /** Open runs pinned to it: they run only on workers of this build. */
  pinnedRuns: number;
}

export interface DeploymentStatus {
  deploymentName: string;
  current?: string;
  ramping?: { buildId: string; percent: number };
  versions: VersionStatus[];
}

// temporal.api.enums.v1.VersionDrainageStatus
const DRAINAGE: Record<number, VersionStatus['drainage']> = { 1: 'DRAINING', 2: 'DRAINED' };
const GRPC_NOT_FOUND = 5;
// temporal.api.enums.v1.TaskQueueType
const WORKFLOW_TASK_QUEUE = 1;

const dateOf = (ts: Parameters<typeof optionalTsToMs>[0]) => {
  const ms = optionalTsToMs(ts);
  return ms === undefined ? undefined : new Date(ms);
};

function notFound(err: unknown): boolean {
  return isGrpcServiceError(err) && Number(err.code) === GRPC_NOT_FOUND;
}

/** The deployment's versions, which one takes new runs, and whether each still has pinned runs. */
export async function deploymentStatus(client: Client, deploymentName: string): Promise<DeploymentStatus> {
  const namespace = client.options.namespace;
  const { workerDeploymentInfo: info } = await client.workflowService
    .describeWorkerDeployment({ namespace, deploymentName })
    .catch((err: unknown) => {
      throw notFound(err)
        ? new NoDeploymentError(
            `no deployment '${deploymentName}' in namespace ${namespace}: no versioned worker polled`,
          )
        : err;
    });
  const routing = info?.routingConfig;
  const current = routing?.currentDeploymentVersion?.buildId || undefined;
  const rampingId = routing?.rampingDeploymentVersion?.buildId || undefined;
  const versions: VersionStatus[] = [];
  const taskQueues: string[] = [];
  for (const summary of info?.versionSummaries ?? []) {
    const buildId = summary.deploymentVersion?.buildId;
    if (!buildId) continue;
    // A version's own description has the freshest drainage check.
    const described = await client.workflowService
      .describeWorkerDeploymentVersion({ namespace, deploymentVersion: { deploymentName, buildId } })
      .catch((err: unknown) => {
        if (notFound(err)) return undefined; // deleted between the two calls
        throw err;
      });
    if (!described) continue;
    for (const queue of described.workerDeploymentVersionInfo?.taskQueueInfos ?? []) {
      if (queue.name && Number(queue.type) === WORKFLOW_TASK_QUEUE) taskQueues.push(queue.name);
    }
    const drainage = described.workerDeploymentVersionInfo?.drainageInfo ?? summary.drainageInfo;
    versions.push({
      buildId,
      routing: buildId === current ? 'current' : buildId === rampingId ? 'ramping' : 'inactive',
      drainage: DRAINAGE[Number(drainage?.status ?? summary.drainageStatus ?? 0)],
      createdAt: dateOf(summary.createTime),
      drainageCheckedAt: dateOf(drainage?.lastCheckedTime),
      pollers: 0,
      pinnedRuns: await countPinnedRuns(client, { deploymentName, buildId }),
    });
  }
  const pollers = await pollersByBuildId(client, deploymentName, taskQueues);
  for (const version of versions) version.pollers = pollers.get(version.buildId)?.size ?? 0;
  return {
    deploymentName,
    current,
    ramping: rampingId ? { buildId: rampingId, percent: routing?.rampingVersionPercentage ?? 0 } : undefined,
    versions,
  };
}

/**
 * Sends new runs to `buildId`: all of them, or `rampPercent` of them (the current version keeps the rest). Runs already
 * pinned to another version stay there.
 */
export async function promoteVersion(
  client: Client,
  deploymentName: string,
  buildId: string,
  rampPercent?: number,
): Promise<void> {
  const status = await deploymentStatus(client, deploymentName);
  if (!status.versions.some((v) => v.buildId === buildId)) {
    const known = status.versions.map((v) => v.buildId).join(', ') || 'none';
    throw new UnknownBuildIdError(
      `deployment '${deploymentName}' has no version '${buildId}' (known: ${known}); start its workers first`,
    );
  }
  const namespace = client.options.namespace;
  const identity = client.options.identity;
  if (rampPercent === undefined) {
    await client.workflowService.setWorkerDeploymentCurrentVersion({ namespace, deploymentName, buildId, identity });
  } else {
    await client.workflowService.setWorkerDeploymentRampingVersion({
      namespace,
      deploymentName,
      buildId,
      percentage: rampPercent,
      identity,
    });
  }
}

/**
 * Moves the open runs pinned to `from` (whose workers are gone) to `to`, or to the current version when `to` is unset.
 * Both must be versions of the deployment; without `to` there must be a current version.
 */
export async function moveStrandedRuns(
  client: Client,
  deploymentName: string,
  from: string,
  to?: string,
): Promise<MovedRun[]> {
  const status = await deploymentStatus(client, deploymentName);
  const known = status.versions.map((v) => v.buildId);
  for (const buildId of [from, ...(to === undefined ? [] : [to])]) {
    if (!known.includes(buildId)) {
      throw new UnknownBuildIdError(
        `deployment '${deploymentName}' has no version '${buildId}' (known: ${known.join(', ') || 'none'})`,
      );
    }
  }
  if (to === undefined && !status.current) {
    throw new UsageError(`deployment '${deploymentName}' has no current version: name the target with --to <buildId>`);
  }
  return moveRuns(client, { deploymentName, buildId: from }, to);
}

function deploymentNameOf(flag: string | undefined): string {
  if (flag !== undefined) {
    try {
      const parsed = loadVersioningConfig({ RUNBOOKS_DEPLOYMENT_NAME: flag });
      if (parsed) return parsed.deploymentName;
    } catch (err) {
      if (err instanceof ConfigError) throw new UsageError(`--deployment ${err.issues[0]?.message ?? 'is invalid'}`);
      throw err;
    }
  }
  let configured;
  try {
    configured = loadVersioningConfig();
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  if (!configured) {
    // Nothing named yet: the workers are unversioned unless RUNBOOKS_DEPLOYMENT_NAME is set.
    throw new UsageError("no deployment: set RUNBOOKS_DEPLOYMENT_NAME (the workers' own) or pass --deployment <name>");
  }
  return configured.deploymentName;
}

function percentArgument(value: string): number {
  const percent = /^\d+(\.\d+)?$/.test(value) ? Number(value) : NaN;
  if (!(percent >= 0 && percent <= 100))
    throw new UsageError(`--ramp must be a percentage from 0 to 100\n${PROMOTE_HELP.usage}`);
  return percent;
}

/**
 * What waits for a worker that is gone: runs pinned to a version that nobody polls, and new runs (with every
 * auto-upgrade run) sent to a current or ramping version that nobody polls. Each line says how to recover.
 */
export function stalls(status: DeploymentStatus): string[] {
  const lines: string[] = [];
  const served = status.versions.filter((v) => v.pollers > 0).map((v) => v.buildId);
  const others = served.length > 1 ? ` (builds with workers: ${served.join(', ')})` : '';
  const promoteHint = served[0]
    ? `runbooks deployment promote ${served[0]}${others}`
    : 'runbooks deployment promote <buildId> once its workers run';
  for (const v of status.versions) {
    if (v.pollers > 0) continue;
    const start = `start a worker of build ${v.buildId} (its release's image, or RUNBOOKS_BUILD_ID=${v.buildId})`;
    if (v.pinnedRuns > 0) {
      lines.push(
        `STRANDED: ${v.pinnedRuns} open run(s) pinned to ${v.buildId}, ` +
          `which no worker has polled in ${POLLER_MEMORY}. Recover: ${start}, ` +
          `or move them to the current version: runbooks deployment move ${v.buildId}` +
          ' (--to <buildId> pins them to a build of your choice)',
      );
    }
    if (v.routing !== 'inactive') {
      lines.push(
        `STALLED: ${v.buildId} is ${v.routing}, so new runs (and auto-upgrade runs) go to it, but no worker has ` +
          `polled it in ${POLLER_MEMORY}. Recover: ${start}, or send runs to a build that has workers: ${promoteHint}`,
      );
    }
  }
  return lines;
}

function printStatus(status: DeploymentStatus): void {
  console.log(`deployment:  ${status.deploymentName}`);
  console.log(`current:     ${status.current ?? 'none (new runs go to unversioned workers)'}`);
  if (status.ramping) console.log(`ramping:     ${status.ramping.buildId} (${status.ramping.percent}% of new runs)`);
  const when = (d: Date | undefined) => d?.toISOString() ?? '-';
  printTable([
    ['BUILD ID', 'ROUTING', 'DRAINAGE', 'POLLERS', 'PINNED RUNS', 'CREATED', 'DRAINAGE CHECKED'],
    ...status.versions.map((v) => [
      v.buildId,
      v.routing,
      v.drainage ?? '-',
      String(v.pollers),
      String(v.pinnedRuns),
      when(v.createdAt),
      when(v.drainageCheckedAt),
    ]),
  ]);
  for (const line of stalls(status)) console.log(line);
}

/** `runbooks deployment status -o json`: the status with its times as ISO strings, and the stall lines. */
function statusOutput(status: DeploymentStatus): DeploymentStatusOutput {
  return {
    deploymentName: status.deploymentName,
    current: status.current,
    ramping: status.ramping,
    versions: status.versions.map((v) => ({
      buildId: v.buildId,
      routing: v.routing,
      drainage: v.drainage,
      createdAt: v.createdAt?.toISOString(),
      drainageCheckedAt: v.drainageCheckedAt?.toISOString(),
      pollers: v.pollers,
      pinnedRuns: v.pinnedRuns,
    })),
    stalls: stalls(status),
  };
}

/** `runbooks deployment …`: the Worker Deployment's versions, and promoting a release. */
export async function deploymentCommand(argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'status': {
      const { values, positionals: args } = parseCommandLine(rest, STATUS_HELP);
      positionals(args, [], STATUS_HELP);
      const format = outputFormat(values.output, STATUS_HELP);
      const name = deploymentNameOf(values.deployment);
      return withTemporal(async ({ client }) => {
        const status = await deploymentStatus(client, name);
        if (format === 'json') printJson(statusOutput(status));
        else printStatus(status);
      });
    }
    case 'promote': {
      const { values, positionals: args } = parseCommandLine(rest, PROMOTE_HELP);
      const [buildId = ''] = positionals(args, ['buildId'], PROMOTE_HELP);
      const ramp = values.ramp === undefined ? undefined : percentArgument(values.ramp);
      const name = deploymentNameOf(values.deployment);
      return withTemporal(async ({ client }) => {
        await promoteVersion(client, name, buildId, ramp);
        console.log(
          ramp === undefined
            ? `${buildId} is now the current version of ${name}: new runs start on it; pinned runs stay where they are`
            : `${buildId} now takes ${ramp}% of new runs of ${name}`,
        );
        console.log('watch the previous version drain with: runbooks deployment status');
      });
    }
    case 'move': {
      const { values, positionals: args } = parseCommandLine(rest, MOVE_HELP);
      const [from = ''] = positionals(args, ['fromBuildId'], MOVE_HELP);
      const name = deploymentNameOf(values.deployment);
      return withTemporal(async ({ client }) => {
        const moved = await moveStrandedRuns(client, name, from, values.to);
        for (const run of moved) console.log(`moved ${run.workflowId} (run ${run.runId})`);
        const where = values.to ? `pinned to ${values.to}` : 'following the current version (auto-upgrade)';
        console.log(`${moved.length} run(s) moved from ${from}, now ${where}`);
      });
    }
    default:
      return otherSubcommand(sub, 'deployment');
  }
}
