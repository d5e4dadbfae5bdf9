// The console listening on a free local port, and a client that asks it as a browser or curl would (fastify's
// `inject` needs an ESM module jest does not load).
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { request } from 'undici';

export interface Answer {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}
export interface Ask {
  method?: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  payload?: string;
}
export type Client = (ask: Ask) => Promise<Answer>;

export async function listen(app: FastifyInstance): Promise<Client> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return async ({ method = 'GET', url, headers, payload }) => {
    const res = await request(`http://127.0.0.1:${port}${url}`, { method, headers, body: payload });
    return { statusCode: res.statusCode, headers: res.headers, body: await res.body.text() };
  };
}

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
export const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
