import Fastify, { type FastifyInstance } from 'fastify';
import { createContext, type SimContext, type SimModule, type SimOptions } from './context';
import { SimError } from './errors';
import { injectFault } from './faults';
import { Random } from './random';
import { MODULES } from './routes';
import { createState } from './state';
import { loadState, saveState } from './store';

export interface SimulatorApp {
  app: FastifyInstance;
  ctx: SimContext;
}

export interface BuildOptions extends SimOptions {
  /** Path prefix in front of `/v1` and `/_simulator` (e.g. `/api`). */
  prefix?: string;
  logLevel?: string;
  modules?: readonly SimModule[];
}

/** Builds the simulator: state from `dataDir` or a fresh seed, every module's routes, faults and persistence. */
export function buildSimulator(options: BuildOptions): SimulatorApp {
  const modules = options.modules ?? MODULES;
  const state = loadState(options.dataDir) ?? createState(options, modules);
  const ctx = createContext(state, options);
  const prefix = (options.prefix ?? '').replace(/\/+$/, '');
  const faultRandom = new Random(options.seed ^ 0x5eed);

  const app = Fastify({ logger: { level: options.logLevel ?? 'silent' }, bodyLimit: 10 * 1024 * 1024 });

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });

  app.addHook('onRequest', async (req, reply) => {
    const path = req.url.split('?')[0]?.slice(prefix.length) ?? '';
    await injectFault(ctx, faultRandom, path, req, reply);
  });

  // Every change is on disk before the next request is served.
  app.addHook('onResponse', async (req) => {
    if (req.method !== 'GET') saveState(options.dataDir, state);
  });

  app.setErrorHandler(async (err, req, reply) => {
    if (err instanceof SimError) {
      return reply.code(err.status).headers(err.headers).send({ error: err.message });
    }
    const status = (err as { statusCode?: number }).statusCode;
    if (status && status >= 400 && status < 500) return reply.code(status).send({ error: (err as Error).message });
    req.log.error(err);
    return reply.code(500).send({ error: 'internal error' });
  });

  app.setNotFoundHandler(async (req, reply) => reply.code(404).send({ error: `no route ${req.method} ${req.url}` }));

  void app.register(
    async (scoped) => {
      for (const module of modules) module.routes(scoped, ctx);
    },
    { prefix },
  );

  return { app, ctx };
}
