// `runbooks doctor` against the real simulator and a real Temporal dev server: every line green when all is ready,
// and each check failing on what it is there to catch. One dev server for the file; a fresh simulator per test,
// since some tests move its clock or change its state.
import { createServer, type Server, type Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDoctor } from '../../cli/doctor-command';
import { RUNBOOK_NAMES, RUNBOOKS } from '../../runbooks/registry';
import { DOCTOR_REPORT_VERSION, type DoctorReport } from '../../cli/doctor-report';
import { SEARCH_ATTRIBUTE_KEYS } from '../../contracts';
import { SimulatorControlClient } from '../../simulator/control-client';
import { ALL_PERMISSIONS } from '../../simulator/permissions';
import { buildSimulator } from '../../simulator/app';
import { EMBEDDED_CREDENTIALS_FILE, SIMULATOR_URL_FILE } from '../../runtime/stack-files';
import { runCliFromSourceAsync } from '../helpers/cli-from-source';
import {
  BARE_NAMESPACE,
  closeSimulators,
  DIALECTS,
  doctor,
  doctorWithPermissions,
  expectLine,
  line,
  MISTYPED_NAMESPACE,
  NO_CURRENT,
  readyEnv,
  simulator,
  startDoctorTemporal,
  statuses,
  stopDoctorTemporal,
} from './doctor-fixture';

beforeAll(startDoctorTemporal, 180_000);
afterAll(stopDoctorTemporal, 60_000);
afterEach(closeSimulators);

describe.each(DIALECTS)('the simulator speaking the %s dialect', (dialect) => {
  test('ready: every line is ok, nothing needs a fix, and the probes changed nothing', async () => {
    const sim = await simulator(dialect);
    const control = new SimulatorControlClient(sim.baseUrl);
    const before = await control.state();
    const accounts = JSON.stringify(sim.ctx.state.sourceAccounts);
    const report = await doctor(readyEnv(sim));
    // No job, action request or query started, no account touched, no secret rotated.
    expect((await control.state()).counts).toEqual(before.counts);
    expect(JSON.stringify(sim.ctx.state.sourceAccounts)).toBe(accounts);
    expect(sim.ctx.state.credentials[sim.clientId]?.clientSecret).toBe(sim.clientSecret);
    expect(report.checks.filter((c) => c.status !== 'ok')).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.checks.every((c) => c.fix === undefined)).toBe(true);
    expect(line(report, 'temporal.deployment').detail).toContain('current version build-1');
    expect(line(report, 'temporal.workers').detail).toMatch(/1 worker\(s\) of build-1/);
    expect(line(report, 'service.dialect').detail).toContain(
      `the service speaks the ${dialect} dialect (from the token answer)`,
    );
    expect(report.checks.map((c) => c.id)).toEqual([
      'service.config',
      'service.token',
      'service.clock',
      'service.dialect',
      'service.permissions',
      'runbook.approvalGatedRestore',
      'runbook.drDrill',
      'runbook.queryExport',
      'runbook.costExport',
      'runbook.rotateCredentials',
      'runbook.offboardSourceAccount',
      'runbook.postureReport',
      'runbook.cleanPoint',
      'runbook.recoveryPlan',
      'service.restore-accounts',
      'service.vaults',
      'temporal.connection',
      'temporal.namespace',
      'temporal.search-attributes',
      'temporal.deployment',
      'temporal.workers',
      'temporal.snapshot-limiter',
    ]);
  });

  test('a configured dialect the service does not speak fails with the setting that fits', async () => {
    const other = dialect === 'public' ? 'neutral' : 'public';
    const report = await doctor(readyEnv(await simulator(dialect), { BACKUP_SERVICE_DIALECT: other }));
    expect(line(report, 'service.dialect')).toEqual({
      id: 'service.dialect',
      check: 'dialect',
      status: 'fail',
      detail: `BACKUP_SERVICE_DIALECT=${other}, but the service speaks the ${dialect} dialect (from the token answer)`,
      fix: `set BACKUP_SERVICE_DIALECT=${dialect}, or auto to detect it`,
    });
  });

  test('credentials whose role lacks a permission fail the runbooks that always need it, and warn where optional', async () => {
    const sim = await simulator(dialect);
    const { report, credentials: limited } = await doctorWithPermissions(
      sim,
      ALL_PERMISSIONS.filter((p) => p !== 'files.restore' && p !== 'databases.query'),
    );
    expect(statuses(report)).toMatchObject({
      'service.permissions': 'ok',
      'runbook.drDrill': 'fail',
      'runbook.queryExport': 'fail',
      'runbook.approvalGatedRestore': 'warn',
      'runbook.costExport': 'ok',
      'runbook.postureReport': 'ok',
    });
    const drill = line(report, 'runbook.drDrill');
    expect(drill.detail).toContain('files.restore for restore-files (the default restoreKind): refused (403)');
    expect(drill.fix).toContain(`grant files.restore, databases.query to the role of API client ${limited.clientId}`);
    expect(line(report, 'runbook.approvalGatedRestore').detail).toContain(
      "files.restore for restore-files (with kind: 'files')",
    );
  });
});

test('a wrong secret fails the token line with its fix, skips what needs a token, and is never printed', async () => {
  const sim = await simulator();
  const secret = `wrong-${randomUUID()}`;
  const report = await doctor(readyEnv(sim, { BACKUP_CLIENT_SECRET: secret }));
  expectLine(report, 'service.token', 'fail', { detail: '404', fix: 'BACKUP_CLIENT_SECRET' });
  expect(line(report, 'runbook.drDrill').status).toBe('skip');
  expect(line(report, 'service.vaults').status).toBe('skip');
  expect(line(report, 'temporal.workers').status).toBe('ok');
  expect(report.ok).toBe(false);
  expect(JSON.stringify(report)).not.toContain(secret);
});

test('a service clock 10 s ahead warns, 2 minutes ahead fails', async () => {
  const sim = await simulator();
  const control = new SimulatorControlClient(sim.baseUrl);
  await control.advanceClock(10);
  expectLine(await doctor(readyEnv(sim)), 'service.clock', 'warn', {
    detail: /(9|10)\.\d s ahead of this machine/,
    fix: 'NTP',
  });
  await control.advanceClock(110);
  const report = await doctor(readyEnv(sim));
  expectLine(report, 'service.clock', 'fail', { detail: /1[12]\d\.\d s ahead/ });
  expect(report.ok).toBe(false);
});

test('credentials that may not list the permission catalogue warn, and the probes still decide', async () => {
  const sim = await simulator();
  const { report } = await doctorWithPermissions(sim, ['inventory.view', 'cost_explorer.view']);
  expect(statuses(report)).toMatchObject({
    'service.permissions': 'warn',
    'runbook.postureReport': 'ok',
    'runbook.costExport': 'ok',
    'runbook.rotateCredentials': 'fail',
    'runbook.offboardSourceAccount': 'fail',
  });
});

test('without a credentials file, rotateCredentials warns that it could not keep a new secret', async () => {
  const report = await doctor(readyEnv(await simulator(), { BACKUP_CREDENTIALS_FILE: undefined }));
  expectLine(report, 'runbook.rotateCredentials', 'warn', {
    detail: 'BACKUP_CREDENTIALS_FILE is not set',
    fix: 'set BACKUP_CREDENTIALS_FILE',
  });
  expect(report.ok).toBe(true);
});

test('a permission type the service does not list fails the runbooks that need it', async () => {
  // The simulator, with its catalogue answer short of databases.query (as a service whose permissions differ).
  const sim = buildSimulator({
    seed: 1,
    tokenTtlSeconds: 43_200,
    bootstrapClientId: 'doctor',
    bootstrapClientSecret: 'doctor-secret',
  });
  sim.app.addHook('onSend', async (req, _reply, payload) => {
    if (req.url !== '/v1/permissions' || typeof payload !== 'string') return payload;
    const body = JSON.parse(payload) as { permissions: { permissionType: string }[] };
    return JSON.stringify({ permissions: body.permissions.filter((p) => p.permissionType !== 'databases.query') });
  });
  await sim.app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const address = sim.app.server.address();
    const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const credentials = { clientId: 'doctor', clientSecret: 'doctor-secret' };
    const report = await doctor(readyEnv({ baseUrl, projectId: sim.ctx.state.projectId, ...credentials }));
    expectLine(report, 'service.permissions', 'fail', { detail: 'without databases.query' });
    expectLine(report, 'runbook.queryExport', 'fail', { detail: 'not a permission the service lists' });
    expect(line(report, 'runbook.costExport').status).toBe('ok');
  } finally {
    await sim.app.close();
  }
});

test('a restore account that is disconnected or locked fails when the runbooks name it, and none usable fails', async () => {
  const sim = await simulator();
  const accounts = Object.values(sim.ctx.state.restoreAccounts);
  const [first, second] = accounts.filter((a) => a.isRestoreAllowed);
  const locked = accounts.find((a) => !a.isRestoreAllowed);
  if (!first || !second || !locked) throw new Error('the seed has allowed and locked restore accounts');
  // The service API cannot disconnect a restore account: the simulator's state stands in for the console.
  first.status = 'DISCONNECTED';
  const named = await doctor(readyEnv(sim), { restoreAccounts: [first.id, locked.id, second.id] });
  const restore = line(named, 'service.restore-accounts');
  expect(restore.status).toBe('fail');
  expect(restore.detail).toContain(`${first.name} (${first.id}): status DISCONNECTED`);
  expect(restore.detail).toContain(`${locked.name} (${locked.id}): restores not allowed`);
  expect(restore.detail).not.toContain(second.name);
  expect(restore.fix).toContain('reconnect or allow restores into');

  const unknown = await doctor(readyEnv(sim), { restoreAccounts: ['no-such-account'] });
  expectLine(unknown, 'service.restore-accounts', 'fail', { detail: 'no-such-account: no such restore account' });

  for (const account of accounts) account.isRestoreAllowed = false;
  expectLine(await doctor(readyEnv(sim)), 'service.restore-accounts', 'fail', {
    detail: 'no restore account is connected and allowed',
  });
});

test('a region with resources and no vault fails, naming the region', async () => {
  const sim = await simulator();
  const region = Object.values(sim.ctx.state.resources)[0]?.resource.region ?? '';
  for (const [id, vault] of Object.entries(sim.ctx.state.vaults))
    if (vault.region === region) delete sim.ctx.state.vaults[id];
  const vaults = line(await doctor(readyEnv(sim)), 'service.vaults');
  expect(vaults.status).toBe('fail');
  expect(vaults.detail).toMatch(new RegExp(`^no vault in ${region} \\(\\d+ resources\\)`));
  expect(vaults.fix).toContain(`create a vault in ${region}`);
});

test('a namespace that does not exist fails, and the lines that need it are skipped', async () => {
  const report = await doctor(readyEnv(await simulator(), { TEMPORAL_NAMESPACE: 'doctor-nowhere' }));
  expectLine(report, 'temporal.namespace', 'fail', {
    detail: 'namespace doctor-nowhere does not exist',
    fix: 'temporal operator namespace create --namespace doctor-nowhere',
  });
  expect(statuses(report)).toMatchObject({ 'temporal.search-attributes': 'skip', 'temporal.workers': 'skip' });
});

test('search attributes that are missing or of the wrong type fail with the commands that fix them', async () => {
  const sim = await simulator();
  const bare = line(await doctor(readyEnv(sim, { TEMPORAL_NAMESPACE: BARE_NAMESPACE })), 'temporal.search-attributes');
  expect(bare.status).toBe('fail');
  for (const key of SEARCH_ATTRIBUTE_KEYS) {
    expect(bare.detail).toContain(`${key.name} is not registered`);
    expect(bare.fix).toContain(`--namespace ${BARE_NAMESPACE} --name ${key.name} --type Keyword`);
  }
  const mistyped = await doctor(readyEnv(sim, { TEMPORAL_NAMESPACE: MISTYPED_NAMESPACE }));
  expect(line(mistyped, 'temporal.search-attributes')).toMatchObject({
    status: 'fail',
    detail: 'RunbookKind is registered as TEXT, the runbooks set a KEYWORD',
  });
});

test('a deployment without a current version fails; one never registered warns; unversioned without workers warns', async () => {
  const sim = await simulator();
  const idle = await doctor(
    readyEnv(sim, { RUNBOOKS_DEPLOYMENT_NAME: NO_CURRENT.deploymentName, RUNBOOKS_TASK_QUEUE: NO_CURRENT.taskQueue }),
  );
  expectLine(idle, 'temporal.deployment', 'fail', {
    detail: 'has no current version (versions: build-9)',
    fix: 'runbooks deployment promote build-9 (RUNBOOKS_DEPLOYMENT_NAME=' + NO_CURRENT.deploymentName + ')',
  });
  const unknown = await doctor(readyEnv(sim, { RUNBOOKS_DEPLOYMENT_NAME: 'doctor-never-started' }));
  expect(statuses(unknown)).toMatchObject({ 'temporal.deployment': 'warn', 'temporal.workers': 'skip' });
  const unversioned = await doctor(
    readyEnv(sim, { RUNBOOKS_DEPLOYMENT_NAME: undefined, RUNBOOKS_TASK_QUEUE: `nobody-${randomUUID()}` }),
  );
  expect(statuses(unversioned)).toMatchObject({ 'temporal.deployment': 'ok', 'temporal.workers': 'warn' });
  expect(unversioned.ok).toBe(true);
});

describe('unreachable: each line fails within its time instead of hanging', () => {
  let silent: Server;
  const sockets = new Set<Socket>();
  let port = 0;
  beforeAll(async () => {
    // Accepts connections and never answers.
    silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    port = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  test('a service that never answers and a Temporal that is not there', async () => {
    const started = Date.now();
    const report = await runDoctor(
      { timeoutMs: 1_500 },
      {
        ...readyEnv(await simulator()),
        BACKUP_SERVICE_URL: `http://127.0.0.1:${port}`,
        TEMPORAL_ADDRESS: `127.0.0.1:${port}`,
      },
    );
    expect(Date.now() - started).toBeLessThan(6_000);
    expectLine(report, 'service.token', 'fail', { detail: /timed out|no answer/ });
    expectLine(report, 'temporal.connection', 'fail', { detail: `cannot reach 127.0.0.1:${port}` });
    expect(report.checks.filter((c) => c.status === 'fail').map((c) => c.id)).toEqual([
      'service.token',
      'temporal.connection',
    ]);
  });
});

/** No BACKUP_* setting at all: the worker would start its own simulator. */
const NO_SERVICE = {
  BACKUP_SERVICE_URL: undefined,
  BACKUP_PROJECT_ID: undefined,
  BACKUP_CLIENT_ID: undefined,
  BACKUP_CLIENT_SECRET: undefined,
  BACKUP_CREDENTIALS_FILE: undefined,
};

test('without BACKUP_SERVICE_URL it checks the simulator of a running worker, or says how to configure one', async () => {
  const sim = await simulator();
  const dataDir = await mkdtemp(join(tmpdir(), 'doctor-'));
  try {
    const noWorker = await doctor(readyEnv(sim, { ...NO_SERVICE, RUNBOOKS_DATA_DIR: dataDir }));
    expectLine(noWorker, 'service.config', 'fail', { fix: '--service-url' });
    await writeFile(join(dataDir, SIMULATOR_URL_FILE), `${sim.baseUrl}\n`);
    await writeFile(
      join(dataDir, EMBEDDED_CREDENTIALS_FILE),
      JSON.stringify({ clientId: sim.clientId, clientSecret: sim.clientSecret }),
      { mode: 0o600 },
    );
    const embedded = await doctor(readyEnv(sim, { ...NO_SERVICE, RUNBOOKS_DATA_DIR: dataDir }));
    expect(embedded.checks.filter((c) => c.status !== 'ok')).toEqual([]);
    expect(embedded.service).toMatchObject({ url: sim.baseUrl, projectId: sim.projectId });
    const flagged = await doctor(readyEnv(sim, NO_SERVICE), { serviceUrl: sim.baseUrl });
    expect(flagged.ok).toBe(true);
    expect(flagged.service?.source).toBe('--service-url');
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test("docs/getting-started.md's table of permissions by runbook is the one the doctor checks", async () => {
  const whole = await readFile(join(__dirname, '..', '..', 'docs', 'getting-started.md'), 'utf8');
  const page = whole.slice(whole.indexOf('**Permissions by runbook.**'));
  for (const runbook of RUNBOOK_NAMES) {
    const row = new RegExp(`^\\| \`${runbook}\` +\\|(.*)\\|$`, 'm').exec(page)?.[1] ?? '';
    const documented = [...row.matchAll(/`([a-z_]+\.[a-z_]+)`/g)].map((m) => m[1]).sort();
    expect({ runbook, needs: documented }).toEqual({
      runbook,
      needs: RUNBOOKS[runbook].permissions.map((n) => n.permission).sort(),
    });
  }
});

describe('the command', () => {
  test('--json prints the documented shape and exits 0 when ready; a failure exits 1 with its fix in the table', async () => {
    const sim = await simulator();
    const ready = await runCliFromSourceAsync(['doctor', '--json'], readyEnv(sim));
    expect(ready.status).toBe(0);
    const report = JSON.parse(ready.stdout) as DoctorReport;
    expect(report).toMatchObject({ version: DOCTOR_REPORT_VERSION, ok: true, counts: { fail: 0, warn: 0, skip: 0 } });
    expect(report.service).toEqual({ url: sim.baseUrl, projectId: sim.projectId, source: 'BACKUP_SERVICE_URL' });
    for (const check of report.checks) expect(Object.keys(check).sort()).toEqual(['check', 'detail', 'id', 'status']);

    const secret = `wrong-${randomUUID()}`;
    const failed = await runCliFromSourceAsync(['doctor'], readyEnv(sim, { BACKUP_CLIENT_SECRET: secret }));
    expect(failed.status).toBe(1);
    expect(failed.stdout).toMatch(/^service token +FAIL +POST \/v1\/token refused/m);
    expect(failed.stdout).toMatch(/^ +fix: check BACKUP_CLIENT_ID and BACKUP_CLIENT_SECRET/m);
    expect(failed.stdout).toMatch(/not ready: \d+ ok, 0 warning\(s\), 1 failure\(s\), 14 not checked$/m);
    expect(failed.stdout + failed.stderr).not.toContain(secret);
  });
});
