import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { State } from '@temporalio/worker';
import { HEARTBEAT_MAX_AGE_MS, heartbeatProblem } from './heartbeat';

/**
 * The worker's health endpoint for probes that speak HTTP (Kubernetes), beside the file heartbeat the image's
 * HEALTHCHECK reads. Started when RUNBOOKS_HEALTH_ADDRESS is set, before anything else, so that a probe gets an answer
 * (503 "starting") while the worker connects and loads its bundle:
 *
 * - `GET /healthz` (liveness): 200 while the heartbeat file is fresh. The worker rewrites it every 10 s while it
 *   polls, from its event loop, so a stale file means a worker that stopped polling, a blocked loop or a data dir it
 *   cannot write; a loop blocked outright does not answer at all, which a probe counts as a failure too.
 * - `GET /readyz` (readiness): 200 while the worker's state is RUNNING (it polls its task queue); 503 while it starts,
 *   and from the moment a SIGTERM makes it drain, so a rollout waits for new workers to poll before it stops old ones.
 *
 * Each answers a line of JSON: `{ "status": "ok" | "starting" | "unhealthy" | "not-ready", "reason"?, "state"? }`.
 */

export const HEALTH_PATHS = { live: '/healthz', ready: '/readyz' } as const;

export interface HealthServerOptions {
  /** host:port to listen on; port 0 takes a free one. */
  address: string;
  /** The heartbeat file the worker rewrites while it polls (worker/heartbeat.ts). */
  heartbeatFile: string;
  /** The worker's state, or undefined while it has not been created yet. */
  workerState: () => State | undefined;
  maxAgeMs?: number;
}

export interface HealthServer {
  /** The port it listens on (the one asked for, or the free one taken for port 0). */
  port: number;
  close(): Promise<void>;
}

interface Answer {
  code: number;
  body: { status: string; reason?: string; state?: State };
}

async function liveness(options: HealthServerOptions): Promise<Answer> {
  const state = options.workerState();
  if (state === undefined) return { code: 503, body: { status: 'starting' } };
  const problem = await heartbeatProblem(options.heartbeatFile, options.maxAgeMs ?? HEARTBEAT_MAX_AGE_MS);
  return problem === undefined
    ? { code: 200, body: { status: 'ok', state } }
    : { code: 503, body: { status: 'unhealthy', reason: problem, state } };
}

function readiness(options: HealthServerOptions): Answer {
  const state = options.workerState();
  if (state === undefined) return { code: 503, body: { status: 'starting' } };
  return state === 'RUNNING'
    ? { code: 200, body: { status: 'ok', state } }
    : { code: 503, body: { status: 'not-ready', reason: `the worker is ${state.toLowerCase()}`, state } };
}

/** `host:port` (IPv6 hosts in brackets) → the host and port `listen` takes. */
export function parseHostPort(address: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(address);
  const port = Number(match?.[3]);
  if (!match || port > 65_535) throw new Error(`not host:port: ${address}`);
  return { host: match[1] ?? match[2] ?? '', port };
}

export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const { host, port } = parseHostPort(options.address);
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const answer =
      req.method !== 'GET' && req.method !== 'HEAD'
        ? Promise.resolve<Answer>({ code: 405, body: { status: 'method-not-allowed' } })
        : path === HEALTH_PATHS.live
          ? liveness(options)
          : path === HEALTH_PATHS.ready
            ? Promise.resolve(readiness(options))
            : Promise.resolve<Answer>({ code: 404, body: { status: 'not-found' } });
    void answer
      .catch((err: unknown): Answer => ({ code: 503, body: { status: 'unhealthy', reason: String(err) } }))
      .then(({ code, body }) => {
        res.writeHead(code, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : `${JSON.stringify(body)}\n`);
      });
  });
  // A probe's connection must not keep a stopping worker's event loop alive.
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.unref();
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
