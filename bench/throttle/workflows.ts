// The runbooks, plus a workflow that takes many snapshots as a drill does (lanes of bounded parallelism, each start
// followed by a wait for its job), either in slots of the project's limiter or straight, as drills did before it.
// Bundled by the throttle benchmark and by test/e2e/snapshot-slots.test.ts in place of runbooks/workflows.ts.
import { CancellationScope } from '@temporalio/workflow';
import type { Activities } from '../../runbooks/activities';
import { SnapshotSlots } from '../../runbooks/snapshot-slots/calls';
import { retriedCalls, waitingCalls } from '../../runtime/calls';

export * from '../../runbooks/workflows';

export interface ManyBackupsInput {
  resources: { id: string; providerResourceId: string }[];
  vaultId: string;
  parallelism: number;
  /** In slots of the limiter (true), or straight with the start's own retries on 429 (false). */
  slotted: boolean;
}

export interface ManyBackupsResult {
  jobIds: string[];
  /** 429s the slotted starts met (each reported to the limiter). */
  throttled: number;
}

export async function manyBackups(input: ManyBackupsInput): Promise<ManyBackupsResult> {
  const slots = new SnapshotSlots();
  // A straight start retries its 429s until the service takes it (a hundred attempts, with the usual backoff), as a
  // drill without the limiter had to: with more lanes than the cap, the usual ten run out and the round would fail.
  const service = retriedCalls<Activities>('5 minutes', 100);
  const wait = waitingCalls<Activities>();
  const jobIds: string[] = [];
  let throttled = 0;
  let next = 0;

  const backUp = async (resource: ManyBackupsInput['resources'][number]) => {
    const backup = { resourceId: resource.id, providerResourceId: resource.providerResourceId };
    const start = { ...backup, vaultId: input.vaultId, retentionDays: 1 };
    if (!input.slotted) {
      const { jobId } = await service.startBackup(start);
      await wait.checkBackupJob(jobId);
      jobIds.push(jobId);
      return;
    }
    const started = await slots.startBackup(resource.id, start);
    throttled += started.throttled;
    try {
      // The service's cap counts running backups: the slot is held until the job has ended.
      await wait.checkBackupJob(started.jobId);
      jobIds.push(started.jobId);
    } finally {
      await slots.release(started.slot);
    }
  };
  const lane = async () => {
    while (next < input.resources.length) {
      const resource = input.resources[next++];
      if (resource) await backUp(resource);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(input.parallelism, input.resources.length) }, lane));
  } finally {
    if (slots.releasesOnTheirWay > 0) await CancellationScope.nonCancellable(() => slots.released());
  }
  return { jobIds, throttled };
}
