import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { isGrpcServiceError, type Client } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import type { temporal } from '@temporalio/proto';
import type { WorkerOptions } from '@temporalio/worker';
import type { VersioningMode } from '../runtime/config';

/**
 * Worker Versioning: each release is a version (deployment name + build ID) of one Worker Deployment. Runs are either
 * pinned to the version they started on (RUNBOOKS_VERSIONING=pinned), so old workers must stay until their runs
 * drain, or move to the current version (auto-upgrade), so workers replaced in place strand no run.
 */

/** A short sha256 of the workflow code the worker runs: it changes exactly when that code changes. */
export async function buildIdOfBundle(bundle: NonNullable<WorkerOptions['workflowBundle']>): Promise<string> {
  const code = 'code' in bundle ? bundle.code : await readFile(bundle.codePath);
  return createHash('sha256').update(code).digest('hex').slice(0, 12);
}

// gRPC codes while the deployment or the version is not registered yet, or a peer changed it first.
const NOT_FOUND = 5;
const FAILED_PRECONDITION = 9;
const ABORTED = 10;
const UNAVAILABLE = 14;
const TRANSIENT = [NOT_FOUND, FAILED_PRECONDITION, ABORTED, UNAVAILABLE];

// temporal.api.enums.v1.WorkerDeploymentVersionStatus: a version that has taken runs at some time.
const ACTIVATED_STATUSES = [2, 3, 4, 5]; // CURRENT, RAMPING, DRAINING, DRAINED

export type BootstrapOutcome =
  | { outcome: 'made-current'; previous?: string }
  /** Ours is current, or (pinned) someone chose one, maybe unversioned: later releases are promoted by hand. */
  | { outcome: 'current-exists'; current?: string }
  /** Auto-upgrade: this build was current or ramping before, or is older than the current: a rollback is promoted. */
  | { outcome: 'left-current'; current?: string; reason: 'activated-before' | 'older-than-current' }
  | { outcome: 'stopped' }
  | { outcome: 'failed'; error: unknown };

export interface BootstrapOptions {
  client: Client;
  version: WorkerDeploymentVersion;
  /** `pinned` (the default here, as the first release always did): only the first version ever makes itself current. */
  mode?: VersioningMode;
  /** Polling has started when this is called; the server registers the version on the first poll. */
  signal?: AbortSignal;
  intervalMs?: number;
  identity?: string;
}

type Summary = NonNullable<temporal.api.deployment.v1.IWorkerDeploymentInfo['versionSummaries']>[number];

/** Whether Temporal ever sent runs to this version: it has been current or ramping. */
function activatedBefore(summary: Summary): boolean {
  return summary.firstActivationTime != null || ACTIVATED_STATUSES.includes(Number(summary.status ?? 0));
}

/**
 * Makes this worker's version current when its mode says so. Pinned: only when the deployment has never had a current
 * version, so the first release starts by itself and later ones are promoted on purpose (`runbooks deployment
 * promote`). Auto-upgrade: whenever this build is new, so a release replaced in place takes every run at once; a build
 * that was current before, or registered before the current one, never takes current back (a replica of an older
 * build that restarts late would otherwise strand the new one's runs): rolling back is a promote. Replicas of one
 * build race safely: the conflict token makes all but one fail, and they then find their build current.
 */
export async function bootstrapCurrentVersion(options: BootstrapOptions): Promise<BootstrapOutcome> {
  const { client, version, signal } = options;
  const namespace = client.options.namespace;
  const { deploymentName, buildId } = version;
  while (!signal?.aborted) {
    try {
      const { conflictToken, workerDeploymentInfo: info } = await client.workflowService.describeWorkerDeployment({
        namespace,
        deploymentName,
      });
      const routing = info?.routingConfig;
      const current = routing?.currentDeploymentVersion?.buildId || undefined;
      const summaries = info?.versionSummaries ?? [];
      const ours = summaries.find((v) => v.deploymentVersion?.buildId === buildId);
      const verdict = ours && verdictOf(options.mode ?? 'pinned', ours, current, routing, summaries);
      if (verdict) return verdict;
      if (ours) {
        // The conflict token makes a replica that races another fail instead of overriding its choice.
        await client.workflowService.setWorkerDeploymentCurrentVersion({
          namespace,
          deploymentName,
          buildId,
          conflictToken,
          identity: options.identity ?? client.options.identity,
        });
        return { outcome: 'made-current', previous: current };
      }
    } catch (error) {
      if (!(isGrpcServiceError(error) && TRANSIENT.includes(Number(error.code)))) return { outcome: 'failed', error };
    }
    await sleep(options.intervalMs ?? 1_000, undefined, { signal }).catch(() => undefined);
  }
  return { outcome: 'stopped' };
}

/** Why this registered version must not become current, or undefined when it should. */
function verdictOf(
  mode: VersioningMode,
  ours: Summary,
  current: string | undefined,
  routing: temporal.api.deployment.v1.IRoutingConfig | null | undefined,
  summaries: Summary[],
): BootstrapOutcome | undefined {
  const buildId = ours.deploymentVersion?.buildId;
  if (mode === 'pinned') {
    // Unversioned is current when nothing is, but it counts as chosen once someone set it.
    return current || routing?.currentVersionChangedTime ? { outcome: 'current-exists', current } : undefined;
  }
  if (current === buildId) return { outcome: 'current-exists', current };
  if (activatedBefore(ours)) return { outcome: 'left-current', current, reason: 'activated-before' };
  const currentSummary = summaries.find((v) => v.deploymentVersion?.buildId === current);
  const created = (s: Summary | undefined) => optionalTsToMs(s?.createTime) ?? 0;
  if (currentSummary && created(currentSummary) > created(ours)) {
    return { outcome: 'left-current', current, reason: 'older-than-current' };
  }
  return undefined;
}
