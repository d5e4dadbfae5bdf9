import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { BackupServiceClient, HttpTransport, type ClientOptions } from '../api';
import { DrillReader } from '../history/drill-index';
import { createActivities } from '../runbooks/activities';
import { runbookTuner } from './slots';
import { CredentialsFile, type CredentialsFileOptions } from '../runtime/credentials-file';
import { FAILURE_CONVERTER_PATH } from '../runtime/codec';
import {
  ConfigError,
  DEFAULT_MAX_CACHED_WORKFLOWS,
  DEFAULT_TASK_QUEUE,
  DEFAULT_VERSIONING_MODE,
  type VersioningMode,
} from '../runtime/config';
import type { EvidenceKey } from '../runtime/evidence-key';
import type { TimestampAuthorityConfig } from '../runtime/config/evidence';
import type { Tracing } from '../runtime/tracing';
import type { WebhookTarget } from '../runtime/webhooks';
import { recordApprovalLook } from './approval-gauges';
import { recordServiceCall } from './metrics';
import { watchCoverage } from './coverage-gauges';
import { drillRotation } from './drill-rotation';
import { watchLimiter } from './limiter-gauges';
import { watchSchedules } from './schedule-gauges';
import { tracingActivityInterceptors, workflowTraceSinks } from './tracing';

export { DEFAULT_TASK_QUEUE };
export const WORKFLOWS_PATH = require.resolve('../runbooks/workflows');
/**
 * Bundle option: the entry's own `interceptors` export (tracing), for bundles of a worker that traces. Only those:
 * the interceptors put a trace-context header on every activity, and headers bypass the payload codec.
 */
export const workflowInterceptorModules = (tracing: boolean) => (tracing ? [WORKFLOWS_PATH] : []);
/** Bundle option: modules every run shares, evaluated once per workflow thread (runbooks/shared-modules.ts). */
export const PRELOAD_MODULES = [require.resolve('../runbooks/shared-modules')];

/** How every runbook bundle is made: by the worker, by `npm run build:bundle`, and by the tests. */
export const runbookBundleOptions = (tracing: boolean) => ({
  workflowsPath: WORKFLOWS_PATH,
  workflowInterceptorModules: workflowInterceptorModules(tracing),
  preloadModules: PRELOAD_MODULES,
  failureConverterPath: FAILURE_CONVERTER_PATH,
});

/** The bundle `npm run build:bundle` wrote (RUNBOOKS_WORKFLOW_BUNDLE); a missing file is a configuration error. */
export async function prebuiltWorkflowBundle(codePath: string): Promise<{ codePath: string }> {
  const path = resolve(codePath);
  await access(path).catch(() => {
    throw new ConfigError([
      { variable: 'RUNBOOKS_WORKFLOW_BUNDLE', message: `${path} cannot be read; run npm run build:bundle` },
    ]);
  });
  return { codePath: path };
}

export interface RunbookWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /** How to reach the Backup Management Service; credentials stay here, never in history. */
  service: ClientOptions;
  outputDir: string;
  /** Seals drill reports: RUNBOOKS_EVIDENCE_KEY_FILE, or the key generated in the data dir. */
  evidenceKey: EvidenceKey;
  /** A client of the same namespace, with the worker's codec: the worker queries the limiter of snapshot starts. */
  temporalClient?: Client;
  /** RUNBOOKS_TSA_URL: the authority that timestamps seals and attestations; unset: none. */
  timestampAuthority?: TimestampAuthorityConfig;
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
  /** The process's tracing (runtime/tracing.ts), when OTEL_* configure it. */
  tracing?: Tracing;
  /** Worker Versioning (worker/versioning.ts): this worker is that version; unset: an unversioned worker. */
  deploymentVersion?: WorkerDeploymentVersion;
  /** How runs of a versioned worker meet a new release (RUNBOOKS_VERSIONING); the config's default unless given. */
  versioningMode?: VersioningMode;
  /** The SDK's default (pid@host) unless given. */
  identity?: string;
  /** Where notifications go (RUNBOOKS_WEBHOOK_*); none: they are not sent. */
  webhooks?: readonly WebhookTarget[];
  /** The sticky cache's size (RUNBOOKS_MAX_CACHED_WORKFLOWS); 0 turns the cache off. */
  maxCachedWorkflows?: number;
  /** How waits look (RUNBOOKS_WAIT_LOOKS): inside one watch (the default), or one look per attempt. */
  waitLooks?: 'watch' | 'attempts';
  /**
   * How often the schedule gauges are read (worker/schedule-gauges.ts), a minute unless given; when given, the limiter
   * and coverage gauges are read as often (a test's short interval).
   */
  scheduleGaugesIntervalMs?: number;
}

/**
 * V8 lets a heap grow to about four times what survived its last full collection before it collects again. A run
 * evicted from the cache leaves all its state behind, so with 1,000 waiting runs the workflow thread's heap reached
 * about 730 MB before each full collection, for 180 MB live (bench/waiting, --trace-gc). At 1.5 times it stays near
 * 350 MB, and an export's page garbage on the main thread goes sooner too (bench/export: +138 → +69 MiB at 1M rows).
 * Set before the workflow thread starts; a `--heap-growing-percent` given to node wins.
 */
const HEAP_GROWING_PERCENT = 50;

function boundHeapGrowth(): void {
  if (process.execArgv.some((arg) => arg.startsWith('--heap-growing-percent'))) return;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/** A worker that serves every runbook, with activities bound to one service client. */
export async function createRunbookWorker(
  options: RunbookWorkerOptions,
): Promise<{ worker: Worker; client: BackupServiceClient }> {
  // Every call the worker makes is counted, by endpoint template and status (unless the caller hooks calls itself).
  const tracing = options.tracing;
  const service: ClientOptions = {
    onCall: recordServiceCall,
    ...(tracing ? { around: (call, send) => tracing.aroundServiceCall(call, send) } : {}),
    ...options.service,
  };
  const transport = new HttpTransport(service);
  const credentials = options.credentialsFile
    ? new CredentialsFile({
        path: options.credentialsFile,
        transport: () => transport,
        endpoint: options.service.tokenEndpoint,
        write: options.credentialsFileWrite,
      })
    : undefined;
  // With a file, every new token is asked for with the file's secret, so a rotation by any worker reaches this one.
  const client = new BackupServiceClient({ ...service, credentialsSource: credentials });
  // One reader of the drill reports for the rotation and the coverage gauges: each chain is verified once, cached once.
  const drillReports = new DrillReader({ outputDir: options.outputDir });
  const activities = createActivities({
    client,
    outputDir: options.outputDir,
    credentials,
    evidenceKey: options.evidenceKey,
    timestampAuthority: options.timestampAuthority,
    webhooks: options.webhooks,
    waitLooks: options.waitLooks,
    onApprovalLook: recordApprovalLook,
    nextToDrill: drillRotation(drillReports),
  });
  boundHeapGrowth();
  const worker = await Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    ...(options.identity ? { identity: options.identity } : {}),
    activities,
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : { workflowsPath: WORKFLOWS_PATH, bundlerOptions: { preloadModules: PRELOAD_MODULES } }),
    interceptors: {
      workflowModules: workflowInterceptorModules(tracing !== undefined),
      ...(tracing ? { activity: [tracingActivityInterceptors()] } : {}),
    },
    sinks: workflowTraceSinks(tracing),
    shutdownGraceTime: options.shutdownGraceTimeMs ?? 10_000,
    ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
    // Pinned: a run finishes on the code that started it, so its workers must stay until it does. Auto-upgrade: a run
    // moves to the current version at its next task, which the replay tests make safe.
    ...(options.deploymentVersion
      ? {
          workerDeploymentOptions: {
            version: options.deploymentVersion,
            useWorkerVersioning: true,
            defaultVersioningBehavior:
              (options.versioningMode ?? DEFAULT_VERSIONING_MODE) === 'pinned' ? 'PINNED' : 'AUTO_UPGRADE',
          },
        }
      : {}),
    // Checkpoints reach Temporal within a second (not 80% of the heartbeat timeout), so a crash loses about a second
    // of an export's pages.
    maxHeartbeatThrottleInterval: '1 second',
    // A bounded cache: runs that only wait are evicted (least recently used first) and replayed when they wake.
    maxCachedWorkflows: options.maxCachedWorkflows ?? DEFAULT_MAX_CACHED_WORKFLOWS,
    // The SDK's slot counts, except that waits watching for an answer take no activity slot (worker/slots.ts).
    tuner: runbookTuner(),
    // One V8 context per thread, shared by every cached run (the SDK's default; stated because memory depends on it).
    reuseV8Context: true,
  });
  // Missed and skipped schedule runs, for the alerts: read from Temporal while this worker runs.
  const stopped = new Set(['STOPPING', 'DRAINING', 'DRAINED', 'STOPPED', 'FAILED']);
  watchSchedules({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    intervalMs: options.scheduleGaugesIntervalMs,
    running: () => !stopped.has(worker.getState()),
  });
  // The limiter of snapshot starts: its limit, its ceiling and that ceiling's age (queried with a client's connection:
  // a query through the worker's own native connection is dropped).
  if (options.temporalClient) {
    watchLimiter({
      client: options.temporalClient,
      projectId: service.projectId,
      intervalMs: options.scheduleGaugesIntervalMs,
      running: () => !stopped.has(worker.getState()),
    });
  }
  // Each drill's coverage and readiness, from the output folder's reports: a resource falls overdue as time passes,
  // drill or no drill, so it is read on a timer (worker/coverage-gauges.ts says why not at the report's sealing).
  watchCoverage({
    reader: drillReports,
    intervalMs: options.scheduleGaugesIntervalMs,
    running: () => !stopped.has(worker.getState()),
  });
  return { worker, client };
}
