// Jest's global setup for the tiers that run workflows: one Temporal dev server per jest worker, started once before
// the tier's files and stopped after them. Each file then works in a namespace of its own on its worker's server
// (test/helpers/temporal.ts), so the runs, schedules and histories it lists are its own. A server costs a file
// seconds to start; a namespace costs milliseconds.
import pino from 'pino';
import { startDevServer, type DevServer } from '../../worker/dev-server';

/** The servers' addresses, comma-separated: JEST_WORKER_ID n uses the n-th (test/helpers/temporal.ts). */
export const SHARED_SERVERS_ENV = 'RUNBOOKS_TEST_TEMPORAL_SERVERS';

// Two projects of one run may both name this setup; the servers are started once, in jest's own process.
const started = globalThis as typeof globalThis & { runbooksTemporalServers?: Promise<DevServer[]> };

export default async function startSharedServers(globalConfig: { maxWorkers: number }): Promise<void> {
  started.runbooksTemporalServers ??= (async () => {
    // The demo's own starter: headless, the runbooks' search attributes, killed if jest exits without its teardown.
    const log = pino({ level: 'warn' }, process.stderr);
    const count = Math.max(1, globalConfig.maxWorkers);
    const servers = await Promise.all(
      Array.from({ length: count }, () => startDevServer({ log, namespace: 'default', preferredUiPort: false })),
    );
    // Workers are started after the global setup, with this environment.
    process.env[SHARED_SERVERS_ENV] = servers.map((s) => s.address).join(',');
    return servers;
  })();
  await started.runbooksTemporalServers;
}

export async function stopSharedServers(): Promise<void> {
  const running = started.runbooksTemporalServers;
  if (!running) return;
  delete started.runbooksTemporalServers;
  await Promise.all((await running).map((server) => server.stop()));
}
