import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { BackupServiceClient, closeHttpPools } from '../../api';
import type { Dialect } from '../../api/dialect';
import type { JobsConfig } from '../../simulator/model';
import { ensureTemporal, freePort } from '../../worker/dev-server';
import { SEARCH_ATTRIBUTE_KEYS } from '../../contracts';
import { startCluster, temporalAnswers, type TemporalCluster } from './cluster';
import { ManagedProcess, sleep } from './processes';
import { LossyProxy } from '../http-proxy';
import type { Random } from '../../simulator/random';
import { SimulatorControlClient } from '../../simulator/control-client';

/** The project's root (where package.json is), from the sources or from dist/. */
export function projectRoot(): string {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'backup-runbooks') {
      return dir;
    }
  }
  throw new Error(`no backup-runbooks package.json above ${__dirname}`);
}

/** Short jobs, so that a trial takes seconds; restores last long enough for a files restore to be running. */
export const TRIAL_JOBS: Partial<JobsConfig> = {
  backupSeconds: 3,
  restoreSeconds: 6,
  querySeconds: 2,
  maxConcurrentBackups: 50,
  outcomes: {},
};

export interface StackOptions {
  dir: string;
  /** The embedded dev server (default), or a real server on PostgreSQL (cluster.ts). */
  temporal?: 'dev-server' | 'cluster';
  seed: number;
  random: Random;
  log: (line: string) => void;
  /** The dialect the simulator speaks (default neutral); the harness's client and the workers detect it. */
  dialect?: Dialect;
}

/** The processes every stack runs on: Temporal, the simulator, the lossy proxy in front of it, and the build's root. */
export class StackProcesses {
  constructor(
    readonly root: string,
    readonly temporal: ManagedProcess,
    readonly temporalAddress: string,
    readonly simulator: ManagedProcess,
    readonly control: SimulatorControlClient,
    readonly proxy: LossyProxy,
  ) {}
}

/**
 * Every process of a trial run: Temporal (the dev server on a db file, or a real server on PostgreSQL; both survive
 * kill -9), the simulator, the harness's lossy proxy in front of it, and the runbook workers
 * (`node dist/worker/main.js`) on one task queue.
 */
export class Stack extends StackProcesses {
  readonly workers: ManagedProcess[] = [];
  readonly taskQueue = 'reliability';
  readonly dialect: Dialect;
  readonly outputDir: string;
  /** The workers' shared credentials file, which rotations rewrite. */
  readonly credentialsFile: string;
  client!: Client;
  service!: BackupServiceClient;
  projectId = '';
  private connection?: Connection;
  private credentials = { clientId: '', clientSecret: '' };
  /** The workers' own client: their rotations must not lock out the harness's service client. */
  private workerCredentials = { clientId: '', clientSecret: '' };
  private workerCount = 0;
  private readonly approving = new Set<string>();
  private reviews: Promise<void>[] = [];

  private constructor(
    readonly options: StackOptions,
    processes: ConstructorParameters<typeof StackProcesses>,
    /** The real deployment, when the harness runs on one: closed with its database. */
    private readonly cluster?: TemporalCluster,
  ) {
    super(...processes);
    this.outputDir = join(options.dir, 'output');
    this.dialect = options.dialect ?? 'neutral';
    this.credentialsFile = join(options.dir, 'credentials.json');
  }

  static async start(options: StackOptions): Promise<Stack> {
    const root = projectRoot();
    const { dir } = options;
    mkdirSync(dir, { recursive: true });
    const cluster = options.temporal === 'cluster' ? await startCluster(join(dir, 'cluster'), options.log) : undefined;
    const { temporal, temporalAddress } = cluster
      ? { temporal: cluster.server, temporalAddress: cluster.address }
      : await devServer(dir);
    const { simulator, control, url: simUrl } = await simulatorProcess(root, dir, options.seed, options.dialect);
    await Promise.all([temporal.alive ? undefined : temporal.start(), simulator.start()]);
    const proxy = new LossyProxy(simUrl);
    await proxy.listen();
    const stack = new Stack(options, [root, temporal, temporalAddress, simulator, control, proxy], cluster);
    await stack.init();
    return stack;
  }

  private async init(): Promise<void> {
    this.connection = await Connection.connect({ address: this.temporalAddress });
    this.client = new Client({ connection: this.connection, namespace: 'default' });
    this.projectId = (await this.control.state()).projectId;
    this.credentials = await this.control.credentials();
    this.workerCredentials = await this.control.credentials();
    // A file left in a reused directory holds a client of another simulator.
    rmSync(this.credentialsFile, { force: true });
    this.service = new BackupServiceClient({
      baseUrl: this.control.baseUrl,
      projectId: this.projectId,
      credentials: this.credentials,
      dialect: 'auto',
    });
    // Detected from the token answer, as the workers detect it: a public stack that spoke neutral would prove nothing.
    const detected = await this.service.wireDialect();
    if (detected !== this.dialect) throw new Error(`the simulator speaks ${detected}, not the ${this.dialect} dialect`);
    await this.control.jobsConfig(TRIAL_JOBS);
    await this.control.addPolicy({
      requiredApprovals: 2,
      approvalWindowHours: 48,
      executionWindowHours: 24,
      description: 'reliability harness: restores need two reviewers',
    });
    this.proxy.watch((seen) => {
      const submitted = /\/action-approvals\/my-requests\/([^/]+)\/submit$/.exec(seen.path);
      if (seen.method === 'POST' && submitted?.[1] && seen.status === 200)
        this.review(decodeURIComponent(submitted[1]));
    });
    await this.addWorker();
  }

  /** Plays the reviewers: a submitted request gets approvals from two people after a short, seeded pause. */
  private review(requestId: string): void {
    if (this.approving.has(requestId)) return;
    this.approving.add(requestId);
    const pause = this.options.random.int(200, 3_000);
    const work = (async () => {
      await sleep(pause);
      for (let i = 0; i < 5; i++) {
        const { actionApprovalRequest } = await this.control.actionRequest(requestId);
        if (actionApprovalRequest.status !== 'PENDING_APPROVAL') return;
        await this.control.approve(requestId);
      }
    })().catch((err: unknown) => this.options.log(`reviewer: ${requestId}: ${String(err)}`));
    this.reviews.push(work);
  }

  /** Starts one more worker process on the task queue and waits until it polls. */
  async addWorker(): Promise<ManagedProcess> {
    const worker = workerProcess(this.root, this.options.dir, `worker-${++this.workerCount}`, this.workerEnv());
    this.workers.push(worker);
    await worker.start();
    return worker;
  }

  /** Stops a worker politely and forgets it. */
  async removeWorker(worker: ManagedProcess): Promise<void> {
    await worker.close();
    this.workers.splice(this.workers.indexOf(worker), 1);
  }

  private workerEnv(): NodeJS.ProcessEnv {
    return {
      TEMPORAL_ADDRESS: this.temporalAddress,
      RUNBOOKS_TASK_QUEUE: this.taskQueue,
      BACKUP_SERVICE_URL: this.proxy.baseUrl,
      BACKUP_PROJECT_ID: this.projectId,
      // They seed the shared file on the first start; after that every worker reads the file for each new token.
      BACKUP_CLIENT_ID: this.workerCredentials.clientId,
      BACKUP_CLIENT_SECRET: this.workerCredentials.clientSecret,
      BACKUP_CREDENTIALS_FILE: this.credentialsFile,
      RUNBOOKS_DATA_DIR: join(this.options.dir, 'worker-data'),
      RUNBOOKS_OUTPUT_DIR: this.outputDir,
      BACKUP_SERVICE_DIALECT: 'auto',
    };
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.reviews);
    for (const worker of this.workers) await worker.close();
    await this.connection?.close();
    await this.proxy.close();
    await this.simulator.close();
    await (this.cluster ?? this.temporal).close();
    await closeHttpPools();
  }
}

/** The dev server on a db file (it survives kill -9), with the runbooks' search attributes; not started yet. */
export async function devServer(dir: string): Promise<{ temporal: ManagedProcess; temporalAddress: string }> {
  const port = await freePort();
  const temporalAddress = `127.0.0.1:${port}`;
  const args = ['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port)];
  args.push('--db-filename', join(dir, 'temporal.db'), '--log-level', 'warn');
  for (const key of SEARCH_ATTRIBUTE_KEYS) args.push('--search-attribute', `${key.name}=Keyword`);
  const temporal = new ManagedProcess({
    name: 'temporal dev server',
    command: ensureTemporal(),
    args,
    logFile: join(dir, 'temporal.log'),
    probe: () => temporalAnswers(temporalAddress, 'default'),
    readyTimeoutMs: 120_000,
  });
  return { temporal, temporalAddress };
}

/** Where the simulator persists its state, under a stack's directory. */
export function simulatorDir(dir: string): string {
  return join(dir, 'simulator');
}

/**
 * The simulator in its own process (`dist/cli/main.js simulator`), persisting under `dir` unless `persist` is false;
 * not started yet. A persisting simulator writes its whole state after every request that is not a GET, which at
 * thousands of resources costs tens of milliseconds a call: a benchmark that never restarts it runs it in memory.
 */
export async function simulatorProcess(
  root: string,
  dir: string,
  seed: number,
  dialect: Dialect = 'neutral',
  persist = true,
): Promise<{ simulator: ManagedProcess; control: SimulatorControlClient; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const control = new SimulatorControlClient(url);
  const simulator = new ManagedProcess({
    name: 'simulator',
    command: process.execPath,
    args: [join(root, 'dist/cli/main.js'), 'simulator', '--port', String(port)],
    logFile: join(dir, 'simulator.log'),
    probe: () => control.healthy(),
  });
  if (persist) simulator.spec.args.push('--data-dir', simulatorDir(dir));
  simulator.spec.args.push('--seed', String(seed));
  if (dialect !== 'neutral') simulator.spec.args.push('--dialect', dialect);
  return { simulator, control, url };
}

/**
 * A runbook worker process (`node dist/worker/main.js`) logging to `<dir>/<name>.log`, ready when it polls; not started
 * yet. Its environment is `env` and the caller's, less any BACKUP_*, TEMPORAL_*, RUNBOOKS_* or LOG_LEVEL of the
 * caller's shell, which must not redirect it.
 */
export function workerProcess(root: string, dir: string, name: string, env: NodeJS.ProcessEnv): ManagedProcess {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(BACKUP_|TEMPORAL_|RUNBOOKS_|LOG_LEVEL)/.test(key)),
  );
  return new ManagedProcess({
    name,
    command: process.execPath,
    args: [join(root, 'dist/worker/main.js')],
    // The ready line is logged at info.
    env: { ...inherited, TEMPORAL_NAMESPACE: 'default', LOG_LEVEL: 'info', ...env },
    cwd: dir,
    logFile: join(dir, `${name}.log`),
    readyLine: /"msg":"worker running"/,
    readyTimeoutMs: 120_000,
  });
}
