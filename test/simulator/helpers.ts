// Raw-HTTP helpers for the simulator's conformance tests: a call, a token, the control API.
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'undici';
import type { RunningSimulator } from '../../simulator/server';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Reply {
  status: number;
  body: unknown;
  headers: IncomingHttpHeaders;
}

export interface CallOptions {
  body?: unknown;
  /** Bearer token; none when omitted. */
  token?: string;
  headers?: Record<string, string>;
}

/** One request to the simulator, the body read as JSON when there is one. */
export async function call(
  sim: RunningSimulator,
  method: Method,
  path: string,
  opts: CallOptions = {},
): Promise<Reply> {
  const res = await request(`${sim.baseUrl}${path}`, {
    method,
    headers: {
      ...opts.headers,
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? (JSON.parse(text) as unknown) : undefined, headers: res.headers };
}

/** A control route (`/_simulator/…`), which needs no token. */
export function control(sim: RunningSimulator, method: Method, path: string, body?: unknown): Promise<Reply> {
  return call(sim, method, `/_simulator${path}`, { body });
}

/** A token for the bootstrap credentials, or for new credentials holding only `permissions`. */
export async function tokenFor(sim: RunningSimulator, permissions?: string[]): Promise<string> {
  let creds = { clientId: sim.clientId, clientSecret: sim.clientSecret };
  if (permissions) creds = (await control(sim, 'POST', '/credentials', { permissions })).body as typeof creds;
  const reply = await call(sim, 'POST', '/v1/token', { body: creds });
  if (reply.status !== 200) throw new Error(`token request answered ${reply.status}`);
  return (reply.body as { access_token: string }).access_token;
}

export const projectPath = (sim: RunningSimulator) => `/v1/projects/${sim.projectId}`;
export const errorOf = (reply: Reply) => (reply.body as { error?: string } | undefined)?.error ?? '';

/** The whole state but the issued tokens: what a refused request must leave exactly as it was (jobs, clock, …). */
export function stateOf(sim: RunningSimulator): unknown {
  const { tokens: _tokens, ...rest } = sim.ctx.state;
  return structuredClone(rest);
}
