import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { isGrpcServiceError, type Client } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import type { WorkerOptions } from '@temporalio/worker';

/**
 * Worker Versioning: each release is a version (deployment name + build ID) of one Worker Deployment, and runs are
 * pinned to the version they started on, so an approval that waits for days finishes on the code that asked for it.
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

export type BootstrapOutcome =
  | { outcome: 'made-current' }
  /** Someone chose a current version (maybe ours, maybe unversioned): releases after the first are promoted by hand. */
  | { outcome: 'current-exists'; current?: string }
  | { outcome: 'stopped' }
  | { outcome: 'failed'; error: unknown };

export interface BootstrapOptions {
  client: Client;
  version: WorkerDeploymentVersion;
  /** Polling has started when this is called; the server registers the version on the first poll. */
  signal?: AbortSignal;
  intervalMs?: number;
  identity?: string;
}

/**
 * A new deployment sends no runs to any version until one is current. So the first version ever becomes current by
 * itself, and only when the deployment has never had a current version: later versions are promoted on purpose
 * (`runbooks deployment promote`), never by starting a worker.
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
      const current = routing?.currentDeploymentVersion?.buildId;
      // Unversioned is current when nothing is, but it counts as chosen once someone set it.
      if (current || routing?.currentVersionChangedTime)
        return { outcome: 'current-exists', current: current || undefined };
      const registered = (info?.versionSummaries ?? []).some((v) => v.deploymentVersion?.buildId === buildId);
      if (registered) {
        // The conflict token makes a replica that races another fail instead of overriding its choice.
        await client.workflowService.setWorkerDeploymentCurrentVersion({
          namespace,
          deploymentName,
          buildId,
          conflictToken,
          identity: options.identity ?? client.options.identity,
        });
        return { outcome: 'made-current' };
      }
    } catch (error) {
      if (!(isGrpcServiceError(error) && TRANSIENT.includes(Number(error.code)))) return { outcome: 'failed', error };
    }
    await sleep(options.intervalMs ?? 1_000, undefined, { signal }).catch(() => undefined);
  }
  return { outcome: 'stopped' };
}
