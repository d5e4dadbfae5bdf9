// The built worker starts and stops like a service: it creates the folders it writes to, a fatal start-up error is
// one line and a non-zero exit, an unreachable Temporal is retried for a bounded time, and SIGTERM stops it at once
// wherever it is. Each case starts `node dist/worker/main.js` as a process.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { chmod, chown, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testEnvForSuite } from '../helpers/temporal';
import { ensureWorkflowBundle, lineOf, startWorkerProcess } from './worker-process';
import { freePort } from '../../worker/dev-server';

let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'worker-startup-'));
  bundle = await ensureWorkflowBundle();
}, 120_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A remote configuration whose folders are all under `root`. */
function remoteEnv(root: string, temporalAddress: string): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: temporalAddress,
    RUNBOOKS_TASK_QUEUE: `startup-${randomUUID()}`,
    BACKUP_SERVICE_URL: 'http://127.0.0.1:9',
    BACKUP_PROJECT_ID: 'startup-test',
    BACKUP_CLIENT_ID: 'startup-client',
    BACKUP_CLIENT_SECRET: 'startup-secret',
    BACKUP_CREDENTIALS_FILE: join(root, 'volume', 'credentials', 'credentials.json'),
    RUNBOOKS_DATA_DIR: join(root, 'home', '.runbooks'),
    RUNBOOKS_OUTPUT_DIR: join(root, 'volume', 'output'),
    RUNBOOKS_WORKFLOW_BUNDLE: bundle,
  };
}

const mode = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

describe('with Temporal up', () => {
  const env = testEnvForSuite();

  test('creates the folders of a fresh volume (0700), runs, and stops on SIGTERM with exit code 0', async () => {
    const root = join(dir, 'fresh');
    const worker = startWorkerProcess(remoteEnv(root, env().address));
    await lineOf(worker, /"msg":"worker running"/);
    expect(await mode(join(root, 'volume', 'credentials'))).toBe('700');
    expect(await mode(join(root, 'volume', 'credentials', 'credentials.json'))).toBe('600');
    expect(await mode(join(root, 'volume', 'output'))).toBe('700');
    expect(await mode(join(root, 'home', '.runbooks'))).toBe('700');

    worker.process.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(worker.stdout.join('\n')).toContain('"msg":"stopped"');
    expect(worker.stderr).toEqual([]);
  }, 90_000);

  test('an evidence key in a folder it cannot write (a mounted secret): it runs, and keeps no key history', async () => {
    const root = join(dir, 'secret-key');
    const keys = join(root, 'keys');
    await mkdir(keys, { recursive: true });
    const key = join(keys, 'evidence-signing-key.pem');
    const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    await writeFile(key, pem, { mode: 0o600 });
    // As root, permissions bind only another user: the worker runs as nobody, which owns the key but not its folder.
    const asRoot = process.getuid?.() === 0;
    const user = asRoot ? { uid: 65_534, gid: 65_534 } : {};
    if (asRoot) {
      await chmod(dir, 0o755);
      await chmod(root, 0o777);
      await chown(key, 65_534, 65_534);
    }
    await chmod(keys, 0o555);
    const worker = startWorkerProcess(
      { ...remoteEnv(root, env().address), RUNBOOKS_EVIDENCE_KEY_FILE: key },
      60_000,
      user,
    );
    await lineOf(worker, /"msg":"worker running"/);
    worker.process.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(await readdir(keys)).toEqual(['evidence-signing-key.pem']);
  }, 90_000);
});

test('a folder that cannot be created: exit code 2 and one line naming the variable', async () => {
  const root = join(dir, 'unwritable');
  await writeFile(join(dir, 'a-file'), 'not a folder\n');
  const worker = startWorkerProcess({
    ...remoteEnv(root, `127.0.0.1:${await freePort()}`),
    RUNBOOKS_OUTPUT_DIR: join(dir, 'a-file', 'output'),
  });
  expect(await worker.exited).toBe(2);
  expect(worker.stderr).toHaveLength(1);
  expect(worker.stderr[0]).toMatch(/^worker cannot start: RUNBOOKS_OUTPUT_DIR: .*a-file\/output \(ENOTDIR\)/);
});

test('Temporal down: one line per attempt, then exit code 1 and one line naming the address and the bound', async () => {
  const address = `127.0.0.1:${await freePort()}`;
  const worker = startWorkerProcess({
    ...remoteEnv(join(dir, 'down'), address),
    RUNBOOKS_TEMPORAL_CONNECT_TIMEOUT_MS: '3000',
  });
  expect(await worker.exited).toBe(1);
  const attempts = worker.stdout.filter((l) => l.includes('"msg":"cannot reach Temporal yet; retrying"'));
  expect(attempts.length).toBeGreaterThanOrEqual(2);
  expect(attempts.map((l) => (JSON.parse(l) as { attempt: number }).attempt)).toEqual(attempts.map((_, i) => i + 1));
  expect(worker.stderr).toHaveLength(1);
  expect(worker.stderr[0]).toContain(`worker cannot start: cannot reach Temporal at ${address} (TEMPORAL_ADDRESS)`);
  expect(worker.stderr[0]).toContain('RUNBOOKS_TEMPORAL_CONNECT_TIMEOUT_MS');
});

test('SIGTERM while it retries the connection: it stops at once, with exit code 0', async () => {
  const worker = startWorkerProcess({
    ...remoteEnv(join(dir, 'retrying'), `127.0.0.1:${await freePort()}`),
    RUNBOOKS_TEMPORAL_CONNECT_TIMEOUT_MS: '600000',
  });
  await lineOf(worker, /cannot reach Temporal yet; retrying/);
  worker.process.kill('SIGTERM');
  expect(await worker.exited).toBe(0);
  expect(worker.stdout.join('\n')).toContain('stopped before start-up completed');
  expect(worker.stdout.join('\n')).not.toContain('worker running');
});
