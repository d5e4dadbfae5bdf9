import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { Client, type Connection } from '@temporalio/client';
import { bundleWorkflowCode, type NativeConnection, type Worker, type WorkerOptions } from '@temporalio/worker';
import type { Logger } from 'pino';
import { closeHttpPools, type BackupServiceClient, type ClientOptions } from '../api';
import { writeCredentialsFile } from '../runtime/credentials-file';
import { DEFAULT_EVIDENCE_KEY_FILE, loadOrCreateEvidenceKey } from '../runtime/evidence-key';
import type { RunningSimulator } from '../simulator/server';
import type { Config } from '../runtime/config';
import { resolveCredentials } from './credentials';
import type { DevServer } from './dev-server';
import { SEARCH_ATTRIBUTE_KEYS } from '../contracts';
import {
  ADDRESS_FILE,
  EMBEDDED_CREDENTIALS_FILE,
  SIMULATOR_URL_FILE,
  TEMPORAL_UI_URL_FILE,
} from '../runtime/stack-files';
import { PinoTemporalLogger } from './logger';
import { createRunbookWorker, prebuiltWorkflowBundle, runbookBundleOptions } from './runbook-worker';
import { startHeartbeat } from './heartbeat';
import { temporalConnectionOptions } from '../runtime/temporal-connection';
import { prepareFolders, type WorkerFolder } from '../runtime/worker-folders';
import { abortable, connectTemporal } from './connect-temporal';
import { codecDataConverter } from '../runtime/codec';
import { loadTracing, tracingEnabled } from '../runtime/tracing';
import { bootstrapCurrentVersion, buildIdOfBundle } from './versioning';

/**
 * The embedded default loads only when a configuration asks for it: the simulator (Fastify, sql.js and its seeded
 * data) when BACKUP_SERVICE_URL is unset, the dev server's starter when TEMPORAL_ADDRESS is. A worker configured for a
 * real service and a real Temporal never loads either (test/worker/lean-worker.test.ts).
 */
const requireHere: (id: string) => unknown = createRequire(__filename);
const simulatorServer = () => requireHere('../simulator/server') as typeof import('../simulator/server');
const devServer = () => requireHere('./dev-server') as typeof import('./dev-server');

export interface StackOptions {
  log: Logger;
  /** Embedded dev server: keep workflows in `<dataDir>/temporal.db` (default) or in memory (the demo). */
  persistTemporal?: boolean;
  /** Embedded dev server: serve the Web UI (default) or run headless. */
  ui?: boolean;
  /** Write `<dataDir>/temporal-address` and `<dataDir>/simulator-url` for the CLI (the worker does; the demo not). */
  writeAddressFiles?: boolean;
  /** Unset: RUNBOOKS_SHUTDOWN_GRACE_TIME_MS. */
  shutdownGraceTimeMs?: number;
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Aborted (SIGTERM, SIGINT): start-up stops where it is, and what it started is stopped. */
  signal?: AbortSignal;
  /** Rewritten while the worker runs, for the container's healthcheck (the worker process sets it). */
  heartbeatFile?: string;
}

export interface Stack {
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  uiUrl?: string;
  connection: NativeConnection;
  temporalClient: Client;
  simulator?: RunningSimulator;
  /** The worker's own service client (the demo uses it to look around). */
  serviceClient: BackupServiceClient;
  worker: Worker;
  /** Settles when the worker stops; rejects if it fails. */
  run: Promise<void>;
  /** Stops the worker (letting activities finish within the grace time), then everything the stack started. */
  shutdown(): Promise<void>;
}

/**
 * Starts what a configuration asks for: an embedded Temporal dev server when TEMPORAL_ADDRESS is unset, the
 * simulator in-process when BACKUP_SERVICE_URL is unset, and the worker. On failure everything started is stopped.
 */
export async function startStack(config: Config, options: StackOptions): Promise<Stack> {
  const log = options.log.child({ component: 'stack' });
  const cleanups: (() => Promise<void>)[] = [];
  const cleanUp = async () => {
    for (const step of cleanups.splice(0).reverse()) {
      await step().catch((err: unknown) => log.warn({ err }, 'cleanup step failed'));
    }
  };
  const dataDir = resolve(config.dataDir);

  // Bundling takes a while on two cores: let it run while the servers start.
  const bundle: Promise<NonNullable<WorkerOptions['workflowBundle']>> = options.workflowBundle
    ? Promise.resolve(options.workflowBundle)
    : config.workflowBundle
      ? prebuiltWorkflowBundle(config.workflowBundle)
      : bundleWorkflowCode({
          ...runbookBundleOptions(tracingEnabled()),
          logger: new PinoTemporalLogger(options.log.child({ component: 'bundler' }, { level: 'warn' })),
        });
  bundle.catch(() => undefined);

  const { signal } = options;
  try {
    await prepareFolders(foldersOf(config, dataDir));
    let temporalAddress = config.temporal.address;
    let uiUrl: string | undefined;
    if (!temporalAddress) {
      const server: DevServer = await devServer().startDevServer({
        log: options.log,
        namespace: config.temporal.namespace,
        preferredPort: options.persistTemporal === false ? undefined : 7233,
        preferredUiPort: options.ui === false ? false : 8233,
        dbFilename: options.persistTemporal === false ? undefined : join(dataDir, 'temporal.db'),
      });
      cleanups.push(() => server.stop());
      temporalAddress = server.address;
      uiUrl = server.uiUrl;
      signal?.throwIfAborted();
    }

    const { service, credentialsFile, simulator } = await connectService(config, dataDir, options.log);
    if (simulator) cleanups.push(() => simulator.close());

    const connectionOptions = temporalConnectionOptions(config.temporal, temporalAddress);
    const { native: connection, client: clientConnection } = await connectTemporal(connectionOptions, {
      log,
      timeoutMs: config.temporalConnectTimeoutMs ?? 0,
      signal,
    });
    cleanups.push(() => connection.close());
    cleanups.push(() => clientConnection.close());
    // One codec for the worker and the stack's client: what one encrypts, the other reads.
    const dataConverter = codecDataConverter(config.codecKeys);
    const temporalClient = new Client({
      connection: clientConnection,
      namespace: config.temporal.namespace,
      ...(dataConverter ? { dataConverter } : {}),
    });
    if (config.temporal.address) await checkSearchAttributes(clientConnection, config.temporal.namespace, log);

    // OTEL_* turn traces on (runtime/tracing.ts); flushed at shutdown.
    const tracing = loadTracing('runbooks-worker');
    if (tracing) cleanups.push(() => tracing.shutdown());
    const workflowBundle = await abortable(bundle, signal);
    const deploymentVersion = config.versioning && {
      deploymentName: config.versioning.deploymentName,
      buildId: config.versioning.buildId ?? (await buildIdOfBundle(workflowBundle)),
    };
    // The configured key (made once, by whichever replica comes first), or by default one in the data dir.
    const evidenceKey = await loadOrCreateEvidenceKey(
      config.evidenceKeyFile ?? join(dataDir, DEFAULT_EVIDENCE_KEY_FILE),
      {
        allowShared: config.allowSharedKeyFiles,
        variable: config.evidenceKeyFile ? 'RUNBOOKS_EVIDENCE_KEY_FILE' : 'RUNBOOKS_DATA_DIR',
      },
    );
    const { worker, client: serviceClient } = await createRunbookWorker({
      connection,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      service,
      outputDir: resolve(config.outputDir),
      evidenceKey,
      temporalClient,
      timestampAuthority: config.timestampAuthority,
      credentialsFile,
      workflowBundle,
      shutdownGraceTimeMs: options.shutdownGraceTimeMs ?? config.shutdownGraceTimeMs,
      dataConverter,
      tracing,
      deploymentVersion,
      versioningMode: config.versioning?.mode,
      webhooks: config.webhooks,
      maxCachedWorkflows: config.maxCachedWorkflows,
      waitLooks: config.waitLooks,
    });
    cleanups.push(() => closeHttpPools());
    signal?.throwIfAborted();

    if (options.writeAddressFiles) {
      await mkdir(dataDir, { recursive: true });
      if (!config.temporal.address) {
        await writeFile(join(dataDir, ADDRESS_FILE), `${temporalAddress}\n`);
        cleanups.push(() => rm(join(dataDir, ADDRESS_FILE), { force: true }));
      }
      // The console links runs to the dev server's Web UI when it runs one.
      if (uiUrl) {
        await writeFile(join(dataDir, TEMPORAL_UI_URL_FILE), `${uiUrl}\n`);
        cleanups.push(() => rm(join(dataDir, TEMPORAL_UI_URL_FILE), { force: true }));
      }
      if (simulator) {
        await writeFile(join(dataDir, SIMULATOR_URL_FILE), `${simulator.baseUrl}\n`);
        cleanups.push(() => rm(join(dataDir, SIMULATOR_URL_FILE), { force: true }));
      }
    }

    const run = worker.run();
    if (deploymentVersion && config.versioning) {
      const mode = config.versioning.mode;
      const stopBootstrap = new AbortController();
      cleanups.push(async () => stopBootstrap.abort());
      void bootstrapCurrentVersion({
        client: temporalClient,
        version: deploymentVersion,
        mode,
        signal: stopBootstrap.signal,
      }).then((result) => {
        if (stopBootstrap.signal.aborted) return;
        const fields = { deploymentVersion, versioning: mode };
        const { buildId } = deploymentVersion;
        if (result.outcome === 'made-current') {
          log.info({ ...fields, previousBuildId: result.previous ?? 'none' }, 'made this version current');
        } else if (result.outcome === 'failed') {
          log.error({ ...fields, err: result.error }, 'could not check the deployment');
        } else if (result.outcome === 'left-current') {
          log.warn(
            { ...fields, currentBuildId: result.current ?? 'unversioned', reason: result.reason },
            `this build does not take current back from a newer one; to roll back: runbooks deployment promote ${buildId}`,
          );
        } else if (result.outcome === 'current-exists' && result.current !== buildId) {
          log.info(
            { ...fields, currentBuildId: result.current ?? 'unversioned' },
            `new runs go to the current version until this one is promoted: runbooks deployment promote ${buildId}`,
          );
        }
      });
    }
    if (options.heartbeatFile) {
      const heartbeatFile = options.heartbeatFile;
      const stopHeartbeat = startHeartbeat(heartbeatFile, () => worker.getState() === 'RUNNING');
      cleanups.push(async () => {
        stopHeartbeat();
        await rm(heartbeatFile, { force: true });
      });
    }
    log.info(
      {
        temporalAddress,
        namespace: config.temporal.namespace,
        taskQueue: config.temporal.taskQueue,
        uiUrl,
        service: service.baseUrl,
        projectId: service.projectId,
        simulator: simulator !== undefined,
        outputDir: resolve(config.outputDir),
        encryptedHistory: config.codecKeys ? { currentKey: config.codecKeys.current } : false,
        deploymentVersion: deploymentVersion ?? 'unversioned',
        webhooks: config.webhooks?.map((t) => `${t.name} (${t.format})`),
      },
      'worker running',
    );

    let stopped: Promise<void> | undefined;
    const shutdown = () =>
      (stopped ??= (async () => {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await run.catch((err: unknown) => log.error({ err }, 'the worker failed'));
        await cleanUp();
        log.info('stopped');
      })());

    return {
      temporalAddress,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      uiUrl,
      connection,
      temporalClient,
      simulator,
      serviceClient,
      worker,
      run,
      shutdown,
    };
  } catch (err) {
    await cleanUp();
    throw err;
  }
}

/**
 * Every folder the worker writes to, with the variable that places it. The evidence key's folder only when the key is
 * still to be created: a key given as a mounted secret sits in a read-only folder (it then keeps no key history).
 */
export function foldersOf(config: Config, dataDir: string): WorkerFolder[] {
  const folders: WorkerFolder[] = [
    { variable: 'RUNBOOKS_DATA_DIR', path: dataDir },
    { variable: 'RUNBOOKS_OUTPUT_DIR', path: resolve(config.outputDir) },
  ];
  if (config.service.mode === 'remote' && config.service.credentialsFile) {
    folders.push({ variable: 'BACKUP_CREDENTIALS_FILE', path: dirname(resolve(config.service.credentialsFile)) });
  }
  if (config.evidenceKeyFile && !existsSync(config.evidenceKeyFile)) {
    folders.push({ variable: 'RUNBOOKS_EVIDENCE_KEY_FILE', path: dirname(resolve(config.evidenceKeyFile)) });
  }
  return folders;
}

/** The service's client options: from the configuration, or from a simulator started here. */
async function connectService(
  config: Config,
  dataDir: string,
  log: Logger,
): Promise<{ service: ClientOptions; credentialsFile?: string; simulator?: RunningSimulator }> {
  // The dialect request bodies are sent in (BACKUP_SERVICE_DIALECT), said once in the log when it is first needed.
  const dialect: Pick<ClientOptions, 'dialect' | 'onDialect'> = {
    dialect: config.service.dialect ?? 'auto',
    onDialect: (chosen, how) => log.info({ dialect: chosen }, `backup service dialect: ${chosen} (${how})`),
  };
  if (config.service.mode === 'remote') {
    const { credentials, credentialsFile } = await resolveCredentials(config.service, log);
    const service: ClientOptions = {
      baseUrl: config.service.baseUrl,
      projectId: config.service.projectId,
      credentials,
      tokenEndpoint: config.service.tokenEndpoint,
      timeoutMs: config.service.timeoutMs,
      ...dialect,
    };
    return { service, credentialsFile };
  }
  await mkdir(dataDir, { recursive: true });
  const simulator = await simulatorServer().startSimulator({
    port: 0,
    host: '127.0.0.1',
    dataDir: join(dataDir, 'simulator'),
    seed: 1,
  });
  // Rotation keeps its new secret in this file, as it would with a real service; the simulator persists it too.
  const credentialsFile = join(dataDir, EMBEDDED_CREDENTIALS_FILE);
  try {
    await writeCredentialsFile(credentialsFile, { clientId: simulator.clientId, clientSecret: simulator.clientSecret });
  } catch (err) {
    await simulator.close();
    throw err;
  }
  log
    .child({ component: 'simulator' })
    .info({ baseUrl: simulator.baseUrl, projectId: simulator.projectId }, 'simulator started in-process');
  return {
    service: {
      baseUrl: simulator.baseUrl,
      projectId: simulator.projectId,
      credentials: { clientId: simulator.clientId, clientSecret: simulator.clientSecret },
      ...dialect,
    },
    credentialsFile,
    simulator,
  };
}

/**
 * On a server we did not start, the runbooks' search attributes may be missing; every workflow task that sets one
 * would then fail. Say so at startup, with the command that fixes it. (Cloud may not allow the lookup: then stay quiet.)
 */
async function checkSearchAttributes(connection: Connection, namespace: string, log: Logger): Promise<void> {
  let known: string[];
  try {
    const response = await connection.operatorService.listSearchAttributes({ namespace });
    known = Object.keys(response.customAttributes ?? {});
  } catch (err) {
    log.debug({ err }, 'could not list search attributes');
    return;
  }
  const missing = SEARCH_ATTRIBUTE_KEYS.filter((key) => !known.includes(key.name));
  for (const key of missing) {
    log.error(
      { namespace, searchAttribute: key.name },
      `search attribute ${key.name} is not registered; runbooks will fail until it is: ` +
        `temporal operator search-attribute create --namespace ${namespace} --name ${key.name} --type Keyword`,
    );
  }
}
