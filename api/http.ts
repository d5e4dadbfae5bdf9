import { EventEmitter } from 'node:events';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Pool, type Dispatcher } from 'undici';
import { NetworkError } from './errors';

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path below the base URL, starting with `/v1`, parameters already encoded (see `pathOf`). */
  path: string;
  query?: Record<string, string | number | readonly string[] | undefined>;
  headers?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  /** Sees a 2xx body's text before it is parsed (a read-ahead of what the next call needs); it must not throw. */
  onText?: (text: string) => void;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | undefined>;
  /** Parsed JSON, or undefined for an empty or non-JSON body. */
  body: unknown;
}

export interface HttpOptions {
  /** The service's address, possibly with a path prefix (`https://host/api`). */
  baseUrl: string;
  /** Per-request deadline, covering connect, headers and body. */
  timeoutMs?: number;
  /** Replaces the shared keep-alive pool, for tests. */
  dispatcher?: Dispatcher;
  /** Told of every call once it ends (metrics); it must not throw. */
  onCall?: (call: CallRecord) => void;
  /** Wraps every call, response or failure included (a tracing span); it must call `send` once and return its result. */
  around?: (call: HttpCall, send: () => Promise<HttpResponse>) => Promise<HttpResponse>;
}

/** The call about to be made, named by its endpoint template. */
export interface HttpCall {
  method: HttpRequest['method'];
  endpoint: string;
}

/** One finished call, named by its endpoint template so that IDs never become metric labels. */
export interface CallRecord {
  method: HttpRequest['method'];
  endpoint: string;
  /** The HTTP status, or `timeout` / `error` when no answer came. */
  status: number | 'timeout' | 'error';
  durationMs: number;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

// One keep-alive pool per base URL, shared by every client in the process.
const pools = new Map<string, Pool>();

function poolFor(origin: string): Pool {
  let pool = pools.get(origin);
  if (!pool) {
    pool = new Pool(origin, { connections: 16, keepAliveTimeout: 30_000 });
    pools.set(origin, pool);
  }
  return pool;
}

/** Closes every shared pool, so a process can exit promptly. */
export async function closeHttpPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.close()));
}

/** Builds a path with each parameter percent-encoded: query IDs hold `:`. */
export function pathOf(strings: TemplateStringsArray, ...params: string[]): string {
  return strings.reduce(
    (out, part, i) => out + part + (i < params.length ? encodeURIComponent(params[i] ?? '') : ''),
    '',
  );
}

/** A call's deadline: undici aborts the call when it emits `abort`. */
class Deadline extends EventEmitter {
  expired = false;
  constructor(readonly at: number) {
    super();
  }
}

/**
 * The deadlines of a transport's calls in flight. They share one duration, so the order they start in is the order
 * they end in: one timer serves them all and is re-armed only when it fires, where a timer set and cleared per call
 * cost more than the rest of the transport.
 */
class Deadlines {
  private readonly pending = new Set<Deadline>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly ms: number) {}

  start(): Deadline {
    const deadline = new Deadline(performance.now() + this.ms);
    this.pending.add(deadline);
    this.timer ??= this.arm(this.ms);
    return deadline;
  }

  end(deadline: Deadline): void {
    this.pending.delete(deadline);
  }

  private arm(ms: number): NodeJS.Timeout {
    // Unreferenced: a call in flight holds the process open by its socket, an idle transport must not.
    return setTimeout(() => this.fire(), Math.max(1, Math.ceil(ms))).unref();
  }

  private fire(): void {
    this.timer = undefined;
    const now = performance.now();
    for (const deadline of this.pending) {
      if (deadline.at > now) {
        this.timer = this.arm(deadline.at - now);
        return;
      }
      this.pending.delete(deadline);
      deadline.expired = true;
      deadline.emit('abort');
    }
  }
}

export class HttpTransport {
  private readonly origin: string;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly dispatcher: Dispatcher;
  private readonly onCall?: (call: CallRecord) => void;
  private readonly around?: HttpOptions['around'];
  private readonly deadlines: Deadlines;

  constructor(options: HttpOptions) {
    this.onCall = options.onCall;
    this.around = options.around;
    const url = new URL(options.baseUrl);
    this.origin = url.origin;
    this.prefix = url.pathname.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.deadlines = new Deadlines(this.timeoutMs);
    this.dispatcher = options.dispatcher ?? poolFor(this.origin);
  }

  get baseUrl(): string {
    return this.origin + this.prefix;
  }

  /** Sends one request; `authorization` joins its headers (the caller's token, without copying the request). */
  send(req: HttpRequest, authorization?: string): Promise<HttpResponse> {
    // The template is worked out once per call, and only when a hook will read it.
    const endpoint = this.around || this.onCall ? endpointOf(req) : '';
    if (!this.around) return this.exchange(req, endpoint, authorization);
    return this.around({ method: req.method, endpoint }, () => this.exchange(req, endpoint, authorization));
  }

  private async exchange(req: HttpRequest, endpoint: string, authorization?: string): Promise<HttpResponse> {
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
    if (authorization !== undefined) headers.authorization = authorization;
    let body: string | undefined;
    if (req.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(req.form).toString();
    } else if (req.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.json);
    }
    // A plain emitter: an AbortSignal per call cost more than the rest of the transport.
    const deadline = this.deadlines.start();
    const began = performance.now();
    const record = (status: CallRecord['status']) =>
      this.onCall?.({ method: req.method, endpoint, status, durationMs: performance.now() - began });
    try {
      // The dispatcher's own request: undici's top-level `request` parses a URL string on every call.
      const res = await this.dispatcher.request({
        origin: this.origin,
        path: this.prefix + req.path + queryString(req.query),
        method: req.method,
        headers,
        body,
        signal: deadline,
      });
      const text = await res.body.text();
      if (req.onText && res.statusCode >= 200 && res.statusCode < 300) req.onText(text);
      // undici frees the connection a turn after the body ends: without this, a call made at once opens a second one.
      await nextTurn();
      record(res.statusCode);
      return { status: res.statusCode, headers: flatten(res.headers), body: parseJson(text) };
    } catch (err) {
      const timedOut = deadline.expired;
      record(timedOut ? 'timeout' : 'error');
      const cause = timedOut ? `no answer within ${this.timeoutMs} ms` : errorText(err);
      throw new NetworkError({ method: req.method, path: req.path }, cause, timedOut);
    } finally {
      this.deadlines.end(deadline);
    }
  }
}

// Every literal segment of the service's paths; any other segment is a parameter. Unknown words become `{id}` too,
// so labels stay bounded whatever the paths hold.
const LITERAL_SEGMENTS = new Set(
  (
    'v1 projects api-credentials current rotate roles list permissions idps idp-groups token oauth2 cost-data ' +
    'action-approvals my-requests cancel submit backup-jobs restore-jobs queries results status resources snapshots ' +
    'take-snapshot restore-bucket restore-files restore-accounts databases query source-accounts disconnect reconnect vaults'
  ).split(' '),
);

/** `GET /v1/projects/{id}/backup-jobs/{id}`: the method and the path template, without IDs or query. */
export function endpointOf(req: Pick<HttpRequest, 'method' | 'path'>): string {
  const segments = req.path.split('?')[0]?.split('/') ?? [];
  return `${req.method} ${segments.map((s) => (s === '' || LITERAL_SEGMENTS.has(s) ? s : '{id}')).join('/')}`;
}

function queryString(query: HttpRequest['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value as readonly string[]) params.append(key, v);
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function flatten(headers: Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const k in headers) {
    const v = headers[k];
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function errorText(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code ? `${code} ${err.message}` : err.message;
  }
  return String(err);
}
