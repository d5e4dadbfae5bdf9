// The fixture of test/cli/doctor.test.ts: one Temporal dev server with namespaces ready and not, versioned workers
// with and without a current version, simulators in either dialect, and the lines of a report to assert on.
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
import { runDoctor, type DoctorOptions } from '../../cli/doctor-command';
import { deploymentStatus } from '../../cli/deployment-command';
import type { CheckResult, DoctorReport } from '../../cli/doctor-report';
import { SEARCH_ATTRIBUTE_KEYS } from '../../contracts';
import { closeHttpPools } from '../../api';
import type { Dialect } from '../../api/dialect';
import { SimulatorControlClient } from '../../simulator/control-client';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { bootstrapCurrentVersion } from '../../worker/versioning';
import { bundleWorkflows, startTestEnv } from '../helpers/temporal';
import { serviceEnv } from '../helpers/service-env';

export const BARE_NAMESPACE = 'doctor-bare';
export const MISTYPED_NAMESPACE = 'doctor-mistyped';
/** A deployment whose version build-1 is current, with a worker polling. */
export const READY = {
  deploymentName: `doctor-ready-${randomUUID().slice(0, 8)}`,
  taskQueue: `doctor-ready-${randomUUID()}`,
};
/** A deployment whose worker (build-9) polls, but whose version nobody made current. */
export const NO_CURRENT = {
  deploymentName: `doctor-idle-${randomUUID().slice(0, 8)}`,
  taskQueue: `doctor-idle-${randomUUID()}`,
};

/** Both dialects the service may speak: the neutral one, and the real service's public one. */
export const DIALECTS: Dialect[] = ['neutral', 'public'];

let env: TestWorkflowEnvironment | undefined;
const workers: { worker: Worker; run: Promise<void> }[] = [];
const sims: RunningSimulator[] = [];

function temporalEnv(): TestWorkflowEnvironment {
  if (!env) throw new Error('startDoctorTemporal() did not run');
  return env;
}

/** A versioned worker of `deploymentName` polling `taskQueue` (a small workflow: only its polls matter here). */
async function startVersionedWorker(target: typeof READY, buildId: string): Promise<void> {
  const worker = await Worker.create({
    connection: temporalEnv().nativeConnection,
    namespace: 'default',
    taskQueue: target.taskQueue,
    workflowBundle: await bundleWorkflows(require.resolve('../fixtures/smoke-workflows')),
    workerDeploymentOptions: {
      version: { deploymentName: target.deploymentName, buildId },
      useWorkerVersioning: true,
      defaultVersioningBehavior: 'AUTO_UPGRADE',
    },
  });
  workers.push({ worker, run: worker.run() });
}

/** For beforeAll: the dev server, its namespaces and search attributes, and the two deployments' workers. */
export async function startDoctorTemporal(): Promise<void> {
  // No search attributes of ours: `default` gets them below, the bare namespace never does.
  env = await startTestEnv({
    server: { extraArgs: ['--namespace', BARE_NAMESPACE, '--namespace', MISTYPED_NAMESPACE] },
  });
  const keyword = (name: string) => [name, encodeSearchAttributeIndexedValueType('KEYWORD') ?? 0] as const;
  await env.connection.operatorService.addSearchAttributes({
    namespace: 'default',
    searchAttributes: Object.fromEntries(SEARCH_ATTRIBUTE_KEYS.map((k) => keyword(k.name))),
  });
  await env.connection.operatorService.addSearchAttributes({
    namespace: MISTYPED_NAMESPACE,
    searchAttributes: {
      ...Object.fromEntries(SEARCH_ATTRIBUTE_KEYS.map((k) => keyword(k.name))),
      RunbookKind: encodeSearchAttributeIndexedValueType('TEXT') ?? 0,
    },
  });
  await startVersionedWorker(READY, 'build-1');
  const made = await bootstrapCurrentVersion({
    client: env.client,
    version: { deploymentName: READY.deploymentName, buildId: 'build-1' },
    mode: 'auto-upgrade',
    intervalMs: 200,
  });
  if (made.outcome !== 'made-current') throw new Error(`build-1 did not become current: ${made.outcome}`);
  await startVersionedWorker(NO_CURRENT, 'build-9');
  for (let i = 0; i < 100; i++) {
    const known = await deploymentStatus(env.client, NO_CURRENT.deploymentName).catch(() => undefined);
    if (known?.versions.length) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`deployment ${NO_CURRENT.deploymentName} never registered build-9`);
}

/** For afterAll. */
export async function stopDoctorTemporal(): Promise<void> {
  for (const { worker } of workers) worker.shutdown();
  await Promise.all(workers.map((w) => w.run.catch(() => undefined)));
  await closeHttpPools();
  await env?.teardown();
}

/** A fresh simulator (closed by `closeSimulators`, for afterEach). */
export async function simulator(dialect: Dialect = 'neutral'): Promise<RunningSimulator> {
  const sim = await startSimulator({ port: 0, dialect });
  sims.push(sim);
  return sim;
}

export async function closeSimulators(): Promise<void> {
  for (const sim of sims.splice(0)) await sim.close();
}

/** The worker's configuration for this simulator and the dev server, ready in every respect. */
export function readyEnv(
  sim: Pick<RunningSimulator, 'baseUrl' | 'projectId' | 'clientId' | 'clientSecret'>,
  extra: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...serviceEnv(sim),
    // Where rotations keep the secret; it need not exist yet (the worker creates it, the doctor only reads it).
    BACKUP_CREDENTIALS_FILE: join(tmpdir(), `doctor-${randomUUID()}`, 'credentials.json'),
    TEMPORAL_ADDRESS: temporalEnv().address,
    TEMPORAL_NAMESPACE: 'default',
    RUNBOOKS_TASK_QUEUE: READY.taskQueue,
    RUNBOOKS_DEPLOYMENT_NAME: READY.deploymentName,
    ...extra,
  };
}

export function doctor(
  environment: Record<string, string | undefined>,
  options: DoctorOptions = {},
): Promise<DoctorReport> {
  return runDoctor({ timeoutMs: 10_000, ...options }, environment);
}

export function line(report: DoctorReport, id: string): CheckResult {
  const found = report.checks.find((c) => c.id === id);
  if (!found) throw new Error(`no line ${id} in ${report.checks.map((c) => c.id).join(', ')}`);
  return found;
}

/** The line `id`, asserted to have `status`, a detail and a fix that match (a string matches as a substring). */
export function expectLine(
  report: DoctorReport,
  id: string,
  status: CheckResult['status'],
  has: { detail?: string | RegExp; fix?: string | RegExp } = {},
): CheckResult {
  const found = line(report, id);
  expect({ id, status: found.status }).toEqual({ id, status });
  if (has.detail !== undefined) expect(found.detail).toMatch(has.detail);
  if (has.fix !== undefined) expect(found.fix).toMatch(has.fix);
  return found;
}

/** Each line's status, for comparing whole reports. */
export const statuses = (report: DoctorReport) => Object.fromEntries(report.checks.map((c) => [c.id, c.status]));

/** `runbooks doctor` as an API client holding only `permissions` (new credentials, returned too): a narrowed role. */
export async function doctorWithPermissions(
  sim: RunningSimulator,
  permissions: string[],
): Promise<{ report: DoctorReport; credentials: { clientId: string; clientSecret: string } }> {
  const control = new SimulatorControlClient(sim.baseUrl);
  const credentials = await control.call<{ clientId: string; clientSecret: string }>('POST', '/credentials', {
    permissions,
  });
  const env = readyEnv(sim, { BACKUP_CLIENT_ID: credentials.clientId, BACKUP_CLIENT_SECRET: credentials.clientSecret });
  return { report: await doctor(env), credentials };
}
