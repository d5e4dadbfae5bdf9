// Jest's global setup for the tiers that run workflows: one Temporal dev server per jest worker, started once before
// the tier's files and stopped after them. Each file then works in a namespace of its own on its worker's server
// (test/helpers/temporal.ts), so the runs, schedules and histories it lists are its own. A server costs a file
// seconds to start; a namespace costs milliseconds.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { Connection } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { SEARCH_ATTRIBUTE_KEYS } from '../../contracts';

/** The servers' addresses, comma-separated: JEST_WORKER_ID n uses the n-th (test/helpers/temporal.ts). */
export const SHARED_SERVERS_ENV = 'RUNBOOKS_TEST_TEMPORAL_SERVERS';

const { ensureTemporal } = createRequire(__filename)('../../scripts/ensure-temporal.js') as {
  ensureTemporal: () => string;
};

interface Started {
  servers: ChildProcess[];
}

// Two projects of one run may both name this setup; the servers are started once, in jest's own process.
const started = globalThis as typeof globalThis & { runbooksTemporalServers?: Promise<Started> };

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function untilServing(address: string, server: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.exitCode !== null)
      throw new Error(`the dev server at ${address} exited ${server.exitCode}: ${output()}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`the dev server at ${address} did not answer: ${String(err)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

async function startServer(cli: string): Promise<{ address: string; server: ChildProcess }> {
  const [port, httpPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  const address = `127.0.0.1:${port}`;
  const searchAttributes = SEARCH_ATTRIBUTE_KEYS.flatMap((key) => [
    '--search-attribute',
    `${key.name}=${TypedSearchAttributes.toMetadataType(key.type)}`,
  ]);
  // The flags the SDK's own createLocal passes, with ports of our choosing.
  const args = [
    ...['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port)],
    ...['--http-port', String(httpPort), '--metrics-port', String(metricsPort), '--log-level', 'error'],
    ...['--dynamic-config-value', 'frontend.enableServerVersionCheck=false'],
    ...searchAttributes,
  ];
  const server = spawn(cli, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  server.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4_000);
  });
  await untilServing(address, server, () => stderr);
  return { address, server };
}

function stop(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => server.kill('SIGKILL'), 5_000);
    server.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    server.kill('SIGTERM');
  });
}

export default async function startSharedServers(globalConfig: { maxWorkers: number }): Promise<void> {
  started.runbooksTemporalServers ??= (async () => {
    const cli = ensureTemporal();
    const count = Math.max(1, globalConfig.maxWorkers);
    const servers = await Promise.all(Array.from({ length: count }, () => startServer(cli)));
    // Never left behind, even when jest exits without its teardown.
    process.once('exit', () => servers.forEach(({ server }) => server.kill('SIGKILL')));
    // Workers are started after the global setup, with this environment.
    process.env[SHARED_SERVERS_ENV] = servers.map((s) => s.address).join(',');
    return { servers: servers.map((s) => s.server) };
  })();
  await started.runbooksTemporalServers;
}

export async function stopSharedServers(): Promise<void> {
  const running = started.runbooksTemporalServers;
  if (!running) return;
  delete started.runbooksTemporalServers;
  await Promise.all((await running).servers.map(stop));
}
