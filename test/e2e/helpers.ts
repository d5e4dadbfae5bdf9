// End-to-end fixture: a real Temporal dev server, the in-process simulator, a proxy between the runbook worker and
// the simulator (to lose responses and to act at exact moments), and every log line the suite produces.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { format, inspect } from 'node:util';
import { Pool, request } from 'undici';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import {
  DefaultLogger,
  makeTelemetryFilterString,
  Runtime,
  type LogEntry,
  type Worker,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { BackupServiceClient, closeHttpPools, type BackupJob, type MpaRequest, type RestoreJob } from '../../api';
import type { JobsConfig } from '../../simulator/model';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { createRunbookWorker, WORKFLOWS_PATH, type RunbookWorkerOptions } from '../../worker/runbook-worker';
import { nudgeSignal, SEARCH_ATTRIBUTE_KEYS, statusQuery, type RunbookStatus } from '../../contracts';
import { bundleWorkflows, startTestEnv, uniqueTaskQueue } from '../helpers/temporal';
import { recordHistories } from './record-histories';

// ---------------------------------------------------------------------------------------------------------------
// Captured output: everything the worker logs (through the Runtime logger) and everything the tests print.

const captured: string[] = [];

/** Every log line and console message of this test file so far. */
export function capturedOutput(): readonly string[] {
  return captured;
}

const LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

function installCapturingRuntime(): void {
  const shown = LEVELS.indexOf(process.env.E2E_LOG_LEVEL ?? 'ERROR');
  const logger = new DefaultLogger('DEBUG', (entry: LogEntry) => {
    const line = `${entry.level} ${entry.message} ${inspect(entry.meta ?? {}, { depth: 6, breakLength: Infinity })}`;
    captured.push(line);
    if (LEVELS.indexOf(entry.level) >= shown) process.stderr.write(`${line}\n`);
  });
  // Core's own logs are forwarded to the same logger, so that they are scanned as well.
  Runtime.install({
    logger,
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'INFO', other: 'WARN' }), forward: {} } },
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
// The proxy: the worker reaches the simulator through it.

export interface ProxyRule {
  method: string;
  path: RegExp;
  /** Runs before the request is forwarded (e.g. to change the service's state at that exact moment). */
  before?: (path: string) => Promise<void> | void;
  /** Forwards the request, then drops the connection instead of answering: the caller cannot tell what happened. */
  loseResponse?: boolean;
  /** Answers with this status without forwarding: a failure the service never saw. */
  refuseWith?: number;
  /** How many requests the rule applies to; every one when absent. */
  times?: number;
}

const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade']);

function forwardable(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>) {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(key.toLowerCase())) out[key] = value;
  }
  return out;
}

export class ServiceProxy {
  readonly lost: string[] = [];
  private readonly rules = new Set<ProxyRule>();
  private readonly server = createServer((req, res) => void this.handle(req, res));
  private readonly upstream: Pool;
  private port = 0;

  constructor(private readonly target: string) {
    this.upstream = new Pool(new URL(target).origin, { connections: 32 });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** The service's base URL through the proxy. */
  get baseUrl(): string {
    const prefix = new URL(this.target).pathname.replace(/\/+$/, '');
    return `http://127.0.0.1:${this.port}${prefix}`;
  }

  /** Adds a rule; the returned function removes it. */
  add(rule: ProxyRule): () => void {
    this.rules.add(rule);
    return () => this.rules.delete(rule);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.upstream.close();
  }

  private take(method: string, path: string): ProxyRule | undefined {
    for (const rule of this.rules) {
      if (rule.method !== method || !rule.path.test(path)) continue;
      if (rule.times !== undefined) {
        if (rule.times <= 0) continue;
        rule.times -= 1;
      }
      return rule;
    }
    return undefined;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const method = req.method ?? 'GET';
      const url = req.url ?? '/';
      const rule = this.take(method, url.split('?')[0] ?? url);
      await rule?.before?.(url);
      if (rule?.refuseWith !== undefined) {
        this.lost.push(`${method} ${url} -> refused ${rule.refuseWith}`);
        res.writeHead(rule.refuseWith, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'refused by the test proxy' }));
        return;
      }
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      const answer = await this.upstream.request({
        method,
        path: url,
        headers: forwardable(req.headers),
        body,
      });
      const payload = Buffer.from(await answer.body.arrayBuffer());
      if (rule?.loseResponse) {
        this.lost.push(`${method} ${url} -> ${answer.statusCode}`);
        req.socket.destroy();
        return;
      }
      res.writeHead(answer.statusCode, { ...forwardable(answer.headers), 'content-length': payload.length });
      res.end(payload);
    } catch {
      // The simulator reset the connection (an injected fault): so does the proxy.
      req.socket.destroy();
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The simulator's control API.

export interface SimulatorJobs {
  backupJobs: BackupJob[];
  restoreJobs: RestoreJob[];
}

export interface SimulatorDatabase {
  resourceId: string;
  databaseName: string;
  tables: string[];
  snapshotIds: string[];
}

export interface SimulatorState {
  projectId: string;
  now: string;
  databases: SimulatorDatabase[];
  buckets?: { name: string; region: string }[];
}

export class Control {
  constructor(private readonly baseUrl: string) {}

  async call<T = unknown>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const res = await request(`${this.baseUrl}/_simulator${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} /_simulator${path} answered ${res.statusCode}: ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  jobsConfig(config: Partial<JobsConfig>): Promise<JobsConfig> {
    return this.call('PUT', '/jobs/config', config);
  }
  jobs(): Promise<SimulatorJobs> {
    return this.call('GET', '/jobs');
  }
  state(): Promise<SimulatorState> {
    return this.call('GET', '/state');
  }
  addPolicy(policy: { requiredApprovals?: number; approvalWindowHours: number; executionWindowHours: number }) {
    return this.call<{ id: string }>('POST', '/policies', {
      operations: ['MPA_OPERATION_RESTORE_RESOURCE'],
      requiredApprovals: policy.requiredApprovals ?? 1,
      approvalWindowHours: policy.approvalWindowHours,
      executionWindowHours: policy.executionWindowHours,
      description: 'restores need a second pair of eyes',
    });
  }
  clearPolicies(): Promise<void> {
    return this.call('DELETE', '/policies');
  }
  actionRequest(id: string): Promise<{ actionApprovalRequest: MpaRequest }> {
    return this.call('GET', `/action-requests/${encodeURIComponent(id)}`);
  }
  approve(id: string): Promise<{ actionApprovalRequest: MpaRequest }> {
    return this.call('POST', `/action-requests/${encodeURIComponent(id)}/approve`, { comment: 'looks right' });
  }
  deny(id: string): Promise<{ actionApprovalRequest: MpaRequest }> {
    return this.call('POST', `/action-requests/${encodeURIComponent(id)}/deny`, { comment: 'not today' });
  }
  advanceClock(seconds: number): Promise<{ now: string }> {
    return this.call('POST', '/clock/advance', { seconds });
  }
  faults(config: { rate: number; kinds: string[]; pathPrefix?: string; retryAfterSeconds?: number }) {
    return this.call('PUT', '/faults', config);
  }
  clearFaults(): Promise<void> {
    return this.call('DELETE', '/faults');
  }
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
  proxy: ServiceProxy;
  control: Control;
  bundle: WorkflowBundleWithSourceMap;
  /** The test's own client, straight to the simulator (not through the proxy). */
  service: BackupServiceClient;
  outputDir: string;
  worker: RunningWorker;
  /** Secrets the file used and then retired (rotated away); the final scan looks for them too. */
  retiredSecrets: string[];
}

export const FAST_JOBS: Partial<JobsConfig> = {
  backupSeconds: 1,
  restoreSeconds: 1,
  querySeconds: 1,
  maxConcurrentBackups: 50,
  outcomes: {},
};

/** A seeded object-store snapshot and the `restore-pa` restore account: the targets of the restore suites. */
export function objectStoreTarget(fx: E2E): { resourceId: string; snapshotId: string; restoreAccountId: string } {
  const state = fx.sim.ctx.state;
  const snapshot = Object.values(state.snapshots).find(
    (s) => state.resources[s.resourceId]?.resource.resourceType === 'PA_OBJECT_STORE',
  );
  const account = Object.values(state.restoreAccounts).find((a) => a.name === 'restore-pa');
  if (!snapshot || !account) throw new Error('the seeded simulator has no object-store snapshot or restore-pa account');
  return { resourceId: snapshot.resourceId, snapshotId: snapshot.id, restoreAccountId: account.id };
}

export async function setupE2E(): Promise<E2E> {
  installCapturingRuntime();
  captureConsole();
  const [env, bundle, sim] = await Promise.all([
    startTestEnv({ server: { searchAttributes: SEARCH_ATTRIBUTE_KEYS } }),
    bundleWorkflows(WORKFLOWS_PATH),
    startSimulator({ port: 0 }),
  ]);
  const proxy = new ServiceProxy(sim.baseUrl);
  await proxy.listen();
  const control = new Control(sim.baseUrl);
  await control.jobsConfig(FAST_JOBS);
  const outputDir = await mkdtemp(join(tmpdir(), 'runbooks-e2e-'));
  const service = new BackupServiceClient({
    baseUrl: sim.baseUrl,
    projectId: sim.projectId,
    credentials: { clientId: sim.clientId, clientSecret: sim.clientSecret },
  });
  const fx: Omit<E2E, 'worker'> = { env, sim, proxy, control, bundle, service, outputDir, retiredSecrets: [] };
  const worker = await startWorker(fx);
  return { ...fx, worker };
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
}

/** A runbook worker reaching the simulator through the proxy, running until `stop()`. */
export async function startWorker(fx: Omit<E2E, 'worker'>, overrides: WorkerOverrides = {}): Promise<RunningWorker> {
  const taskQueue = overrides.taskQueue ?? uniqueTaskQueue('runbooks');
  const { worker, client } = await createRunbookWorker({
    connection: fx.env.nativeConnection,
    namespace: fx.env.namespace ?? 'default',
    taskQueue,
    service: {
      baseUrl: fx.proxy.baseUrl,
      projectId: fx.sim.projectId,
      credentials: overrides.credentials ?? { clientId: fx.sim.clientId, clientSecret: fx.sim.clientSecret },
    },
    outputDir: fx.outputDir,
    credentialsFile: overrides.credentialsFile,
    credentialsFileWrite: overrides.credentialsFileWrite,
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

export function nudge(handle: WorkflowHandle): Promise<void> {
  return handle.signal(nudgeSignal);
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
 * the simulator's client secrets (current and retired) and every token it issued.
 */
export async function scanForSecrets(fx: E2E): Promise<{ histories: number; lines: number; secrets: number }> {
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
  return { histories, lines: lines.length, secrets: secrets.size };
}

/** Waits for a restore runbook to wait on its reviewers, and reads the action request's ID from its status. */
export async function waitingRequestId(handle: WorkflowHandle): Promise<string> {
  const status = await phaseReached(handle, 'waiting for approval');
  const id = status.ids.requestId;
  if (!id) throw new Error(`no action request in ${JSON.stringify(status)}`);
  return id;
}
