// The worker's health endpoint (worker/health-server.ts), which the Helm chart's probes ask: first the server with the
// real heartbeat writer, then the built worker process, starting, running against a dev server and stopping.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { State } from '@temporalio/worker';
import { loadConfig } from '../../runtime/config';
import { freePort } from '../../worker/dev-server';
import { HEALTH_PATHS, startHealthServer, type HealthServer } from '../../worker/health-server';
import { HEARTBEAT_FILE, HEARTBEAT_MAX_AGE_MS, startHeartbeat } from '../../worker/heartbeat';
import { testEnvForSuite } from '../helpers/temporal';
import { ensureWorkflowBundle, lineOf, startWorkerProcess, type WorkerProcess } from './worker-process';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'health-server-'));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Probe {
  code: number;
  body: { status: string; reason?: string; state?: string };
}

async function probe(port: number, path: string, method = 'GET'): Promise<Probe> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method });
  return { code: res.status, body: (await res.json()) as Probe['body'] };
}

/** Asks until the answer has `code`: a worker reaches its states in its own time, never by a clock of ours. */
async function probeUntil(port: number, path: string, code: number, worker?: WorkerProcess): Promise<Probe> {
  let exit: number | string | undefined;
  void worker?.exited.then((c) => (exit = c));
  for (;;) {
    const answer = await probe(port, path).catch(() => undefined);
    if (answer?.code === code) return answer;
    if (exit !== undefined) throw new Error(`the worker exited (${exit}):\n${worker?.stderr.join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the health server with the real heartbeat', () => {
  let server: HealthServer;
  let state: State | undefined;
  let stopHeartbeat: (() => void) | undefined;
  const heartbeatFile = () => join(dir, 'unit', HEARTBEAT_FILE);

  beforeAll(async () => {
    server = await startHealthServer({
      address: '127.0.0.1:0',
      heartbeatFile: heartbeatFile(),
      workerState: () => state,
    });
  });
  afterAll(async () => {
    stopHeartbeat?.();
    await server?.close();
  });

  test('before the worker exists both probes say starting (503)', async () => {
    expect(await probe(server.port, HEALTH_PATHS.live)).toEqual({ code: 503, body: { status: 'starting' } });
    expect(await probe(server.port, HEALTH_PATHS.ready)).toEqual({ code: 503, body: { status: 'starting' } });
  });

  test('a polling worker with a fresh heartbeat is live and ready', async () => {
    state = 'RUNNING';
    stopHeartbeat = startHeartbeat(heartbeatFile(), () => state === 'RUNNING');
    expect(await probeUntil(server.port, HEALTH_PATHS.live, 200)).toEqual({
      code: 200,
      body: { status: 'ok', state: 'RUNNING' },
    });
    expect(await probe(server.port, HEALTH_PATHS.ready)).toEqual({
      code: 200,
      body: { status: 'ok', state: 'RUNNING' },
    });
  });

  test('a heartbeat older than three beats makes it not live, naming the age', async () => {
    stopHeartbeat?.();
    const old = new Date(Date.now() - HEARTBEAT_MAX_AGE_MS - 5_000);
    await utimes(heartbeatFile(), old, old);
    const answer = await probe(server.port, HEALTH_PATHS.live);
    expect(answer.code).toBe(503);
    expect(answer.body).toMatchObject({ status: 'unhealthy', state: 'RUNNING' });
    expect(answer.body.reason).toMatch(/^the heartbeat at .*worker-heartbeat is \d+ s old$/);
  });

  test('no heartbeat file: not live', async () => {
    await rm(heartbeatFile());
    const answer = await probe(server.port, HEALTH_PATHS.live);
    expect(answer).toMatchObject({ code: 503, body: { status: 'unhealthy' } });
    expect(answer.body.reason).toContain('no heartbeat at');
  });

  test('a draining worker is not ready; other paths and methods are refused', async () => {
    state = 'DRAINING';
    expect(await probe(server.port, HEALTH_PATHS.ready)).toEqual({
      code: 503,
      body: { status: 'not-ready', reason: 'the worker is draining', state: 'DRAINING' },
    });
    expect((await probe(server.port, '/')).code).toBe(404);
    expect((await probe(server.port, HEALTH_PATHS.ready, 'POST')).code).toBe(405);
    const head = await fetch(`http://127.0.0.1:${server.port}${HEALTH_PATHS.ready}`, { method: 'HEAD' });
    expect(head.status).toBe(503);
  });
});

describe('the built worker with RUNBOOKS_HEALTH_ADDRESS', () => {
  let bundle: string;
  beforeAll(async () => {
    bundle = await ensureWorkflowBundle();
  }, 120_000);

  const workerEnv = (root: string, temporalAddress: string, healthPort: number): Record<string, string> => ({
    TEMPORAL_ADDRESS: temporalAddress,
    RUNBOOKS_TASK_QUEUE: `health-${randomUUID()}`,
    BACKUP_SERVICE_URL: 'http://127.0.0.1:9',
    BACKUP_PROJECT_ID: 'health-test',
    BACKUP_CLIENT_ID: 'health-client',
    BACKUP_CLIENT_SECRET: 'health-secret',
    BACKUP_CREDENTIALS_FILE: join(root, 'volume', 'credentials.json'),
    RUNBOOKS_DATA_DIR: join(root, 'data'),
    RUNBOOKS_OUTPUT_DIR: join(root, 'volume', 'output'),
    RUNBOOKS_WORKFLOW_BUNDLE: bundle,
    RUNBOOKS_HEALTH_ADDRESS: `127.0.0.1:${healthPort}`,
  });

  test('the variable is read and checked as host:port', () => {
    expect(loadConfig({ RUNBOOKS_HEALTH_ADDRESS: '0.0.0.0:8080' }).healthAddress).toBe('0.0.0.0:8080');
    expect(() => loadConfig({ RUNBOOKS_HEALTH_ADDRESS: '8080' })).toThrow(/RUNBOOKS_HEALTH_ADDRESS: must be host:port/);
  });

  test('while it retries an unreachable Temporal it answers, starting (503), and SIGTERM still stops it', async () => {
    const port = await freePort();
    const worker = startWorkerProcess({
      ...workerEnv(join(dir, 'starting'), `127.0.0.1:${await freePort()}`, port),
      RUNBOOKS_TEMPORAL_CONNECT_TIMEOUT_MS: '600000',
    });
    await lineOf(worker, /cannot reach Temporal yet; retrying/);
    expect(await probe(port, HEALTH_PATHS.ready)).toEqual({ code: 503, body: { status: 'starting' } });
    expect(await probe(port, HEALTH_PATHS.live)).toEqual({ code: 503, body: { status: 'starting' } });
    worker.process.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  });

  test('a port it cannot take: exit code 2 and one line naming the variable', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const worker = startWorkerProcess(workerEnv(join(dir, 'taken'), `127.0.0.1:${await freePort()}`, port));
      expect(await worker.exited).toBe(2);
      expect(worker.stderr).toEqual([
        `worker cannot start: RUNBOOKS_HEALTH_ADDRESS: cannot listen on 127.0.0.1:${port} (EADDRINUSE) (see .env.example)`,
      ]);
    } finally {
      taken.close();
    }
  });

  describe('with Temporal up', () => {
    const env = testEnvForSuite();

    test('polling, it is ready and live; after SIGTERM it has stopped and exits 0', async () => {
      const port = await freePort();
      const worker = startWorkerProcess(workerEnv(join(dir, 'running'), env().address, port));
      expect(await probeUntil(port, HEALTH_PATHS.ready, 200, worker)).toEqual({
        code: 200,
        body: { status: 'ok', state: 'RUNNING' },
      });
      expect(await probeUntil(port, HEALTH_PATHS.live, 200, worker)).toEqual({
        code: 200,
        body: { status: 'ok', state: 'RUNNING' },
      });
      worker.process.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
      await expect(probe(port, HEALTH_PATHS.ready)).rejects.toThrow();
    }, 90_000);
  });
});
