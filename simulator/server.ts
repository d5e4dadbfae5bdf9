import { buildSimulator, type BuildOptions, type SimulatorApp } from './app';

export const DEFAULT_CLIENT_ID = 'runbooks-local';
export const DEFAULT_CLIENT_SECRET = 'local-simulator-secret';

export interface StartOptions extends Partial<BuildOptions> {
  port?: number;
  host?: string;
}

export interface RunningSimulator extends SimulatorApp {
  /** Base URL including the prefix, ready for the client. */
  baseUrl: string;
  projectId: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

/** Starts the simulator on a port (0 picks a free one) with defaults that need no configuration. */
export async function startSimulator(options: StartOptions = {}): Promise<RunningSimulator> {
  const clientId = options.bootstrapClientId ?? process.env.SIMULATOR_CLIENT_ID ?? DEFAULT_CLIENT_ID;
  const clientSecret = options.bootstrapClientSecret ?? process.env.SIMULATOR_CLIENT_SECRET ?? DEFAULT_CLIENT_SECRET;
  const sim = buildSimulator({
    ...options,
    seed: options.seed ?? 1,
    tokenTtlSeconds: options.tokenTtlSeconds ?? 43_200,
    bootstrapClientId: clientId,
    bootstrapClientSecret: clientSecret,
  });
  const host = options.host ?? '127.0.0.1';
  await sim.app.listen({ port: options.port ?? 0, host });
  const address = sim.app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const prefix = (options.prefix ?? '').replace(/\/+$/, '');
  return {
    ...sim,
    baseUrl: `http://${host.includes(':') ? `[${host}]` : host}:${port}${prefix}`,
    projectId: sim.ctx.state.projectId,
    clientId,
    // A rotation of the bootstrap credentials is persisted; report the secret that works now.
    clientSecret: sim.ctx.state.credentials[clientId]?.clientSecret ?? clientSecret,
    close: () => sim.app.close(),
  };
}
