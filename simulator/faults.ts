import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SimContext } from './context';
import type { Random } from './random';

const TOKEN_PATHS = ['/v1/token', '/v1/oauth2/token'];

/**
 * Injected failures, as configured by `PUT /_simulator/faults` or `--fault-*` flags. They never touch the control
 * API, nor the token calls unless `pathPrefix` names them. Returns true when the request was answered or dropped.
 */
export async function injectFault(
  ctx: SimContext,
  random: Random,
  path: string,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<boolean> {
  const faults = ctx.state.faults;
  if (!faults || faults.kinds.length === 0 || path.startsWith('/_simulator/')) return false;
  if (faults.pathPrefix ? !path.startsWith(faults.pathPrefix) : TOKEN_PATHS.includes(path)) return false;
  if (!random.chance(faults.rate)) return false;
  switch (random.pick(faults.kinds)) {
    case 'latency':
      await new Promise((resolve) => setTimeout(resolve, faults.latencyMs ?? 1000));
      return false;
    case 'reset':
      req.raw.socket.destroy();
      void reply.hijack();
      return true;
    case '429':
      await reply
        .code(429)
        .header('retry-after', String(faults.retryAfterSeconds ?? 1))
        .send({ error: 'injected fault: too many requests' });
      return true;
    case '503':
      await reply.code(503).send({ error: 'injected fault: service unavailable' });
      return true;
    case '500':
      await reply.code(500).send({ error: 'injected fault: internal error' });
      return true;
  }
}
