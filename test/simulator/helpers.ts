// Raw-HTTP helpers for the simulator's conformance tests: a call, a token, the control API.
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'undici';
import { IssuedToken } from '../../api/schemas';
import { ALL_PERMISSIONS } from '../../simulator/permissions';
import { startSimulator, type RunningSimulator, type StartOptions } from '../../simulator/server';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Reply {
  status: number;
  body: unknown;
  /** The body as sent, for answers that are not JSON or must match byte for byte. */
  text: string;
  headers: IncomingHttpHeaders;
}

export interface CallOptions {
  body?: unknown;
  /** Bearer token; none when omitted. */
  token?: string;
  headers?: Record<string, string>;
  /** A body sent as it is, for malformed JSON. */
  raw?: string;
}

/** One request to the simulator, the body read as JSON when there is one. */
export async function call(
  sim: RunningSimulator,
  method: Method,
  path: string,
  opts: CallOptions = {},
): Promise<Reply> {
  const payload = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  const res = await request(`${sim.baseUrl}${path}`, {
    method,
    headers: {
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      // A test's own headers win, so that a raw body can say what it is.
      ...opts.headers,
    },
    body: payload,
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? (JSON.parse(text) as unknown) : undefined, text, headers: res.headers };
}

export interface SuiteCallOptions extends Omit<CallOptions, 'token'> {
  /** Another token than the suite's; null sends none. */
  auth?: string | null;
}

/**
 * A suite's `call`, sending the suite's token unless told otherwise. The simulator and the token are read when a call
 * runs, since a `beforeAll` sets them.
 */
export function suiteCall(suite: () => { sim: RunningSimulator; token: string }) {
  return (method: Method, path: string, opts: SuiteCallOptions = {}): Promise<Reply> => {
    const { sim, token } = suite();
    const { auth, ...rest } = opts;
    return call(sim, method, path, { ...rest, token: auth === undefined ? token : (auth ?? undefined) });
  };
}

/** A control route (`/_simulator/…`), which needs no token. */
export function control(sim: RunningSimulator, method: Method, path: string, body?: unknown): Promise<Reply> {
  return call(sim, method, `/_simulator${path}`, { body });
}

export interface Credentials {
  clientId: string;
  clientSecret: string;
}

/** New credentials holding only `permissions`. */
export async function credentialsWith(sim: RunningSimulator, permissions: readonly string[]): Promise<Credentials> {
  const reply = await control(sim, 'POST', '/credentials', { permissions });
  if (reply.status !== 201) throw new Error(`credentials request answered ${reply.status}`);
  return reply.body as Credentials;
}

/** A token for `creds`. */
export async function tokenOf(sim: RunningSimulator, creds: Credentials): Promise<string> {
  const reply = await call(sim, 'POST', '/v1/token', { body: creds });
  if (reply.status !== 200) throw new Error(`token request answered ${reply.status}`);
  // Either dialect's token body.
  return IssuedToken.parse(reply.body).accessToken;
}

/** A token for the bootstrap credentials, or for new credentials holding only `permissions`. */
export async function tokenFor(sim: RunningSimulator, permissions?: readonly string[]): Promise<string> {
  const creds = permissions
    ? await credentialsWith(sim, permissions)
    : { clientId: sim.clientId, clientSecret: sim.clientSecret };
  return tokenOf(sim, creds);
}

/** An ID no seeded or created record has. */
export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
/**
 * Every page of a list, `pageSize` at a time: `fetchPage` is given the query string of each page in turn, the first
 * without a token and each next one with the token the page before it returned.
 */
export async function allPages<P extends { nextToken?: string | null }>(
  pageSize: number,
  fetchPage: (query: string) => Promise<P>,
): Promise<P[]> {
  const pages: P[] = [];
  let next: string | null | undefined;
  do {
    const page = await fetchPage(`?pageSize=${pageSize}${next ? `&pageToken=${encodeURIComponent(next)}` : ''}`);
    pages.push(page);
    next = page.nextToken;
  } while (next);
  return pages;
}

/** A call refused 401 without a token, and 403 with `unprivileged`, a token without the permission it needs. */
export async function expectAuthRefusals(
  call: ReturnType<typeof suiteCall>,
  method: Method,
  path: string,
  unprivileged: string,
): Promise<void> {
  expect((await call(method, path, { auth: null })).status).toBe(401);
  expect((await call(method, path, { auth: unprivileged })).status).toBe(403);
}

/** The body of what must be a 200 answer, decoded by `schema`. */
export function okBody<T>(reply: Reply, schema: { parse(body: unknown): T }): T {
  expect(reply.status).toBe(200);
  return schema.parse(reply.body);
}

/** A 400 whose error names `field`. */
export function expectBadRequest(reply: Reply, field: string): void {
  expect(reply.status).toBe(400);
  expect(errorOf(reply)).toContain(field);
}

export const projectPath = (sim: RunningSimulator) => `/v1/projects/${sim.projectId}`;
export const errorOf = (reply: Reply) => (reply.body as { error?: string } | undefined)?.error ?? '';

/** The whole state but the issued tokens: what a refused request must leave exactly as it was (jobs, clock, …). */
export function stateOf(sim: RunningSimulator): unknown {
  const { tokens: _tokens, ...rest } = sim.ctx.state;
  return structuredClone(rest);
}

/**
 * Starts a simulator before the suite and closes it after; `ready` receives it with a token of the bootstrap
 * credentials, and may prepare more (tokens, fixtures).
 */
export function simulatorForSuite(
  options: Partial<StartOptions>,
  ready: (sim: RunningSimulator, token: string) => unknown,
): void {
  let sim: RunningSimulator | undefined;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, ...options });
    await ready(sim, await tokenFor(sim));
  });
  afterAll(async () => {
    await sim?.close();
  });
}

/** A token for new credentials holding every permission but `excluded`. */
export function tokenWithout(sim: RunningSimulator, excluded: readonly string[]): Promise<string> {
  return tokenFor(
    sim,
    ALL_PERMISSIONS.filter((p) => !excluded.includes(p)),
  );
}

/** What a suite over resources that one permission manages holds once the simulator runs. */
export interface ManagementSuite {
  sim: RunningSimulator;
  /** The bootstrap credentials: every permission. */
  token: string;
  /** Holds inventory.view only: reads work, writes are 403. */
  viewer: string;
  /** Holds everything but inventory.view and the managing permission. */
  unprivileged: string;
}

/** A simulator for the suite, with the tokens that tell reading, managing and neither apart, and a call with them. */
export function managementSuite(permission: string) {
  const suite = {} as ManagementSuite;
  simulatorForSuite({}, async (sim, token) => {
    const viewer = await tokenFor(sim, ['inventory.view']);
    Object.assign(suite, { sim, token, viewer, unprivileged: await tokenWithout(sim, ['inventory.view', permission]) });
  });
  return { suite, call: suiteCall(() => suite) };
}

/** A JSON object, as the tests read a body. */
export type Json = Record<string, unknown>;

/** A reply's body, once it has `status` and no error: a failure shows the error the simulator gave. */
export function bodyOf(reply: Reply, status = 200): Json {
  expect({ status: reply.status, error: errorOf(reply) }).toEqual({ status, error: '' });
  return reply.body as Json;
}

/** A simulator in the public dialect for the suite: its token, a call with it, its project path and its state. */
export function publicDialectSuite() {
  const suite = {} as { sim: RunningSimulator; token: string };
  simulatorForSuite({ dialect: 'public' }, (sim, token) => Object.assign(suite, { sim, token }));
  return {
    suite,
    api: suiteCall(() => suite),
    project: () => projectPath(suite.sim),
    state: () => suite.sim.ctx.state,
  };
}

/** Runs `body` under an approval policy on restores, and removes the policies after it, so no other test meets one. */
export async function underRestorePolicy(
  sim: RunningSimulator,
  policy: { requiredApprovals: number; windowHours: number },
  body: () => Promise<void>,
): Promise<void> {
  const created = await control(sim, 'POST', '/policies', {
    operations: ['MPA_OPERATION_RESTORE_RESOURCE'],
    requiredApprovals: policy.requiredApprovals,
    approvalWindowHours: policy.windowHours,
    executionWindowHours: policy.windowHours,
  });
  expect(created.status).toBe(201);
  try {
    await body();
  } finally {
    await control(sim, 'DELETE', '/policies');
  }
}
