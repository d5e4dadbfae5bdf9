import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { Connection } from '@temporalio/client';
import type { Logger } from 'pino';
import { SEARCH_ATTRIBUTE_KEYS } from '../contracts';

/**
 * The CommonJS script that finds or builds the Temporal CLI. It is not compiled into dist/, so it is found from here
 * (source: ../scripts, dist/worker: ../../scripts).
 */
export function ensureTemporal(): string {
  const script = [join(__dirname, '..', 'scripts'), join(__dirname, '..', '..', 'scripts')]
    .map((dir) => join(dir, 'ensure-temporal.js'))
    .find((file) => existsSync(file));
  if (!script) throw new Error(`scripts/ensure-temporal.js not found above ${__dirname}`);
  const requireHere: (id: string) => unknown = createRequire(__filename);
  const loaded = requireHere(script) as typeof import('../scripts/ensure-temporal');
  return loaded.ensureTemporal();
}

export interface DevServerOptions {
  log: Logger;
  namespace: string;
  /** Tries this port first (7233 lets the `temporal` CLI find it without flags), then any free one. */
  preferredPort?: number;
  /** Web UI port to try first; `false` runs headless. */
  preferredUiPort?: number | false;
  /** SQLite file that keeps workflows across restarts; undefined keeps them in memory. */
  dbFilename?: string;
  startTimeoutMs?: number;
}

export interface DevServer {
  address: string;
  uiUrl?: string;
  stop(): Promise<void>;
}

/** Keyword → `Keyword`, as the CLI's `--search-attribute` flag spells the types. */
const CLI_TYPES: Record<string, string> = {
  KEYWORD: 'Keyword',
  TEXT: 'Text',
  INT: 'Int',
  DOUBLE: 'Double',
  BOOL: 'Bool',
  DATETIME: 'Datetime',
  KEYWORD_LIST: 'KeywordList',
};

/** Starts before the dev server exits on its own are tried again, each on fresh ports. */
export const DEV_SERVER_ATTEMPTS = 3;

/** The dev server's process ended before it answered: a port it chose was taken, a file was locked, or it crashed. */
class ExitedBeforeReady extends Error {}

/**
 * Starts the Temporal CLI's dev server on 127.0.0.1 with the runbooks' search attributes registered, and resolves
 * once it answers for the namespace. The process is stopped by `stop()`, and killed if this process exits first.
 *
 * The CLI picks its internal services' ports by asking for a free one and then binding it later, so two servers
 * starting at once can race for a port; the loser panics at start. Such a start is tried again on fresh ports.
 */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (err) {
      if (!(err instanceof ExitedBeforeReady) || attempt >= DEV_SERVER_ATTEMPTS) throw err;
      options.log.warn(
        { attempt, err: err.message.split('\n')[0] },
        'the Temporal dev server exited at start; starting it again',
      );
    }
  }
}

async function startOnce(options: DevServerOptions): Promise<DevServer> {
  const cli = ensureTemporal();
  const port = await freePort(options.preferredPort);
  const uiPort = options.preferredUiPort === false ? undefined : await freePort(options.preferredUiPort, [port]);
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port)];
  args.push(...(uiPort === undefined ? ['--headless'] : ['--ui-port', String(uiPort)]));
  if (options.dbFilename) {
    mkdirSync(dirname(options.dbFilename), { recursive: true });
    args.push('--db-filename', options.dbFilename);
  }
  args.push('--namespace', options.namespace);
  for (const key of SEARCH_ATTRIBUTE_KEYS)
    args.push('--search-attribute', `${key.name}=${CLI_TYPES[key.type] ?? 'Keyword'}`);
  args.push('--log-level', 'warn');

  const log = options.log.child({ component: 'temporal-dev-server' });
  const child = spawn(cli, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const tail: string[] = [];
  const keep = (line: string) => {
    tail.push(line);
    if (tail.length > 40) tail.shift();
  };
  // Its warnings are about its own system workflows; they help only when something goes wrong.
  createInterface({ input: child.stdout }).on('line', (line) => {
    keep(line);
    log.debug(line);
  });
  createInterface({ input: child.stderr }).on('line', (line) => {
    keep(line);
    log.debug(line);
  });

  let stopping = false;
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code, signal) => {
      if (!stopping) log.error({ code, signal, output: tail.slice(-10) }, 'the Temporal dev server exited');
      resolve(code);
    });
    child.once('error', (err) => {
      log.error({ err }, 'the Temporal dev server could not be run');
      resolve(null);
    });
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    stopping = true;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    process.removeListener('exit', killOnExit);
  };

  const address = `127.0.0.1:${port}`;
  try {
    await waitUntilServing(address, options.namespace, exited, options.startTimeoutMs ?? 90_000);
  } catch (err) {
    await stop();
    const output = tail.length > 0 ? `\n${tail.slice(-10).join('\n')}` : '';
    const message = `${(err as Error).message} (${cli} ${args.join(' ')})${output}`;
    throw err instanceof ExitedBeforeReady ? new ExitedBeforeReady(message) : new Error(message);
  }
  const uiUrl = uiPort === undefined ? undefined : `http://127.0.0.1:${uiPort}`;
  log.info({ address, uiUrl, dbFilename: options.dbFilename }, 'Temporal dev server started');
  return { address, uiUrl, stop };
}

async function waitUntilServing(
  address: string,
  namespace: string,
  exited: Promise<number | null>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  void exited.then(() => (gone = true));
  let lastError = 'no answer';
  while (Date.now() < deadline) {
    if (gone) throw new ExitedBeforeReady('the Temporal dev server exited before it was ready');
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.describeNamespace({ namespace });
        return;
      } finally {
        await connection.close();
      }
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the Temporal dev server did not answer at ${address} within ${timeoutMs} ms: ${lastError}`);
}

/** The preferred port when it is free on 127.0.0.1, otherwise one the OS picks (never one of `avoid`). */
export async function freePort(preferred?: number, avoid: readonly number[] = []): Promise<number> {
  if (preferred !== undefined && !avoid.includes(preferred) && (await canListen(preferred))) return preferred;
  for (;;) {
    const port = await listenOnce(0);
    if (!avoid.includes(port)) return port;
  }
}

async function canListen(port: number): Promise<boolean> {
  return listenOnce(port).then(
    () => true,
    () => false,
  );
}

function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const chosen = typeof address === 'object' && address ? address.port : port;
      server.close(() => resolve(chosen));
    });
  });
}
