import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SimContext } from './context';
import type { Random } from './random';

/**
 * Injected failures, as configured by `PUT /_simulator/faults` or the `--fault-*` flags. Another tool's harness
 * depends on these names: keep them stable.
 * - `500`, `503`, `429` and `reset` answer instead of the route, which never runs;
 * - `latency` delays the route, which then runs even if the client has given up waiting;
 * - `500-after`, `503-after` and `reset-after` let the route act and save its change, then lose its answer.
 */
export const FAULT_KINDS = ['500', '503', '429', 'reset', 'latency', '500-after', '503-after', 'reset-after'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

const TOKEN_PATHS = ['/v1/token', '/v1/oauth2/token'];

/** The fault picked for one request, with its settings copied: the configuration may remove itself meanwhile. */
export interface Fault {
  kind: FaultKind;
  latencyMs: number;
  retryAfterSeconds: number;
}

/**
 * Whether this request is faulted. Never the control API, nor the token calls unless `pathPrefix` names them.
 * Each fault counts against `times`; the configuration removes itself when none are left.
 */
export function pickFault(ctx: SimContext, random: Random, path: string, method: string): Fault | undefined {
  const faults = ctx.state.faults;
  if (!faults || faults.kinds.length === 0 || path.startsWith('/_simulator/')) return undefined;
  if (faults.pathPrefix ? !path.startsWith(faults.pathPrefix) : TOKEN_PATHS.includes(path)) return undefined;
  if (faults.method && faults.method !== method.toUpperCase()) return undefined;
  if (!random.chance(faults.rate)) return undefined;
  const fault = {
    kind: random.pick(faults.kinds),
    latencyMs: faults.latencyMs ?? 1000,
    retryAfterSeconds: faults.retryAfterSeconds ?? 1,
  };
  if (faults.times !== undefined) {
    faults.times -= 1;
    if (faults.times <= 0) delete ctx.state.faults;
  }
  return fault;
}

/** Answers instead of the route for the faults that act before it. Returns true when the request was answered. */
export async function answerBefore(fault: Fault, req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  switch (fault.kind) {
    case 'reset':
      req.raw.socket.destroy();
      void reply.hijack();
      return true;
    case '429':
      await reply
        .code(429)
        .header('retry-after', String(fault.retryAfterSeconds))
        .send({ error: 'injected fault: too many requests' });
      return true;
    case '503':
      await reply.code(503).send({ error: 'injected fault: service unavailable' });
      return true;
    case '500':
      await reply.code(500).send({ error: 'injected fault: internal error' });
      return true;
    default:
      return false;
  }
}

/**
 * For the `-after` faults, called once the route has acted and its change is saved: the answer it would have sent is
 * lost to a reset or replaced by a 5xx. Returns the payload to send.
 */
export function replaceAnswer(fault: Fault, req: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  switch (fault.kind) {
    case 'reset-after':
      req.raw.socket.destroy();
      return payload;
    case '503-after':
    case '500-after': {
      // The same answer as the fault before the route: a client cannot tell whether the service acted.
      const status = fault.kind === '503-after' ? 503 : 500;
      const error = status === 503 ? 'service unavailable' : 'internal error';
      reply.code(status).removeHeader('retry-after').removeHeader('location');
      reply.header('content-type', 'application/json; charset=utf-8');
      return JSON.stringify({ error: `injected fault: ${error}` });
    }
    default:
      return payload;
  }
}
