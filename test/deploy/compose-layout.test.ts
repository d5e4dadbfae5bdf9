// The compose stack as shipped, without a container engine: the workers and the simulator run natively, each with
// the environment docker-compose.yml gives it and in the file system the Dockerfile's image gives it (volumes empty),
// against a Temporal dev server registered by deploy/temporal/register.sh. A restore and a drill then run end to end.
// A folder the image lacks, or a variable compose forgets, fails here.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { closeHttpPools } from '../../api';
import { approvalGatedRestore, drDrill } from '../../runbooks/workflows';
import { SimulatorControlClient } from '../../simulator/control-client';
import { startSimulator } from '../../simulator/server';
import { APPROVAL, eventually, FAST_JOBS, waitingRequestId } from '../e2e/helpers';
import { startOwnDevServer, temporalCliPath } from '../helpers/temporal';
import { ensureWorkflowBundle } from '../worker/worker-process';
import { freePort } from '../../worker/dev-server';
import { layOut, namedMounts, parseCompose, rooted, runtimeImage, type ComposeService } from './image-layout';

const REPO = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(REPO, path), 'utf8');
// What the operator's shell gives compose: the one variable it refuses to start without.
const SHELL = { GRAFANA_ADMIN_PASSWORD: 'test-only-password' };
const compose = parseCompose(read('docker-compose.yml'), SHELL);
const image = runtimeImage(read('Dockerfile'));

function service(name: string): ComposeService {
  const found = compose.services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
}

interface Container {
  name: string;
  process: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
}

const containers: Container[] = [];
let dir: string;
let env: TestWorkflowEnvironment;
let volumes: Record<string, string>;
/** `service:port` → where it listens here. */
const network = new Map<string, string>();

/** A container's environment and arguments in this file system and on this network. */
function translate(root: string, value: string): string {
  let out = rooted(root, value);
  for (const [from, to] of network) out = out.split(from).join(to);
  return out;
}

/** Starts `argv` as compose would start `name`: image ENV, then compose's environment, under its own root. */
async function startContainer(name: string, argv: string[], listen: Record<string, string> = {}): Promise<Container> {
  const spec = service(name);
  const root = join(dir, `root-${name}-${containers.length}`);
  const mounts = namedMounts(spec, compose).map(({ volume, mount }) => {
    const volumeDir = volumes[volume];
    if (!volumeDir) throw new Error(`no volume ${volume}`);
    return { mount, dir: volumeDir };
  });
  await layOut(root, image, REPO, mounts);
  const environment: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: join(root, 'home', 'node'),
  };
  for (const [key, value] of Object.entries({ ...image.env, ...(spec.environment ?? {}), ...listen })) {
    environment[key] = translate(root, value);
  }
  const args = argv.slice(1).map((a) => translate(root, a));
  const child = spawn(process.execPath, args, { cwd: join(root, image.workdir), env: environment });
  const output: string[] = [];
  const collect = (chunk: Buffer) => output.push(...chunk.toString().split('\n').filter(Boolean));
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const container = { name, process: child, output, exited };
  containers.push(container);
  return container;
}

/** Resolves once a line matches; rejects with the container's output when it exits first or stays silent. */
async function lineOf(container: Container, pattern: RegExp, timeoutMs = 90_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null | undefined;
  void container.exited.then((code) => (exitCode = code));
  while (Date.now() < deadline) {
    const line = container.output.find((l) => pattern.test(l));
    if (line) return line;
    if (exitCode !== undefined) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const state = exitCode === undefined ? 'still running, without it' : `exited with ${String(exitCode)}`;
  throw new Error(`${container.name} ${state} (${pattern}):\n${container.output.join('\n')}`);
}

let control: SimulatorControlClient;
let workers: Container[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'compose-layout-'));
  volumes = {};
  for (const volume of Object.keys(compose.volumes ?? {})) {
    volumes[volume] = join(dir, 'volumes', volume);
    await mkdir(volumes[volume], { recursive: true });
  }
  // A server of its own: compose's script registers the `default` namespace that its worker uses, as on a user's.
  const [testEnv] = await Promise.all([startOwnDevServer(), ensureWorkflowBundle()]);
  env = testEnv;

  // The namespace and search attributes, by the script compose runs, with the Temporal CLI the tests use.
  const register = service('temporal-register');
  const cli = temporalCliPath();
  if (!cli) throw new Error('this test needs the Temporal CLI (npm run temporal)');
  await promisify(execFile)('sh', [join(REPO, 'deploy', 'temporal', 'register.sh')], {
    env: {
      ...process.env,
      ...register.environment,
      TEMPORAL_ADDRESS: env.address,
      PATH: `${dirname(cli)}${delimiter}${process.env.PATH ?? ''}`,
    },
  });
  network.set(register.environment?.TEMPORAL_ADDRESS ?? 'temporal:7233', env.address);

  const simulatorCommand = service('simulator').command ?? [];
  const portFlag = simulatorCommand.indexOf('--port');
  const simulatorPort = await freePort();
  network.set(`simulator:${simulatorCommand[portFlag + 1] ?? ''}`, `127.0.0.1:${simulatorPort}`);
  const simulatorArgs = simulatorCommand.map((a, i) =>
    i === portFlag + 1 ? String(simulatorPort) : a === '0.0.0.0' ? '127.0.0.1' : a,
  );
  await startContainer('simulator', simulatorArgs);
  control = new SimulatorControlClient(`http://127.0.0.1:${simulatorPort}`);
  await eventually('the simulator answers', () => control.healthy(), 30_000);
  await control.jobsConfig(FAST_JOBS);

  // Each replica listens on its own metrics port, as each container does on its own address.
  const metrics = service('worker').environment?.RUNBOOKS_METRICS_ADDRESS;
  workers = [];
  for (let i = 0; i < (compose.services.worker ? 2 : 0); i++) {
    const listen: Record<string, string> = metrics ? { RUNBOOKS_METRICS_ADDRESS: `127.0.0.1:${await freePort()}` } : {};
    workers.push(await startContainer('worker', image.cmd, listen));
  }
  await Promise.all(workers.map((w) => lineOf(w, /worker running/)));
  // Runs go to the deployment's current version: wait until a replica has made its build current.
  const deploymentName = service('worker').environment?.RUNBOOKS_DEPLOYMENT_NAME;
  if (deploymentName) {
    await eventually('a current version', async () => {
      const { workerDeploymentInfo } = await env.client.workflowService.describeWorkerDeployment({
        namespace: env.namespace ?? 'default',
        deploymentName,
      });
      return workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId || undefined;
    });
  }
}, 240_000);

afterAll(async () => {
  for (const c of containers) if (c.process.exitCode === null) c.process.kill('SIGTERM');
  const guard = setTimeout(() => {
    for (const c of containers) if (c.process.exitCode === null) c.process.kill('SIGKILL');
  }, 20_000);
  await Promise.all(containers.map((c) => c.exited));
  clearTimeout(guard);
  await closeHttpPools();
  await env?.teardown();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

const taskQueue = () => service('worker').environment?.RUNBOOKS_TASK_QUEUE ?? 'backup-runbooks';

/** The seeded simulator's IDs: compose's simulator and this twin are seeded alike. */
async function seeded() {
  const flags = (service('simulator').command ?? []).slice(3);
  const seedFlag = flags.indexOf('--seed');
  const sim = await startSimulator({
    port: 0,
    host: '127.0.0.1',
    ...(seedFlag >= 0 ? { seed: Number(flags[seedFlag + 1]) } : {}),
  });
  try {
    const state = sim.ctx.state;
    const snapshotted = (type: string) =>
      Object.values(state.snapshots).find((s) => state.resources[s.resourceId]?.resource.resourceType === type);
    const vault = Object.values(state.vaults).find((v) => v.name === 'backups-pa-east-1');
    const account = Object.values(state.restoreAccounts).find((a) => a.name === 'restore-pa');
    const bucket = snapshotted('PA_OBJECT_STORE');
    const vm = snapshotted('PA_VM');
    if (!vault || !account || !bucket || !vm)
      throw new Error('the seeded simulator lacks a vault, account or snapshot');
    return { vaultId: vault.id, restoreAccountId: account.id, bucket, vm };
  } finally {
    await sim.close();
  }
}

test('the two workers created what they write, on the shared volume and in their own data folders', async () => {
  const workerEnv = service('worker').environment ?? {};
  const credentials = workerEnv.BACKUP_CREDENTIALS_FILE;
  expect(credentials).toBeDefined();
  const shared = namedMounts(service('worker'), compose)[0];
  if (!credentials || !shared) throw new Error('compose gives the workers no credentials file or shared volume');
  const onVolume = join(volumes[shared.volume] ?? '', credentials.slice(shared.mount.length));
  expect(((await stat(onVolume)).mode & 0o777).toString(8)).toBe('600');
  expect(((await stat(dirname(onVolume))).mode & 0o777).toString(8)).toBe('700');
});

test('an approval-gated restore: the reviewer approves through the control API, a worker restores', async () => {
  const ids = await seeded();
  // In place of the standalone simulator's own policy (two reviewers): this check plays one.
  await control.clearPolicies();
  await control.addPolicy({ approvalWindowHours: 48, executionWindowHours: 24 });
  try {
    const handle = await env.client.workflow.start(approvalGatedRestore, {
      taskQueue: taskQueue(),
      workflowId: `compose-restore-${Date.now()}`,
      args: [
        {
          resourceId: ids.bucket.resourceId,
          snapshotId: ids.bucket.id,
          restoreAccountId: ids.restoreAccountId,
          kind: 'bucket',
          destination: { bucketA: { bucketName: 'restored-objects', prefix: 'compose/' } },
          comment: 'compose layout check',
        },
      ],
    });
    const requestId = await waitingRequestId(handle);
    await control.approve(requestId, APPROVAL);
    const result = await handle.result();
    expect(result.job.status).toBe('JOB_COMPLETED');
    expect(result.timings.approvedAt).toBeDefined();
  } finally {
    await control.clearPolicies();
  }
}, 120_000);

test('a drill passes and its report lands in the shared output folder', async () => {
  const ids = await seeded();
  const handle = await env.client.workflow.start(drDrill, {
    taskQueue: taskQueue(),
    workflowId: `drill-compose-layout-${Date.now()}`,
    args: [
      {
        name: 'compose-layout',
        resources: { ids: [ids.vm.resourceId] },
        vaultId: ids.vaultId,
        restoreAccountId: ids.restoreAccountId,
        destination: { bucketA: { bucketName: 'dr-drill-restores', prefix: 'drills/' } },
        targets: { rpoSeconds: 3 * 86400, rtoSeconds: 600 },
        retentionDays: 3,
      },
    ],
  });
  const result = await handle.result();
  expect(result.summary).toMatchObject({ total: 1, passed: 1, verdict: 'PASS' });
  // The report's path is the worker's view (under its root); the file is on the shared volume.
  const output = service('worker').environment?.RUNBOOKS_OUTPUT_DIR ?? '';
  const shared = namedMounts(service('worker'), compose).find((m) => output.startsWith(`${m.mount}/`));
  expect(shared).toBeDefined();
  const relative = result.report.json.slice(result.report.json.indexOf(output) + output.length);
  expect(existsSync(join(volumes[shared?.volume ?? ''] ?? '', output.slice(shared?.mount.length), relative))).toBe(
    true,
  );
}, 180_000);
