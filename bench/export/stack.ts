import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { BackupServiceClient, closeHttpPools } from '../../api';
import { SimulatorControlClient } from '../../simulator/control-client';
import { ensureBuilt } from '../reliability/build';
import { ManagedProcess } from '../reliability/processes';
import { devServer, projectRoot, simulatorProcess, workerProcess } from '../reliability/stack';

/** Where a query of the generated table can run: a relational snapshot, its database and a bucket in its region. */
export interface QueryTarget {
  snapshotId: string;
  databaseName: string;
  restoreAccountId: string;
  bucketName: string;
}

/**
 * What the export benchmark runs on, each a separate process as in production: the Temporal dev server, the
 * simulator (`dist/cli/main.js simulator`) and one worker (`dist/worker/main.js`) talking to it directly.
 */
export class ExportStack {
  readonly taskQueue = 'bench-export';
  private connection?: Connection;
  client!: Client;
  service!: BackupServiceClient;
  credentials = { clientId: '', clientSecret: '' };
  projectId = '';
  target!: QueryTarget;

  private constructor(
    readonly dir: string,
    readonly temporal: ManagedProcess,
    readonly temporalAddress: string,
    readonly simulator: ManagedProcess,
    readonly control: SimulatorControlClient,
  ) {}

  /** Started by `init`, once the simulator has given it credentials. */
  worker!: ManagedProcess;

  get outputDir(): string {
    return join(this.dir, 'output');
  }

  static async start(dir: string, log: (line: string) => void): Promise<ExportStack> {
    const root = projectRoot();
    if (ensureBuilt(root)) log('rebuilt dist/');
    mkdirSync(dir, { recursive: true });
    const { temporal, temporalAddress } = await devServer(dir);
    const { simulator, control } = await simulatorProcess(root, dir, 7);
    await Promise.all([temporal.start(), simulator.start()]);
    const stack = new ExportStack(dir, temporal, temporalAddress, simulator, control);
    await stack.init(root);
    return stack;
  }

  private async init(root: string): Promise<void> {
    this.connection = await Connection.connect({ address: this.temporalAddress });
    this.client = new Client({ connection: this.connection, namespace: 'default' });
    this.projectId = (await this.control.state()).projectId;
    this.credentials = await this.control.credentials();
    this.service = new BackupServiceClient({
      baseUrl: this.control.baseUrl,
      projectId: this.projectId,
      credentials: this.credentials,
    });
    // Queries complete at once: the benchmark measures the export, not the simulated query time.
    await this.control.jobsConfig({ querySeconds: 0 });
    this.target = await this.findTarget();
    const workerCredentials = await this.control.credentials();
    this.worker = workerProcess(root, this.dir, 'worker', {
      TEMPORAL_ADDRESS: this.temporalAddress,
      RUNBOOKS_TASK_QUEUE: this.taskQueue,
      BACKUP_SERVICE_URL: this.control.baseUrl,
      BACKUP_PROJECT_ID: this.projectId,
      BACKUP_CLIENT_ID: workerCredentials.clientId,
      BACKUP_CLIENT_SECRET: workerCredentials.clientSecret,
      RUNBOOKS_DATA_DIR: join(this.dir, 'worker-data'),
      RUNBOOKS_OUTPUT_DIR: this.outputDir,
    });
    await this.worker.start();
  }

  private async findTarget(): Promise<QueryTarget> {
    let restoreAccountId: string | undefined;
    for await (const a of this.service.listRestoreAccounts()) if (a.isRestoreAllowed) restoreAccountId ??= a.id;
    const { databases } = await this.control.state();
    const db = databases.find((d) => d.snapshotIds.length > 0);
    const snapshotId = db?.snapshotIds.at(-1);
    if (!db || !snapshotId || !restoreAccountId) throw new Error('the seeded simulator has no queryable snapshot');
    const snapshot = await this.service.getSnapshot(snapshotId);
    const region = snapshot.vaultId
      ? (await this.service.getVault(snapshot.vaultId)).region
      : (await this.service.getResource(db.resourceId)).region;
    return { snapshotId, databaseName: db.databaseName, restoreAccountId, bucketName: `bench-${region}` };
  }

  async close(): Promise<void> {
    await this.worker.close();
    await this.connection?.close();
    await this.simulator.close();
    await this.temporal.close();
    await closeHttpPools();
  }
}
