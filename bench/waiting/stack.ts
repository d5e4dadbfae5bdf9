// The processes a waiting or drill benchmark runs on: the Temporal dev server, the simulator behind a counting proxy,
// and runbook workers (`node dist/worker/main.js`), each a separate process so that its memory and CPU are its own.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { BackupServiceClient, closeHttpPools } from '../../api';
import { writeWorkflowBundle } from '../../worker/bundle-workflows';
import { LossyProxy, type SeenRequest } from '../http-proxy';
import { ensureBuilt } from '../reliability/build';
import { memoryOf } from '../export/memory';
import { ManagedProcess, sleep } from '../reliability/processes';
import { devServer, projectRoot, simulatorProcess, StackProcesses, workerProcess } from '../reliability/stack';

export class BenchStack extends StackProcesses {
  readonly seen: SeenRequest[] = [];
  private workerCount = 0;
  private readonly workers = new Set<ManagedProcess>();

  private constructor(
    readonly dir: string,
    processes: ConstructorParameters<typeof StackProcesses>,
    readonly client: Client,
    private readonly connection: Connection,
    readonly service: BackupServiceClient,
    readonly projectId: string,
    private readonly workerCredentials: { clientId: string; clientSecret: string },
    /** Bundled once, as a deployment does (`npm run build:bundle`): webpack in a worker would hold its memory. */
    private readonly workflowBundle: string,
  ) {
    super(...processes);
  }

  /** `persist: false` runs the simulator in memory (see `simulatorProcess`). */
  static async start(
    dir: string,
    log: (line: string) => void,
    options: { persist?: boolean } = {},
  ): Promise<BenchStack> {
    const root = projectRoot();
    if (ensureBuilt(root)) log('rebuilt dist/');
    mkdirSync(dir, { recursive: true });
    const { temporal, temporalAddress } = await devServer(dir);
    const {
      simulator,
      control,
      url: simUrl,
    } = await simulatorProcess(root, dir, 7, 'neutral', options.persist ?? true);
    const [workflowBundle] = await Promise.all([
      writeWorkflowBundle(join(dir, 'workflow-bundle.js')),
      temporal.start(),
      simulator.start(),
    ]);
    const proxy = new LossyProxy(simUrl, { injector: 'the benchmark', connections: 64 });
    await proxy.listen();
    const connection = await Connection.connect({ address: temporalAddress });
    const client = new Client({ connection, namespace: 'default' });
    const projectId = (await control.state()).projectId;
    const credentials = await control.credentials();
    const service = new BackupServiceClient({ baseUrl: control.baseUrl, projectId, credentials });
    const stack = new BenchStack(
      dir,
      [root, temporal, temporalAddress, simulator, control, proxy],
      client,
      connection,
      service,
      projectId,
      await control.credentials(),
      workflowBundle,
    );
    proxy.watch((request) => stack.seen.push({ at: request.at, method: request.method, path: request.path }));
    return stack;
  }

  /** Requests the simulator answered since `from` (epoch ms) matching `path`. */
  countSince(from: number, path: RegExp, method?: string): number {
    return this.seen.filter((r) => r.at >= from && path.test(r.path) && (!method || r.method === method)).length;
  }

  /** A worker process on `taskQueue`, ready when it polls; `nodeArgs` go to node (e.g. `--cpu-prof`). */
  async startWorker(taskQueue: string, env: NodeJS.ProcessEnv = {}, nodeArgs: string[] = []): Promise<ManagedProcess> {
    const name = `worker-${++this.workerCount}`;
    const worker = workerProcess(this.root, this.dir, name, {
      TEMPORAL_ADDRESS: this.temporalAddress,
      RUNBOOKS_TASK_QUEUE: taskQueue,
      BACKUP_SERVICE_URL: this.proxy.baseUrl,
      BACKUP_PROJECT_ID: this.projectId,
      BACKUP_CLIENT_ID: this.workerCredentials.clientId,
      BACKUP_CLIENT_SECRET: this.workerCredentials.clientSecret,
      RUNBOOKS_DATA_DIR: join(this.dir, `${name}-data`),
      RUNBOOKS_WORKFLOW_BUNDLE: this.workflowBundle,
      ...env,
    });
    worker.spec.args.unshift(...nodeArgs);
    this.workers.add(worker);
    await worker.start();
    return worker;
  }

  async stopWorker(worker: ManagedProcess): Promise<void> {
    await worker.close();
    this.workers.delete(worker);
  }

  async close(): Promise<void> {
    for (const worker of this.workers) await worker.close();
    await this.connection.close();
    await this.proxy.close();
    await this.simulator.close();
    await this.temporal.close();
    await closeHttpPools();
  }
}

/** CPU seconds (user + system) and resident memory of a process, from /proc (Linux). */
export function processUsage(pid: number): { cpuSeconds: number; rssMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command (which may hold spaces) start after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return { cpuSeconds: ticks / 100, rssMb: memoryOf(pid).rss };
}

export { sleep };

/** A seeded object-store snapshot and the `restore-pa` account: what a restore needs. */
export async function restoreTargets(
  stack: BenchStack,
): Promise<{ targets: { resourceId: string; snapshotId: string }[]; restoreAccountId: string }> {
  let restoreAccountId: string | undefined;
  for await (const a of stack.service.listRestoreAccounts()) if (a.name === 'restore-pa') restoreAccountId = a.id;
  const targets: { resourceId: string; snapshotId: string }[] = [];
  for await (const resource of stack.service.listResources()) {
    if (resource.resourceType !== 'PA_OBJECT_STORE') continue;
    const page = await stack.service.listSnapshotsPage(resource.id, {}, { pageSize: 1 });
    const snapshot = page.snapshots[0];
    if (snapshot) targets.push({ resourceId: resource.id, snapshotId: snapshot.id });
  }
  if (!restoreAccountId || targets.length === 0) throw new Error('the seeded simulator has no object-store snapshot');
  return { targets, restoreAccountId };
}
