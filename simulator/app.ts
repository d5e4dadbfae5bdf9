import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Dialect } from '../api/dialect';
import { createContext, type SimContext, type SimModule, type SimOptions } from './context';
import { SimError } from './errors';
import { answerBefore, pickFault, replaceAnswer, type Fault } from './faults';
import { Random } from './random';
import { speakPublicDialect } from './public-dialect';
import { MODULES } from './routes';
import { createState } from './state';
import { loadState, saveState } from './store';

export interface SimulatorApp {
  app: FastifyInstance;
  ctx: SimContext;
  /** The dialect `/v1` speaks; the state and the control API speak the neutral one either way. */
  dialect: Dialect;
}

export interface BuildOptions extends SimOptions {
  /** Path prefix in front of `/v1` and `/_simulator` (e.g. `/api`). */
  prefix?: string;
  logLevel?: string;
  modules?: readonly SimModule[];
  /** `public` serves `/v1` in the real service's dialect (docs/service-interface.md §10, §11); `neutral` by default. */
  dialect?: Dialect;
}

/** Builds the simulator: state from `dataDir` or a fresh seed, every module's routes, faults, persistence and `Date`. */
export function buildSimulator(options: BuildOptions): SimulatorApp {
  const modules = options.modules ?? MODULES;
  const state = loadState(options.dataDir) ?? createState(options, modules);
  const ctx = createContext(state, options);
  const prefix = (options.prefix ?? '').replace(/\/+$/, '');
  const faultRandom = new Random(options.seed ^ 0x5eed);
  const dialect = options.dialect ?? 'neutral';

  const app = Fastify({ logger: { level: options.logLevel ?? 'silent' }, bodyLimit: 10 * 1024 * 1024 });

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });

  const faulted = new WeakMap<FastifyRequest, Fault>();
  app.addHook('onRequest', async (req, reply) => {
    const path = req.url.split('?')[0]?.slice(prefix.length) ?? '';
    const fault = pickFault(ctx, faultRandom, path, req.method);
    if (!fault) return;
    faulted.set(req, fault);
    // A reset never reaches onSend: keep the count of faults left now.
    if (fault.kind === 'reset') saveState(options.dataDir, state);
    await answerBefore(fault, req, reply);
  });

  // Latency once the whole request has arrived: the route then runs even if the client stops waiting, as the
  // service would (before the body is read, a client that leaves would abort the request unhandled).
  app.addHook('preHandler', async (req) => {
    const latency = ctx.state.latencyMs;
    if (latency && !req.url.slice(prefix.length).startsWith('/_simulator/')) {
      await new Promise((resolve) => setTimeout(resolve, latency));
    }
    const fault = faulted.get(req);
    if (fault?.kind === 'latency') await new Promise((resolve) => setTimeout(resolve, fault.latencyMs));
  });

  app.addHook('onSend', async (req, reply, payload) => {
    // The service's own clock, so that clients can measure time windows on it.
    reply.header('date', new Date(ctx.clock.now()).toUTCString());
    // Every change is on disk before its answer leaves, so that a lost answer never loses the change.
    if (req.method !== 'GET' || faulted.has(req)) saveState(options.dataDir, state);
    const fault = faulted.get(req);
    return fault ? replaceAnswer(fault, req, reply, payload) : payload;
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

  if (dialect === 'public') speakPublicDialect(app, ctx, prefix);

  void app.register(
    async (scoped) => {
      for (const module of modules) module.routes(scoped, ctx);
    },
    { prefix },
  );

  return { app, ctx, dialect };
}
