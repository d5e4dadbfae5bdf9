// `runbooks serve` refuses, before it connects to anything (TEMPORAL_ADDRESS points nowhere), to listen off localhost
// without a token or a proxy, and refuses a token file that is short or readable by others. Exit code 2 (usage). A
// port in use is refused, saying how to pick another. Without Temporal it starts all the same: the history pages are
// served, the Runs and Approvals pages say Temporal is unreachable (503).
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { request } from 'undici';
import type { Client } from '@temporalio/client';
import { missingSearchAttribute, reconnectingData, TemporalUnavailable } from '../../console/data';
import { consoleTemporal, startConsole } from '../../console/serve-command';
import { runCliFromSourceAsync, spawnCliFromSource } from '../helpers/cli-from-source';

const env = { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1', RUNBOOKS_ALLOW_SHARED_KEY_FILES: '' };
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'console-serve-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function tokenFile(name: string, text: string, mode: number): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  await chmod(path, mode);
  return path;
}

test('off localhost without a token or --behind-proxy: refused, naming both ways out', async () => {
  for (const [args, extra] of [
    [['serve', '--host', '0.0.0.0'], {}],
    [['serve'], { RUNBOOKS_CONSOLE_HOST: '0.0.0.0' }],
  ] as const) {
    const result = await runCliFromSourceAsync([...args], { ...env, ...extra });
    expect({ args, status: result.status }).toEqual({ args, status: 2 });
    expect(result.stderr).toMatch(/would listen on 0\.0\.0\.0 with no token/);
    expect(result.stderr).toContain('--behind-proxy');
    expect(result.stderr).not.toMatch(/cannot reach Temporal/);
  }
});

test('a token file that is short, or readable by others, is refused', async () => {
  const short = await tokenFile('short', 'too-short\n', 0o600);
  const shared = await tokenFile('shared', 'a-console-token-of-32-characters\n', 0o644);
  const tooShort = await runCliFromSourceAsync(['serve', '--token-file', short], env);
  expect(tooShort.status).toBe(2);
  expect(tooShort.stderr).toContain('under 16 characters');
  const readable = await runCliFromSourceAsync(['serve', '--host', '0.0.0.0'], {
    ...env,
    RUNBOOKS_CONSOLE_TOKEN_FILE: shared,
  });
  expect(readable.status).toBe(2);
  expect(readable.stderr).toContain('RUNBOOKS_CONSOLE_TOKEN_FILE');
  expect(readable.stderr).not.toContain('a-console-token');
});

test('with a good token off localhost it goes on past the token to Temporal', async () => {
  const good = await tokenFile('good', 'a-console-token-of-32-characters\n', 0o600);
  // Taken on purpose: serve stops at the port, after the token and Temporal (unreachable, which it says and goes on).
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '0.0.0.0', resolve));
  const { port } = taken.address() as AddressInfo;
  try {
    const result = await runCliFromSourceAsync(
      ['serve', '--host', '0.0.0.0', '--port', String(port), '--token-file', good, '--dir', dir],
      env,
    );
    expect(result.stderr).toMatch(/Temporal is unreachable at 127\.0\.0\.1:1/);
    expect(result.stderr).toContain(`port ${port} is in use`);
  } finally {
    taken.close();
  }
});

test('without Temporal, serve starts: the history pages are served, Runs and Approvals say it is unreachable', async () => {
  const child = spawnCliFromSource(['serve', '--port', '0', '--dir', dir], env);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const at = /console at (http:\/\/\S+) /.exec(stdout)?.[1];
      if (at) resolve(at);
    });
    child.on('exit', (code) => reject(new Error(`serve exited (${code}): ${stderr}`)));
  });
  try {
    expect(stderr).toContain('Temporal is unreachable at 127.0.0.1:1');
    const runs = await request(`${url}/runs`);
    expect(runs.statusCode).toBe(503);
    expect(await runs.body.text()).toContain('Temporal is unreachable at 127.0.0.1:1');
    const drills = await request(`${url}/drills`);
    expect(drills.statusCode).toBe(200);
    await drills.body.dump();
  } finally {
    child.kill('SIGTERM');
  }
});

test('a port in use: refused, saying how to pick another', async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const { port } = taken.address() as AddressInfo;
  try {
    const result = await runCliFromSourceAsync(['serve', '--port', String(port), '--dir', dir], env);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(
      `port ${port} is in use on 127.0.0.1: pass --port <n> or set RUNBOOKS_CONSOLE_PORT`,
    );
  } finally {
    taken.close();
  }
});

test('consoleTemporal with Temporal unreachable: the Runs and Approvals pages are 503 and name the address', async () => {
  const temporal = await consoleTemporal(env, 60_000);
  expect(temporal.connected).toBe(false);
  const running = await startConsole({ data: temporal.data, outputDir: dir, namespace: temporal.namespace, port: 0 });
  try {
    for (const path of ['/runs', '/approvals']) {
      const res = await request(`${running.url}${path}`);
      expect(res.statusCode).toBe(503);
      const body = await res.body.text();
      expect(body).toContain('Temporal is unreachable at 127.0.0.1:1');
      expect(body).toContain('The Drills, Coverage, Plans, Posture and Exports pages read the output folder');
    }
    for (const path of ['/drills', '/plans', '/posture', '/exports']) {
      const res = await request(`${running.url}${path}`);
      expect(res.statusCode).toBe(200);
      await res.body.dump();
    }
  } finally {
    await running.close();
    await temporal.close();
  }
});

test('a listing refused for a missing search attribute names it and the command that registers it', () => {
  const refused = new Error(
    '3 INVALID_ARGUMENT: invalid query: unable to convert filter expression: unable to convert left side of "ApprovalStatus = \'PENDING_APPROVAL\'": invalid search attribute: ApprovalStatus',
  );
  const mapped = missingSearchAttribute(refused, 'payments');
  expect(mapped?.statusCode).toBe(503);
  expect(mapped?.message).toContain('has no search attribute ApprovalStatus');
  expect(mapped?.message).toContain(
    'temporal operator search-attribute create --namespace payments --name ApprovalStatus --type Keyword',
  );
  expect(
    missingSearchAttribute(new Error('Search attribute RunbookKind is not defined'), 'default')?.message,
  ).toContain('--name RunbookKind --type Keyword');
  expect(missingSearchAttribute(new Error('deadline exceeded'), 'default')).toBeUndefined();
  expect(missingSearchAttribute(new Error('invalid search attribute: Other'), 'default')).toBeUndefined();
});

test('once Temporal answers, the Runs page reads it again with no restart (a retry at most every retryMs)', async () => {
  let now = 0;
  let up = false;
  let attempts = 0;
  // A client that lists no run, enough for the Runs page.
  const client = {
    options: { namespace: 'default' },
    workflow: { list: async function* () {} },
  } as unknown as Client;
  const connect = async () => {
    attempts += 1;
    if (!up) throw new Error('connection refused');
    return { client, namespace: 'default', close: async () => undefined };
  };
  const data = reconnectingData(connect, '127.0.0.1:1', 'connection refused', 5_000, () => now);
  await expect(data.runs(10)).rejects.toBeInstanceOf(TemporalUnavailable);
  expect(attempts).toBe(0);
  up = true;
  now += 4_999;
  await expect(data.runs(10)).rejects.toThrow('Temporal is unreachable at 127.0.0.1:1 (connection refused)');
  now += 1;
  await expect(data.runs(10)).resolves.toEqual([]);
  expect(attempts).toBe(1);
  await data.close();
});
