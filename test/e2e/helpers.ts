// End-to-end fixture: a real Temporal dev server, the in-process simulator, a proxy between the runbook worker and
// the simulator (to lose responses and to act at exact moments), and every log line the suite produces.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { format, inspect } from 'node:util';
import { CancelledFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import {
  DefaultLogger,
  makeTelemetryFilterString,
  Runtime,
  type LogEntry,
  type NativeConnection,
  type Worker,
  type WorkflowBundle,
} from '@temporalio/worker';
import { BackupServiceClient, closeHttpPools, type BackupJob, type RestoreJob } from '../../api';
import {
  DIALECTS,
  destinationMember,
  providerConceptOf,
  providerValue,
  resourceTypeIn,
  type DestinationKind,
  type Dialect,
} from '../../api/dialect';
import { LossyProxy } from '../../bench/http-proxy';
import { SimulatorControlClient } from '../../simulator/control-client';
import type { JobsConfig } from '../../simulator/model';
import { databaseNameOf } from '../../simulator/seed-databases';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { prometheusMetrics } from '../../worker/metrics';
import { createRunbookWorker, WORKFLOWS_PATH, type RunbookWorkerOptions } from '../../worker/runbook-worker';
import { DEFAULT_EVIDENCE_KEY_FILE, loadOrCreateEvidenceKey, type EvidenceKey } from '../../runtime/evidence-key';
import { FailureType, nudgeSignal, SEARCH_ATTRIBUTE_KEYS, statusQuery, type RunbookStatus } from '../../contracts';
import { bundleWorkflows, startTestEnv, startTimeSkippingEnv, uniqueTaskQueue } from '../helpers/temporal';
import { recordHistories } from './record-histories';
import type { QueryExportInput } from '../../runbooks/query-export/contract';
import { drDrill } from '../../runbooks/workflows';
import { startConsole, type RunningConsole } from '../../console/serve-command';
import { serviceEnv } from '../helpers/service-env';
import { ensureWorkflowBundle, startWorkerProcess } from '../worker/worker-process';

// ---------------------------------------------------------------------------------------------------------------
// Captured output: everything the worker logs (through the Runtime logger) and everything the tests print.

const captured: string[] = [];

/** Every log line and console message of this test file so far. */
export function capturedOutput(): readonly string[] {
  return captured;
}

const LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

function installCapturingRuntime(metricsAddress?: string): void {
  const shown = LEVELS.indexOf(process.env.E2E_LOG_LEVEL ?? 'ERROR');
  const logger = new DefaultLogger('DEBUG', (entry: LogEntry) => {
    const line = `${entry.level} ${entry.message} ${inspect(entry.meta ?? {}, { depth: 6, breakLength: Infinity })}`;
    captured.push(line);
    if (LEVELS.indexOf(entry.level) >= shown) process.stderr.write(`${line}\n`);
  });
  // Core's own logs are forwarded to the same logger, so that they are scanned as well.
  Runtime.install({
    logger,
    telemetryOptions: {
      logging: { filter: makeTelemetryFilterString({ core: 'INFO', other: 'WARN' }), forward: {} },
      ...(metricsAddress === undefined ? {} : { metrics: prometheusMetrics(metricsAddress) }),
    },
  });
}

function captureConsole(): void {
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      captured.push(format(...args));
      original(...args);
    };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The dialect: the files jest's `public` project runs again speak the real service's public dialect (see
// jest.config.js). Inputs name their tokens in it, and results are compared in it; the simulator's state and its
// /_simulator/ control API keep the neutral vocabulary in both, so what the tests read there is translated here.

export const TEST_DIALECT_ENV = 'RUNBOOKS_TEST_DIALECT';

/** The dialect this file's simulator speaks: `neutral` unless the jest project says otherwise. */
export function testDialect(): Dialect {
  const value = process.env[TEST_DIALECT_ENV] ?? 'neutral';
  const dialect = DIALECTS.find((d) => d === value);
  if (!dialect) throw new Error(`${TEST_DIALECT_ENV}=${value}: expected one of ${DIALECTS.join(', ')}`);
  return dialect;
}

/** A resource type of the simulator's state, as this file's service API names it. */
export function wireResourceType(stateType: string): string {
  const type = resourceTypeIn(testDialect(), stateType);
  if (!type) throw new Error(`the ${testDialect()} dialect has no resource type for ${stateType}`);
  return type;
}

/** A `cloudProvider` value of the simulator's state, as this file's service API names it. */
export function wireProvider(stateProvider: string): string {
  const concept = providerConceptOf(stateProvider);
  const value = concept && providerValue(concept, testDialect());
  if (!value) throw new Error(`the ${testDialect()} dialect has no provider for ${stateProvider}`);
  return value;
}

/** A restore or query destination of one kind, its member named as this file's dialect names it. */
export function destinationOf<T>(kind: DestinationKind, target: T): Record<string, T> {
  return { [destinationMember(kind, testDialect())]: target };
}

/** An Amazon bucket destination (`bucketA` or `s3Bucket`): the one every e2e restore and query writes to. */
export function bucketDestination(bucketName: string, prefix?: string) {
  return destinationOf('amazonBucket', prefix === undefined ? { bucketName } : { bucketName, prefix });
}

// ---------------------------------------------------------------------------------------------------------------
// The fixture: one per test file.

export interface RunningWorker {
  worker: Worker;
  client: BackupServiceClient;
  taskQueue: string;
  /** Stops polling, lets running activities finish (briefly) and waits for the worker to end. */
  stop(): Promise<void>;
}

export interface E2E {
  env: TestWorkflowEnvironment;
  sim: RunningSimulator;
  proxy: LossyProxy;
  control: SimulatorControlClient;
  bundle: WorkflowBundle;
  /** The test's own client, straight to the simulator (not through the proxy). */
  service: BackupServiceClient;
  outputDir: string;
  worker: RunningWorker;
  /** Secrets the file used and then retired (rotated away); the final scan looks for them too. */
  retiredSecrets: string[];
}

/** Whether the simulator holds a snapshot of the resource: with none, a drill's RPO is missed whatever its target. */
export function backedUp(fx: E2E, resourceId: string): boolean {
  return Object.values(fx.sim.ctx.state.snapshots).some((s) => s.resourceId === resourceId);
}

/** The seeded `backups-pa-east-1` vault and `restore-pa` restore account, where the e2e drills back up and restore. */
export function drillVaultAndAccount(fx: Pick<E2E, 'sim'>) {
  const state = fx.sim.ctx.state;
  const vault = Object.values(state.vaults).find((v) => v.name === 'backups-pa-east-1');
  const account = Object.values(state.restoreAccounts).find((a) => a.name === 'restore-pa');
  if (!vault || !account) throw new Error('the seeded simulator has no backups-pa-east-1 vault or restore-pa account');
  return { vault, account };
}

/** The first seeded VM, by ID, with a snapshot: a drill of it passes with a loose RPO target. */
export function seededVmWithSnapshot(fx: Pick<E2E, 'sim'>) {
  const state = fx.sim.ctx.state;
  const resource = Object.values(state.resources)
    .map((r) => r.resource)
    .sort((a, b) => a.id.localeCompare(b.id))
    .find((r) => r.resourceType === 'PA_VM' && Object.values(state.snapshots).some((s) => s.resourceId === r.id));
  if (!resource) throw new Error('the seeded simulator has no VM with a snapshot');
  return resource;
}

/**
 * The drill vault and restore account, and the resources with a snapshot in that vault that are not relational
 * databases (a drill restores their files), by ID: what a drill of a few resources names.
 */
export function drillTargets(fx: Pick<E2E, 'sim'>) {
  const state = fx.sim.ctx.state;
  const { vault, account } = drillVaultAndAccount(fx);
  const snapshotted = new Set(
    Object.values(state.snapshots)
      .filter((s) => s.vaultId === vault.id)
      .map((s) => s.resourceId),
  );
  const resources = Object.values(state.resources)
    .map((r) => r.resource)
    .filter((r) => ['PA_VM', 'PA_OBJECT_STORE', 'PA_FILE_SYSTEM'].includes(r.resourceType) && snapshotted.has(r.id))
    .sort((a, b) => a.id.localeCompare(b.id));
  return { vault, account, resources };
}

/** A drill of one resource, restored under `folder/` and nudged until it ends: its name, handle and result. */
export async function drillOfOne(fx: E2E, resourceId: string, folder: string) {
  const { vault, account } = drillVaultAndAccount(fx);
  const name = `${folder}-${randomUUID().slice(0, 8)}`;
  const handle = await fx.env.client.workflow.start(drDrill, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `drill-${name}`,
    args: [
      {
        name,
        resources: { ids: [resourceId] },
        vaultId: vault.id,
        restoreAccountId: account.id,
        destination: bucketDestination('dr-drill-restores', `${folder}/`),
        targets: { rpoSeconds: 400 * 86400, rtoSeconds: 600 },
        retentionDays: 3,
      },
    ],
  });
  const result = await nudgedResult(handle);
  return { name, handle, result };
}

/** The nudge signals a run received, from its history. */
export async function nudgesOf(handle: WorkflowHandle): Promise<number> {
  const events = (await handle.fetchHistory()).events ?? [];
  return events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'nudge').length;
}

/** `runbooks serve` over the suite's Temporal and output folder, on a free port. */
export function consoleOf(fx: E2E): Promise<RunningConsole> {
  return startConsole({
    client: fx.env.client,
    outputDir: fx.outputDir,
    namespace: fx.env.namespace ?? 'default',
    port: 0,
    temporalUiUrl: 'http://127.0.0.1:8233',
  });
}

/** The environment of `runbooks …` run from source on this fixture: its server, namespace and worker, no debug. */
export function cliEnvOf(fx: Pick<E2E, 'env' | 'worker'>): Record<string, string | undefined> {
  return {
    ...process.env,
    TEMPORAL_ADDRESS: fx.env.address,
    TEMPORAL_NAMESPACE: fx.env.namespace ?? 'default',
    RUNBOOKS_TASK_QUEUE: fx.worker.taskQueue,
    RUNBOOKS_DEBUG: '',
  };
}

/** `runbooks schedule create` of a cost export of the previous day, with `flags` (its timing, …) before its input. */
export function costExportScheduleArgs(scheduleId: string, ...flags: string[]): string[] {
  return [
    'schedule',
    'create',
    scheduleId,
    '--runbook',
    'costExport',
    ...flags,
    '--input',
    '{"window":"previous-day"}',
  ];
}

/** What the tests' reviewer writes, like a real one would. */
export const APPROVAL = { comment: 'looks right' };
export const DENIAL = { comment: 'not today' };

export const FAST_JOBS: Partial<JobsConfig> = {
  backupSeconds: 1,
  restoreSeconds: 1,
  querySeconds: 1,
  maxConcurrentBackups: 50,
  outcomes: {},
};

export interface RestoreTarget {
  resourceId: string;
  snapshotId: string;
  restoreAccountId: string;
}

/** A seeded object-store snapshot and the `restore-pa` restore account: the targets of the restore suites. */
export function objectStoreTarget(fx: E2E): RestoreTarget {
  const state = fx.sim.ctx.state;
  const snapshot = Object.values(state.snapshots).find(
    (s) => state.resources[s.resourceId]?.resource.resourceType === 'PA_OBJECT_STORE',
  );
  const account = Object.values(state.restoreAccounts).find((a) => a.name === 'restore-pa');
  if (!snapshot || !account) throw new Error('the seeded simulator has no object-store snapshot or restore-pa account');
  return { resourceId: snapshot.resourceId, snapshotId: snapshot.id, restoreAccountId: account.id };
}

/** The newest snapshot of a seeded database holding `table`, the `restore-pa` account, and its region's results bucket. */
export interface QueryTarget {
  snapshotId: string;
  databaseName: string;
  restoreAccountId: string;
  bucketName: string;
}

export async function queryTarget(fx: E2E, table: string): Promise<QueryTarget> {
  const state = fx.sim.ctx.state;
  const { databases } = await fx.control.state();
  const database = databases.find((d) => d.tables.includes(table) && d.snapshotIds.length > 0);
  const snapshotId = database?.snapshotIds.at(-1);
  const snapshot = snapshotId === undefined ? undefined : state.snapshots[snapshotId];
  const account = Object.values(state.restoreAccounts).find((a) => a.name === 'restore-pa');
  if (!database || !snapshot || !account) throw new Error('the seeded simulator has no queryable database snapshot');
  const region =
    (snapshot.vaultId ? state.vaults[snapshot.vaultId]?.region : undefined) ??
    state.resources[snapshot.resourceId]?.resource.region;
  return {
    snapshotId: snapshot.id,
    databaseName: database.databaseName,
    restoreAccountId: account.id,
    bucketName: `query-results-${region ?? 'unknown'}`,
  };
}

/**
 * The first seeded relational database backed up once a day for `days` days on the simulator's clock (queries answer
 * at once), with a check that its data passes until the simulator corrupts it: what a clean-point search runs on.
 * `snapshots` are oldest first; `before` is just after the last day, where the search's window ends.
 */
export async function dailyDatabaseSnapshots(fx: E2E, days: number) {
  const state = fx.sim.ctx.state;
  const { vault, account } = drillVaultAndAccount(fx);
  const resource = Object.values(state.resources).find((r) => r.resource.resourceType === 'PA_RELATIONAL_DB');
  if (!resource) throw new Error('the seeded simulator has no relational database');
  const resourceId = resource.resource.id;
  await fx.control.jobsConfig({ querySeconds: 0 });
  const { snapshots, before } = await dailySnapshotsOf(fx, resourceId, days);
  const check = {
    name: 'no encrypted emails',
    databaseName: databaseNameOf(state.seed, resourceId),
    destination: { bucketA: { bucketName: `query-results-${vault.region}` } },
    queries: [
      { name: 'encrypted emails', sql: "SELECT count(*) FROM customers WHERE email LIKE 'ENC:%'", expect: 'value = 0' },
    ],
  };
  return { resourceId, restoreAccountId: account.id, snapshots, before, check };
}

/**
 * `resourceId` backed up once a day for `days` days into the drill vault, on the simulator's clock, after a jump of
 * 400 days that leaves the seeded snapshots out of any window a search takes (a year, 366 days, at most). `snapshots`
 * are oldest first; `before` is just after the last day.
 */
export async function dailySnapshotsOf(fx: E2E, resourceId: string, days: number) {
  const { vault } = drillVaultAndAccount(fx);
  await fx.control.advanceClock(400 * 86_400);
  // Each job has ended by the next day.
  const jobIds: string[] = [];
  for (let day = 0; day < days; day += 1) {
    jobIds.push(await fx.service.takeSnapshot(resourceId, { vaultId: vault.id, retentionDays: 365 }));
    await fx.control.advanceClock(86_400);
  }
  const snapshots: string[] = [];
  for (const jobId of jobIds) {
    await fx.service.getBackupJob(jobId);
    const made = Object.values(fx.sim.ctx.state.snapshots).find((s) => s.jobId === jobId);
    if (!made) throw new Error(`backup job ${jobId} made no snapshot`);
    snapshots.push(made.id);
  }
  const before = new Date(Date.parse((await fx.control.state()).now) + 1000).toISOString();
  return { snapshots, before };
}

/** A query export of `sql` on a query target, its results under the `e2e` prefix. */
export function queryExportInput(db: QueryTarget, sql: string): QueryExportInput {
  return {
    snapshotId: db.snapshotId,
    query: {
      databaseName: db.databaseName,
      query: sql,
      restoreAccountId: db.restoreAccountId,
      destination: bucketDestination(db.bucketName, 'e2e'),
    },
  };
}

export interface E2EOptions {
  /** host:port for the Runtime's Prometheus endpoint, as the worker's RUNBOOKS_METRICS_ADDRESS sets it. */
  metricsAddress?: string;
  /** For the fixture's worker (tracing, a codec…). */
  worker?: WorkerOverrides;
  /** Extra dev server flags, e.g. `--dynamic-config-value`. */
  serverArgs?: string[];
  /** The time-skipping test server instead of the dev server: hours of waiting pass at once while a test awaits a result. */
  timeSkipping?: boolean;
  /** A workflows file of the test's own, bundled instead of runbooks/workflows.ts (it may re-export the runbooks). */
  workflowsPath?: string;
}

export async function setupE2E(options: E2EOptions = {}): Promise<E2E> {
  installCapturingRuntime(options.metricsAddress);
  captureConsole();
  const [env, bundle, sim] = await Promise.all([
    options.timeSkipping
      ? startTimeSkippingEnv()
      : startTestEnv({ server: { searchAttributes: SEARCH_ATTRIBUTE_KEYS, extraArgs: options.serverArgs } }),
    bundleWorkflows(options.workflowsPath ?? WORKFLOWS_PATH, { tracing: options.worker?.tracing !== undefined }),
    startSimulator({ port: 0, dialect: testDialect() }),
  ]);
  const proxy = new LossyProxy(sim.baseUrl, { injector: 'the test proxy', connections: 32 });
  await proxy.listen();
  const control = new SimulatorControlClient(sim.baseUrl);
  await control.jobsConfig(FAST_JOBS);
  const outputDir = await mkdtemp(join(tmpdir(), 'runbooks-e2e-'));
  const service = new BackupServiceClient({
    baseUrl: sim.baseUrl,
    projectId: sim.projectId,
    credentials: { clientId: sim.clientId, clientSecret: sim.clientSecret },
    dialect: 'auto',
  });
  const fx: Omit<E2E, 'worker'> = { env, sim, proxy, control, bundle, service, outputDir, retiredSecrets: [] };
  const worker = await startWorker(fx, options.worker);
  await expectDetectedDialect(service, worker.client);
  return { ...fx, worker };
}

/**
 * Both clients were left to detect the dialect (`auto`, as a worker is by default), and both must find the one the
 * simulator speaks: a file that meant to test the public dialect and spoke the neutral one would prove nothing.
 */
async function expectDetectedDialect(...clients: BackupServiceClient[]): Promise<void> {
  const expected = testDialect();
  for (const client of clients) {
    const detected = await client.wireDialect();
    if (detected !== expected) throw new Error(`the client detected the ${detected} dialect, not ${expected}`);
  }
}

/**
 * Registers a file's fixture hooks: setupE2E in beforeAll (with `options`, or what they resolve to there), then in
 * afterAll `beforeTeardown` (the file's own workers and processes) and teardownE2E. The fixture it returns is filled
 * in by that beforeAll, so a file holds it as a constant instead of declaring a `let` and assigning it.
 */
export function e2eSuite(
  options: E2EOptions | (() => Promise<E2EOptions>) = {},
  beforeTeardown?: () => Promise<void>,
): E2E {
  return suiteFixture(options, beforeTeardown).fx;
}

/** e2eSuite's hooks, and whether the fixture started: a suite's own hooks must not act on a fixture not there. */
function suiteFixture(
  options: E2EOptions | (() => Promise<E2EOptions>),
  beforeTeardown?: () => Promise<void>,
): { fx: E2E; started: () => boolean } {
  const fx = {} as E2E;
  let started = false;
  beforeAll(async () => {
    Object.assign(fx, await setupE2E(typeof options === 'function' ? await options() : options));
    started = true;
  }, 120_000);
  afterAll(async () => {
    await beforeTeardown?.();
    await teardownE2E(started ? fx : undefined);
  }, 60_000);
  return { fx, started: () => started };
}

/**
 * Registers a restore suite's hooks and gives its fixture and target (filled in by beforeAll, as e2eSuite's): before
 * each test no approval policy left by the one before, and the fast job times with the file's settings over them.
 */
export function restoreSuite(jobs: Partial<JobsConfig>): { fx: E2E; target: RestoreTarget } {
  const { fx, started } = suiteFixture({});
  const target = {} as RestoreTarget;
  beforeAll(() => {
    // With no fixture, its own error is the one to read.
    if (started()) Object.assign(target, objectStoreTarget(fx));
  });
  beforeEach(async () => {
    if (!started()) return;
    await fx.control.clearPolicies();
    // A test that set its own job times does not pass them on to the next.
    await fx.control.jobsConfig({ ...FAST_JOBS, ...jobs });
  });
  return { fx, target };
}

export async function teardownE2E(fx: E2E | undefined): Promise<void> {
  if (!fx) return;
  await fx.worker.stop().catch(() => undefined);
  // Before the server stops: its histories go with it.
  await recordHistories(fx.env.client);
  await fx.proxy.close();
  await fx.sim.close();
  await closeHttpPools();
  await fx.env.teardown();
  await rm(fx.outputDir, { recursive: true, force: true });
}

export interface WorkerOverrides {
  taskQueue?: string;
  credentials?: { clientId: string; clientSecret: string };
  credentialsFile?: string;
  /** Lets a test fail a write of the credentials file. */
  credentialsFileWrite?: RunbookWorkerOptions['credentialsFileWrite'];
  /** A payload codec (encrypted history). */
  dataConverter?: RunbookWorkerOptions['dataConverter'];
  /** Spans for activities, workflows and service calls. */
  tracing?: RunbookWorkerOptions['tracing'];
  /** A versioned worker (Worker Versioning). */
  deploymentVersion?: RunbookWorkerOptions['deploymentVersion'];
  versioningMode?: RunbookWorkerOptions['versioningMode'];
  /** Tells apart two in-process workers in history. */
  identity?: string;
  /** Seals drill reports; default: a key made once in the fixture's output dir, as a worker makes one in its data dir. */
  evidenceKey?: EvidenceKey;
  /** Notification targets. */
  webhooks?: RunbookWorkerOptions['webhooks'];
  /** The worker's client for the limiter's gauges; none by default, as it needs a worker that scrapes. */
  temporalClient?: RunbookWorkerOptions['temporalClient'];
  /** An RFC 3161 authority that dates the evidence (RUNBOOKS_TSA_URL); none by default. */
  timestampAuthority?: RunbookWorkerOptions['timestampAuthority'];
  /** 0: no sticky queue, every task replays the history. */
  maxCachedWorkflows?: number;
  /**
   * A connection of the worker's own: two workers on one task queue cannot share one (the SDK refuses the second),
   * as two worker processes share none.
   */
  connection?: NativeConnection;
  /** How often the worker reads the schedules for their gauges; a minute by default. */
  scheduleGaugesIntervalMs?: number;
}

/** A runbook worker reaching the simulator through the proxy, running until `stop()`. */
export async function startWorker(fx: Omit<E2E, 'worker'>, overrides: WorkerOverrides = {}): Promise<RunningWorker> {
  const taskQueue = overrides.taskQueue ?? uniqueTaskQueue('runbooks');
  const { worker, client } = await createRunbookWorker({
    connection: overrides.connection ?? fx.env.nativeConnection,
    namespace: fx.env.namespace ?? 'default',
    taskQueue,
    service: {
      baseUrl: fx.proxy.baseUrl,
      projectId: fx.sim.projectId,
      credentials: overrides.credentials ?? { clientId: fx.sim.clientId, clientSecret: fx.sim.clientSecret },
      // As a worker is configured by default: the dialect is read from the service's answers.
      dialect: 'auto',
    },
    outputDir: fx.outputDir,
    evidenceKey:
      overrides.evidenceKey ?? (await loadOrCreateEvidenceKey(join(fx.outputDir, DEFAULT_EVIDENCE_KEY_FILE))),
    credentialsFile: overrides.credentialsFile,
    credentialsFileWrite: overrides.credentialsFileWrite,
    dataConverter: overrides.dataConverter,
    tracing: overrides.tracing,
    deploymentVersion: overrides.deploymentVersion,
    versioningMode: overrides.versioningMode,
    identity: overrides.identity,
    webhooks: overrides.webhooks,
    timestampAuthority: overrides.timestampAuthority,
    temporalClient: overrides.temporalClient,
    maxCachedWorkflows: overrides.maxCachedWorkflows,
    scheduleGaugesIntervalMs: overrides.scheduleGaugesIntervalMs,
    workflowBundle: fx.bundle,
    shutdownGraceTimeMs: 1_000,
  });
  const running = worker.run();
  // A worker that dies early must fail the test that uses it, not hang it.
  running.catch((err: unknown) => console.error('worker stopped with an error', err));
  return {
    worker,
    client,
    taskQueue,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Waiting and asserting.

/** Polls `probe` until it returns something other than undefined or false. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 60_000,
  intervalMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${last ? `: ${inspect(last)}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Waits until the runbook's `status` query reports a phase. */
export function phaseReached(handle: WorkflowHandle, phase: string | RegExp, timeoutMs = 60_000) {
  return eventually<RunbookStatus>(
    `phase ${String(phase)} of ${handle.workflowId}`,
    async () => {
      const status = await handle.query(statusQuery);
      return (typeof phase === 'string' ? status.phase === phase : phase.test(status.phase)) && status;
    },
    timeoutMs,
  );
}

/** Approves the run's action request as the tests' reviewer, and nudges the run to see the approval at once. */
export async function approveAndNudge(
  control: SimulatorControlClient,
  requestId: string,
  handle: WorkflowHandle,
): Promise<void> {
  await control.approve(requestId, APPROVAL);
  await nudge(handle);
}

export function nudge(handle: WorkflowHandle): Promise<void> {
  return handle.signal(nudgeSignal);
}

/** Nudges the runs every second until they end, so that no test waits for a long retry backoff. */
export function keepNudging(...handles: WorkflowHandle[]): () => void {
  const timer = setInterval(() => {
    for (const handle of handles) void nudge(handle).catch(() => undefined);
  }, 1_000);
  return () => clearInterval(timer);
}

/** The run's result, nudged every second until it ends: an answer the run waits for is seen at once. */
export function nudgedResult<R>(handle: WorkflowHandle & { result(): Promise<R> }): Promise<R> {
  const stop = keepNudging(handle);
  return handle.result().finally(stop);
}

/** Cancels the run and waits for its end, a cancellation: a WorkflowFailedError caused by a CancelledFailure. */
export async function cancelRun(handle: WorkflowHandle): Promise<void> {
  await handle.cancel();
  const err = await handle.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
}

/** The typed failure a run ended with: its `cause` must be an ApplicationFailure. */
export async function failureOf(handle: WorkflowHandle): Promise<ApplicationFailure> {
  const err = await handle.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof WorkflowFailedError)) throw new Error(`expected the run to fail, got ${inspect(err)}`);
  if (!(err.cause instanceof ApplicationFailure)) {
    throw new Error(`expected an ApplicationFailure as the cause, got ${inspect(err.cause)}`);
  }
  return err.cause;
}

/** A run refused for its input: InvalidInput naming `text`, non-retryable, before any service call was scheduled. */
export async function expectRefusedInput(handle: WorkflowHandle, text: string | RegExp): Promise<ApplicationFailure> {
  const failure = await failureOf(handle);
  expect(failure.type).toBe(FailureType.InvalidInput);
  expect(failure.nonRetryable).toBe(true);
  if (typeof text === 'string') expect(failure.message).toContain(text);
  else expect(failure.message).toMatch(text);
  const { events } = await handle.fetchHistory();
  // Only the runbook.failed notification may run: no call to the service.
  const scheduled = (events ?? []).flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
  expect(scheduled.filter((name) => name !== 'notify')).toEqual([]);
  return failure;
}

function decoded(value: unknown): unknown {
  if (typeof value === 'string') return Buffer.from(value, 'base64').toString('utf8');
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  return value;
}

/** A history as text with every payload (base64 in the history's JSON form) decoded, so that it can be searched. */
export function historyText(history: unknown): string {
  return JSON.stringify(history, (_key, value: unknown) => {
    if (value && typeof value === 'object' && 'metadata' in value && 'data' in value) {
      const payload = value as { metadata?: Record<string, unknown> | null; data?: unknown };
      const metadata = Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, decoded(v)] as const);
      return { metadata: Object.fromEntries(metadata), data: decoded(payload.data) };
    }
    return value instanceof Uint8Array ? decoded(value) : value;
  });
}

export async function eventCount(handle: WorkflowHandle): Promise<number> {
  return (await handle.fetchHistory()).events?.length ?? 0;
}

/** Jobs the simulator created after `since` (ISO time on its clock), per resource. */
export function jobsPerResource(jobs: (BackupJob | RestoreJob)[], since: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const job of jobs) {
    if (job.jobExecutionDetails.createdTime < since) continue;
    const resourceId = job.resourceDetails?.id ?? '?';
    out.set(resourceId, [...(out.get(resourceId) ?? []), job.jobExecutionDetails.jobId]);
  }
  return out;
}

/**
 * Scans every workflow history of the namespace, every worker log line and every console message of this file for
 * the simulator's client secrets (current and retired) and every token it issued; `minHistories` proves it looked.
 */
export async function scanForSecrets(fx: E2E, minHistories: number): Promise<void> {
  const state = fx.sim.ctx.state;
  const secrets = new Set<string>([
    fx.sim.clientSecret,
    ...fx.retiredSecrets,
    ...Object.values(state.credentials).map((c) => c.clientSecret),
    ...Object.keys(state.tokens),
  ]);
  const leaks: string[] = [];
  const check = (where: string, text: string) => {
    for (const secret of secrets) if (text.includes(secret)) leaks.push(`${where} holds ${secret.slice(0, 4)}…`);
  };
  let histories = 0;
  for await (const execution of fx.env.client.workflow.list()) {
    const handle = fx.env.client.workflow.getHandle(execution.workflowId, execution.runId);
    const text = historyText(await handle.fetchHistory());
    // Payloads were decoded (their metadata says `json/plain`), so a secret inside one would be found.
    expect(text).toContain('json/plain');
    check(`history of ${execution.workflowId}`, text);
    histories += 1;
  }
  const lines = [...captured];
  lines.forEach((line, i) => check(`output line ${i}`, line));
  expect(leaks).toEqual([]);
  console.log(`scanned ${histories} histories and ${lines.length} log lines for ${secrets.size} secrets`);
  expect(histories).toBeGreaterThanOrEqual(minHistories);
}

/**
 * A query export of the seeded `customers` table (its newest snapshot) into `query-results/<prefix>`, whose first read
 * of the query's status is answered 429 (Retry-After 1 s): the 429 and the activity's retry are there to be counted.
 */
export async function throttledCustomersQuery(
  fx: Pick<E2E, 'control' | 'sim'>,
  restoreAccountId: string,
  prefix: string,
): Promise<QueryExportInput> {
  const { databases } = await fx.control.state();
  const database = databases.find((d) => d.tables.includes('customers') && d.snapshotIds.length > 0);
  const snapshotId = database?.snapshotIds.at(-1);
  if (!database || !snapshotId) throw new Error('the seeded simulator has no queryable snapshot');
  await throttleNextQueryRead(fx);
  return {
    snapshotId,
    query: {
      databaseName: database.databaseName,
      query: 'SELECT id, name FROM customers ORDER BY id',
      restoreAccountId,
      destination: { bucketA: { bucketName: 'query-results', prefix } },
    },
  };
}

async function throttleNextQueryRead(fx: Pick<E2E, 'control' | 'sim'>): Promise<void> {
  await fx.control.faults({
    rate: 1,
    kinds: ['429'],
    retryAfterSeconds: 1,
    method: 'GET',
    pathPrefix: `/v1/projects/${fx.sim.projectId}/queries/`,
    times: 1,
  });
}

/** Waits for a restore runbook to wait on its reviewers, and reads the action request's ID from its status. */
export async function waitingRequestId(handle: WorkflowHandle): Promise<string> {
  const status = await phaseReached(handle, 'waiting for approval');
  const id = status.ids.requestId;
  if (!id) throw new Error(`no action request in ${JSON.stringify(status)}`);
  return id;
}

/**
 * The built worker as a process of its own on `taskQueue`, reaching the service through the test proxy: a worker a
 * test can kill outright (SIGKILL). `guardMs` bounds its life, as `startWorkerProcess` does.
 */
export async function startKillableWorker(fx: E2E, taskQueue: string, dataDir: string, guardMs: number) {
  return startWorkerProcess(
    {
      TEMPORAL_ADDRESS: fx.env.address,
      TEMPORAL_NAMESPACE: fx.env.namespace ?? 'default',
      RUNBOOKS_TASK_QUEUE: taskQueue,
      ...serviceEnv({ ...fx.sim, baseUrl: fx.proxy.baseUrl }),
      RUNBOOKS_DATA_DIR: dataDir,
      RUNBOOKS_WORKFLOW_BUNDLE: await ensureWorkflowBundle(),
    },
    guardMs,
  );
}
