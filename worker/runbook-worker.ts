import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { BackupServiceClient, HttpTransport, type ClientOptions } from '../api';
import { createActivities } from '../activities';
import { DEFAULT_TASK_QUEUE } from './config';

export { DEFAULT_TASK_QUEUE };
export const WORKFLOWS_PATH = require.resolve('../workflows');

export interface RunbookWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /** How to reach the Backup Management Service; credentials stay here, never in history. */
  service: ClientOptions;
  outputDir: string;
  credentialsFile?: string;
  /** A prebuilt bundle (tests bundle once per file); otherwise workflows are bundled from source. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Lets tests and the demo shorten shutdown. */
  shutdownGraceTimeMs?: number;
}

/** A worker that serves every runbook, with activities bound to one service client. */
export async function createRunbookWorker(
  options: RunbookWorkerOptions,
): Promise<{ worker: Worker; client: BackupServiceClient }> {
  const client = new BackupServiceClient(options.service);
  const transport = new HttpTransport(options.service);
  const activities = createActivities(
    { client, outputDir: options.outputDir, credentialsFile: options.credentialsFile },
    () => transport,
  );
  const worker = await Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    activities,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    shutdownGraceTime: options.shutdownGraceTimeMs ?? 10_000,
    // Checkpoints reach Temporal within a second (not 80% of the heartbeat timeout), so a crash loses about a second
    // of an export's pages.
    maxHeartbeatThrottleInterval: '1 second',
  });
  return { worker, client };
}
