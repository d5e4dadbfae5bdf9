// The built worker and CLI, configured with every kind of secret they hold, are made to log lines that would carry
// those secrets: a service that echoes every secret it knows in its error answers. None reaches stdout or stderr.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { SEARCH_ATTRIBUTE_KEYS } from '../../contracts';
import { startTestEnv } from '../helpers/temporal';

const ROOT = resolve(__dirname, '../..');
const WORKER = join(ROOT, 'dist/worker/main.js');
const CLI = join(ROOT, 'dist/cli/main.js');

const unique = (what: string) => `${what}-${randomBytes(9).toString('hex')}`;
const codecKey = randomBytes(32).toString('base64');
// A client key for TLS, which only the CLI can be given here (the dev server speaks plain text).
const tlsKey = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const tlsKeyLine = tlsKey.split('\n')[1] ?? '';
const SECRETS = {
  clientSecret: unique('client-secret'),
  fileSecret: unique('file-secret'),
  pendingToken: unique('pending-token'),
  issuedToken: unique('issued-token'),
  temporalApiKey: unique('temporal-api-key'),
  grpcToken: unique('grpc-token'),
  codecKey,
  webhookSecret: unique('webhook-secret'),
  webhookPathToken: unique('hook'),
};

/** Every secret as text, bare and in the shapes logs carry them: `api_key=`, `"apiKey":`, a bearer header, PEM. */
function echo(authorization: string | undefined, webhookUrl: string): string {
  const all = Object.values(SECRETS);
  return [
    `you sent authorization ${authorization ?? ''}`,
    `known: ${all.join(' ')}`,
    `api_key=${SECRETS.temporalApiKey}&x=1`,
    `{"apiKey":"${SECRETS.temporalApiKey}"}`,
    `webhook ${webhookUrl}`,
    `a key: ${tlsKey}`,
  ].join('\n');
}

let env: TestWorkflowEnvironment | undefined;
let service: Server | undefined;
let serviceUrl = '';
let dir = '';
let worker: ChildProcess | undefined;
let workerOutput = '';
const requests: string[] = [];

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

beforeAll(async () => {
  for (const built of [WORKER, CLI]) if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build`);
  dir = await mkdtemp(join(tmpdir(), 'secrets-in-logs-'));
  env = await startTestEnv({ server: { searchAttributes: SEARCH_ATTRIBUTE_KEYS } });
  // The service: issues a token, then answers every call (and the webhook) with an echo of every secret.
  service = createServer((req, res) => {
    void body(req).then(() => {
      requests.push(`${req.method} ${req.url}`);
      res.setHeader('content-type', 'application/json');
      if (req.url === '/v1/token') {
        res.end(JSON.stringify({ accessToken: SECRETS.issuedToken, expirationSeconds: 3600 }));
        return;
      }
      res.statusCode = 400;
      res.end(JSON.stringify({ error: echo(req.headers.authorization, webhookUrl()) }));
    });
  });
  await new Promise<void>((done) => service?.listen(0, '127.0.0.1', done));
  serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  worker?.kill('SIGKILL');
  await new Promise<void>((done) => (service ? service.close(() => done()) : done()));
  await env?.teardown();
  await rm(dir, { recursive: true, force: true });
}, 60_000);

const webhookUrl = () => `${serviceUrl}/hooks/${SECRETS.webhookPathToken}`;
const taskQueue = `secrets-${randomUUID()}`;

/** The environment of both the worker and the CLI: each secret a variable, or in the credentials file. */
function environment(): Record<string, string> {
  const { PATH, HOME } = process.env;
  return {
    ...(PATH ? { PATH } : {}),
    ...(HOME ? { HOME } : {}),
    TEMPORAL_ADDRESS: env?.address ?? '',
    TEMPORAL_NAMESPACE: env?.namespace ?? 'default',
    TEMPORAL_API_KEY: SECRETS.temporalApiKey,
    // The dev server speaks plain text; an API key would otherwise turn TLS on.
    TEMPORAL_TLS: 'false',
    TEMPORAL_GRPC_META_X_AUTH_TOKEN: SECRETS.grpcToken,
    RUNBOOKS_TASK_QUEUE: taskQueue,
    BACKUP_SERVICE_URL: serviceUrl,
    BACKUP_PROJECT_ID: 'project-1',
    BACKUP_CLIENT_ID: 'client-1',
    BACKUP_CLIENT_SECRET: SECRETS.clientSecret,
    BACKUP_CREDENTIALS_FILE: join(dir, 'credentials.json'),
    RUNBOOKS_CODEC_KEY: `k1:${SECRETS.codecKey}`,
    RUNBOOKS_WEBHOOK_URL: webhookUrl(),
    RUNBOOKS_WEBHOOK_SECRET: SECRETS.webhookSecret,
    RUNBOOKS_DATA_DIR: join(dir, 'data'),
    RUNBOOKS_OUTPUT_DIR: join(dir, 'output'),
    LOG_LEVEL: 'debug',
  };
}

function leaked(output: string): string[] {
  return Object.entries(SECRETS).flatMap(([name, value]) => (output.includes(value) ? [name] : []));
}

test('the worker and the CLI log the failure of a run whose service echoes every secret, and no secret', async () => {
  // The file's secret wins over BACKUP_CLIENT_SECRET; an interrupted rotation left a token in it.
  const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
  await writeFile(
    join(dir, 'credentials.json'),
    JSON.stringify({
      clientId: 'client-1',
      clientSecret: SECRETS.fileSecret,
      pendingRotation: { accessToken: SECRETS.pendingToken, expiresAt, rotationId: 'r-1', secretStored: false },
    }),
    { mode: 0o600 },
  );
  worker = spawn(process.execPath, [WORKER], { cwd: ROOT, env: environment(), stdio: ['ignore', 'pipe', 'pipe'] });
  worker.stdout?.on('data', (chunk: Buffer) => (workerOutput += chunk.toString()));
  worker.stderr?.on('data', (chunk: Buffer) => (workerOutput += chunk.toString()));
  const exited = new Promise<number | null>((done) => worker?.once('exit', (code) => done(code)));
  await until(() => /"msg":"worker (started|running)/.test(workerOutput) || worker?.exitCode !== null);
  expect(worker.exitCode).toBeNull();

  // The CLI starts a cost export and waits for it: the run fails on the service's echo.
  // Not spawnSync: the service answers from this process.
  const cli = await runCli(['start', 'costExport', '--wait', '--input', JSON.stringify({ window: 'previous-day' })]);
  const cliOutput = `${cli.stdout}${cli.stderr}`;
  expect(cli.status).not.toBe(0);
  expect(cliOutput).toContain('[REDACTED]');

  // The worker logged the failed call and the refused notification (the service and the webhook were reached).
  await until(() => requests.some((r) => r.startsWith('POST /hooks/')));
  await until(() => /runbook failed|notification/i.test(workerOutput));
  worker.kill('SIGTERM');
  await exited;

  expect(requests.some((r) => r.includes('/v1/cost'))).toBe(true);
  expect(workerOutput).toContain('[REDACTED]');
  expect({ worker: leaked(workerOutput), cli: leaked(cliOutput) }).toEqual({ worker: [], cli: [] });
  expect(workerOutput).not.toContain(tlsKeyLine);
});

test('the CLI with a TLS client key quotes a refused input field named like its key line, and not the key', async () => {
  const tls = {
    TEMPORAL_TLS: 'true',
    TEMPORAL_TLS_CLIENT_CERT_DATA: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
    TEMPORAL_TLS_CLIENT_KEY_DATA: tlsKey,
  };
  const input = JSON.stringify({ window: 'previous-day', [tlsKeyLine]: SECRETS.temporalApiKey });
  const cli = await runCli(['start', 'costExport', '--input', input], tls);
  const output = `${cli.stdout}${cli.stderr}`;
  expect(cli.status).toBe(2);
  expect(output).toContain('[REDACTED]: unknown field');
  expect(output).not.toContain(tlsKeyLine);
  expect(leaked(output)).toEqual([]);
});

function runCli(args: string[], extra: Record<string, string> = {}) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: ROOT, env: { ...environment(), ...extra }, encoding: 'utf8', timeout: 90_000 },
      (err, stdout, stderr) =>
        done({ status: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
    );
  });
}

async function until(test: () => boolean, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out; worker output:\n${workerOutput.slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
