import { isGrpcServiceError, type Client } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { ConfigError, loadVersioningConfig } from '../runtime/config';
import { otherSubcommand, parseCommandLine, positionals } from './args';
import { withTemporal } from './connection';
import { UsageError } from './errors';
import { printTable } from './workflow-commands';

const USAGE = [
  'usage: runbooks deployment status [--deployment <name>]',
  '       runbooks deployment promote <buildId> [--ramp <percent>] [--deployment <name>]',
  'The deployment is RUNBOOKS_DEPLOYMENT_NAME unless --deployment names it (see README "Releasing a new version").',
].join('\n');

/** No deployment to act on: the workers are unversioned unless RUNBOOKS_DEPLOYMENT_NAME is set. */
export class NoDeploymentError extends UsageError {}

/** A build ID the deployment does not know: no worker of that build has polled yet. */
export class UnknownBuildIdError extends UsageError {}

export interface VersionStatus {
  buildId: string;
  /** Where new runs go: `current` takes what `ramping` does not. */
  routing: 'current' | 'ramping' | 'inactive';
  /** Whether pinned runs still need this version; Temporal refreshes it every few minutes. */
  drainage?: 'DRAINING' | 'DRAINED';
  createdAt?: Date;
  drainageCheckedAt?: Date;
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
    const drainage = described.workerDeploymentVersionInfo?.drainageInfo ?? summary.drainageInfo;
    versions.push({
      buildId,
      routing: buildId === current ? 'current' : buildId === rampingId ? 'ramping' : 'inactive',
      drainage: DRAINAGE[Number(drainage?.status ?? summary.drainageStatus ?? 0)],
      createdAt: dateOf(summary.createTime),
      drainageCheckedAt: dateOf(drainage?.lastCheckedTime),
    });
  }
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
    throw new NoDeploymentError(
      `no deployment: set RUNBOOKS_DEPLOYMENT_NAME (the workers' own) or pass --deployment <name>\n${USAGE}`,
    );
  }
  return configured.deploymentName;
}

function percentArgument(value: string): number {
  const percent = /^\d+(\.\d+)?$/.test(value) ? Number(value) : NaN;
  if (!(percent >= 0 && percent <= 100)) throw new UsageError(`--ramp must be a percentage from 0 to 100\n${USAGE}`);
  return percent;
}

function printStatus(status: DeploymentStatus): void {
  console.log(`deployment:  ${status.deploymentName}`);
  console.log(`current:     ${status.current ?? 'none (new runs go to unversioned workers)'}`);
  if (status.ramping) console.log(`ramping:     ${status.ramping.buildId} (${status.ramping.percent}% of new runs)`);
  const when = (d: Date | undefined) => d?.toISOString() ?? '-';
  printTable([
    ['BUILD ID', 'ROUTING', 'DRAINAGE', 'CREATED', 'DRAINAGE CHECKED'],
    ...status.versions.map((v) => [
      v.buildId,
      v.routing,
      v.drainage ?? '-',
      when(v.createdAt),
      when(v.drainageCheckedAt),
    ]),
  ]);
}

/** `runbooks deployment …`: the Worker Deployment's versions, and promoting a release. */
export async function deploymentCommand(argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  const options = { deployment: { type: 'string' }, ramp: { type: 'string' } } as const;
  switch (sub) {
    case 'status': {
      const { values, positionals: args } = parseCommandLine(rest, { deployment: options.deployment }, USAGE);
      positionals(args, [], USAGE);
      const name = deploymentNameOf(values.deployment);
      return withTemporal(async ({ client }) => printStatus(await deploymentStatus(client, name)));
    }
    case 'promote': {
      const { values, positionals: args } = parseCommandLine(rest, options, USAGE);
      const [buildId = ''] = positionals(args, ['buildId'], USAGE);
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
    default:
      return otherSubcommand(sub, 'deployment', USAGE);
  }
}
