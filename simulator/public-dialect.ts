import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SimContext } from './context';
import {
  DialectRefusal,
  neutralAccountSorts,
  neutralAccountUpdate,
  neutralRole,
  neutralTokens,
} from './public-requests';
import { publicAnswer } from './public-responses';
import { publicText } from './public-tokens';

/**
 * The simulator's public-dialect edge (docs/service-interface.md §10, §11): fastify hooks around the `/v1` routes,
 * registered only when the simulator speaks the public dialect. A request is read into the neutral vocabulary before
 * its route validates it, and the route's answer is written in the public dialect before it is serialised, so that
 * every route stays written once, in the neutral vocabulary, and the state and the control API (`/_simulator/`) stay
 * neutral.
 */

/**
 * List calls the public document declares no request body for: a strict server answers 415 to one
 * (docs/service-interface.md §10).
 */
const BODILESS_LISTS: ReadonlySet<string> = new Set([
  '/v1/projects/:projectId/vaults/list',
  '/v1/roles/list',
  '/v1/idps/list',
  '/v1/idp-groups/list',
]);

type Params = Readonly<Record<string, string | undefined>>;

export function speakPublicDialect(app: FastifyInstance, ctx: SimContext, prefix: string): void {
  /** The `/v1` route pattern a request matched, without the prefix; undefined for the control API and no route. */
  const routeOf = (req: FastifyRequest): string | undefined => {
    const url = req.routeOptions.url;
    const route = url?.startsWith(prefix) ? url.slice(prefix.length) : undefined;
    return route?.startsWith('/v1/') ? route : undefined;
  };
  /** Answers of the edge itself: sent as they are. */
  const ownAnswers = new WeakSet<FastifyRequest>();

  app.addHook('onRequest', async (req, reply) => {
    const route = routeOf(req);
    if (route === undefined || !BODILESS_LISTS.has(route) || !hasBody(req)) return;
    ownAnswers.add(req);
    return reply.code(415).send({
      error: `${req.method} ${route} takes no request body: send pageToken and pageSize in the query string`,
    });
  });

  app.addHook('preValidation', async (req, reply) => {
    const route = routeOf(req);
    if (route === undefined || req.body === undefined) return;
    try {
      req.body = neutralRequest(ctx, route, req.method, req.params as Params, req.body);
    } catch (err) {
      if (!(err instanceof DialectRefusal)) throw err;
      ownAnswers.add(req);
      return reply.code(err.status).send({ error: err.message });
    }
  });

  app.addHook('preSerialization', async (req, reply, payload: unknown) => {
    const route = routeOf(req);
    if (route === undefined || ownAnswers.has(req)) return payload;
    if (reply.statusCode >= 400) {
      const error = (payload as { error?: unknown } | null)?.error;
      return typeof error === 'string' ? { ...(payload as object), error: publicText(error) } : payload;
    }
    return publicAnswer(payload, { route, params: req.params as Params, state: ctx.state });
  });
}

/** Any body, or a content type announcing one. */
function hasBody(req: FastifyRequest): boolean {
  const length = Number(req.headers['content-length'] ?? 0);
  return req.headers['content-type'] !== undefined || length > 0 || req.headers['transfer-encoding'] !== undefined;
}

/** A public request body in the neutral vocabulary and shapes its route validates. */
function neutralRequest(ctx: SimContext, route: string, method: string, params: Params, body: unknown): unknown {
  const neutral = neutralTokens(body, 'body');
  switch (route) {
    case '/v1/projects/:projectId/source-accounts/:accountId':
      return method === 'PATCH' ? neutralAccountUpdate(neutral, ctx.state, params.accountId ?? '') : neutral;
    case '/v1/projects/:projectId/source-accounts/list':
      return neutralAccountSorts(neutral, 'source');
    case '/v1/projects/:projectId/restore-accounts/list':
      return neutralAccountSorts(neutral, 'restore');
    case '/v1/roles':
    case '/v1/roles/:roleId':
      return neutralRole(neutral);
    default:
      return neutral;
  }
}
