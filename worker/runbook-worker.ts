import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { BackupServiceClient, HttpTransport, type ClientOptions } from '../api';
import { createActivities } from '../runbooks/activities';
import { CredentialsFile, type CredentialsFileOptions } from '../runtime/credentials-file';
import { DEFAULT_TASK_QUEUE } from '../runtime/config';

export { DEFAULT_TASK_QUEUE };
export const WORKFLOWS_PATH = require.resolve('../runbooks/workflows');

export interface RunbookWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /** How to reach the Backup Management Service; credentials stay here, never in history. */
  service: ClientOptions;
  outputDir: string;
  /** The file the worker's secret lives in: read for every new token, rewritten by rotations. */
  credentialsFile?: string;
  /** Tests inject a failing write of the credentials file here. */
  credentialsFileWrite?: CredentialsFileOptions['write'];
  /** A prebuilt bundle (tests bundle once per file); otherwise workflows are bundled from source. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Lets tests and the demo shorten shutdown. */
  shutdownGraceTimeMs?: number;
  /** The payload codec when history is encrypted (runtime/codec.ts); must match the clients'. */
  dataConverter?: WorkerOptions['dataConverter'];
}

/** A worker that serves every runbook, with activities bound to one service client. */
export async function createRunbookWorker(
  options: RunbookWorkerOptions,
): Promise<{ worker: Worker; client: BackupServiceClient }> {
  const transport = new HttpTransport(options.service);
  const credentials = options.credentialsFile
    ? new CredentialsFile({
        path: options.credentialsFile,
        transport: () => transport,
        endpoint: options.service.tokenEndpoint,
        write: options.credentialsFileWrite,
      })
    : undefined;
  // With a file, every new token is asked for with the file's secret, so a rotation by any worker reaches this one.
  const client = new BackupServiceClient({ ...options.service, credentialsSource: credentials });
  const activities = createActivities({ client, outputDir: options.outputDir, credentials });
  const worker = await Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    activities,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    shutdownGraceTime: options.shutdownGraceTimeMs ?? 10_000,
    ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
    // Checkpoints reach Temporal within a second (not 80% of the heartbeat timeout), so a crash loses about a second
    // of an export's pages.
    maxHeartbeatThrottleInterval: '1 second',
  });
  return { worker, client };
}
