import type { Client } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';

/**
 * Who serves a version and who needs it: the workers polling its workflow task queues, and the open runs pinned to it.
 * A version with pinned runs and no poller strands them (they wait for a worker of that build); these are the facts
 * `runbooks deployment status` flags, and `runbooks deployment move` acts on.
 */

// temporal.api.enums.v1.TaskQueueType and TaskQueueKind, temporal.api.enums.v1.PinnedOverrideBehavior
const WORKFLOW_TASK_QUEUE = 1;
const NORMAL_KIND = 1;
const PINNED_OVERRIDE = 1;

/** Temporal forgets a poller this long after its last poll (matching.PollerHistoryTTL). */
export const POLLER_MEMORY = '5 minutes';

/** Workflow-task pollers per build ID of the deployment, seen on the given task queues within POLLER_MEMORY. */
export async function pollersByBuildId(
  client: Client,
  deploymentName: string,
  taskQueues: Iterable<string>,
): Promise<Map<string, Set<string>>> {
  const byBuildId = new Map<string, Set<string>>();
  for (const name of new Set(taskQueues)) {
    const { pollers } = await client.workflowService.describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name, kind: NORMAL_KIND },
      taskQueueType: WORKFLOW_TASK_QUEUE,
    });
    for (const poller of pollers ?? []) {
      const options = poller.deploymentOptions;
      if (options?.deploymentName !== deploymentName || !options.buildId) continue;
      const identities = byBuildId.get(options.buildId) ?? new Set<string>();
      identities.add(poller.identity ?? '');
      byBuildId.set(options.buildId, identities);
    }
  }
  return byBuildId;
}

/** The visibility query for open runs pinned to a version (names and build IDs are validated: no quotes). */
export function pinnedRunsQuery(version: WorkerDeploymentVersion): string {
  return [
    `TemporalWorkerDeploymentVersion = '${version.deploymentName}:${version.buildId}'`,
    `TemporalWorkflowVersioningBehavior = 'Pinned'`,
    `ExecutionStatus = 'Running'`,
  ].join(' AND ');
}

export async function countPinnedRuns(client: Client, version: WorkerDeploymentVersion): Promise<number> {
  return (await client.workflow.count(pinnedRunsQuery(version))).count;
}

export interface MovedRun {
  workflowId: string;
  runId: string;
}

/**
 * Moves every open run pinned to `from` with a versioning override: pinned to `to` when given, else auto-upgrade
 * (each run follows the current version from its next task on, as runs of an auto-upgrade deployment do). The new
 * code replays the run's history, which the replay tests guard. The override stays until someone removes it.
 */
export async function moveRuns(client: Client, from: WorkerDeploymentVersion, to?: string): Promise<MovedRun[]> {
  const versioningOverride = to
    ? { pinned: { behavior: PINNED_OVERRIDE, version: { deploymentName: from.deploymentName, buildId: to } } }
    : { autoUpgrade: true };
  const moved: MovedRun[] = [];
  for await (const run of client.workflow.list({ query: pinnedRunsQuery(from) })) {
    await client.workflowService.updateWorkflowExecutionOptions({
      namespace: client.options.namespace,
      workflowExecution: { workflowId: run.workflowId, runId: run.runId },
      workflowExecutionOptions: { versioningOverride },
      updateMask: { paths: ['versioning_override'] },
    });
    moved.push({ workflowId: run.workflowId, runId: run.runId });
  }
  return moved;
}
