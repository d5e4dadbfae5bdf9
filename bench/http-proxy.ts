import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

/**
 * What a rule does to a request it takes:
 * - `503`, `500`, `reset`: fails it before the service sees it;
 * - `503-after`, `500-after`, `reset-after`: lets the service act, then loses its answer;
 * - a function: runs it first (e.g. kill the worker that sent the request, or change the service's state at that
 *   exact moment), then lets the service act.
 */
export type ProxyAction =
  '503' | '500' | 'reset' | '503-after' | '500-after' | 'reset-after' | ((url: string) => Promise<void> | void);

export interface ProxyRule {
  label?: string;
  method: string;
  path: RegExp;
  /** Only requests with (`name`) or without (`!name`) this header. */
  header?: string;
  /** Lets this many matching requests through untouched first. */
  skip?: number;
  /** How many requests it takes; every one when absent. */
  times?: number;
  action: ProxyAction;
}

export interface ProxyHit {
  label?: string;
  at: number;
  method: string;
  path: string;
  /** The service's status when it was reached, or undefined when the request never got there. */
  upstreamStatus?: number;
  /** The rule's action, `run` for a function. */
  action: string;
}

export interface SeenRequest {
  at: number;
  method: string;
  path: string;
  status?: number;
  body?: string;
  answer?: string;
}

const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade']);

function forwardable(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>) {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(key.toLowerCase())) out[key] = value;
  }
  return out;
}

export interface LossyProxyOptions {
  /** Who injects the faults, as their answers say. */
  injector: string;
  connections: number;
}

/**
 * A lossy HTTP proxy between the workers and the simulator, inside the harness or test process (which is never
 * killed), so that a fault hits exactly the call a trial names, and the service's real answer is known even when it
 * is lost.
 */
export class LossyProxy {
  readonly hits: ProxyHit[] = [];
  private readonly rules: (ProxyRule & { seen: number; taken: number })[] = [];
  private readonly watchers: ((request: SeenRequest) => void)[] = [];
  private readonly server = createServer((req, res) => void this.handle(req, res));
  private readonly upstream: Pool;
  private port = 0;

  constructor(
    private readonly target: string,
    private readonly options: LossyProxyOptions = { injector: 'the reliability harness', connections: 64 },
  ) {
    this.upstream = new Pool(new URL(target).origin, { connections: options.connections });
  }

  /** Every request refused or whose answer was lost, as `METHOD path -> status` (`-> refused 503` when refused). */
  get lost(): string[] {
    return this.hits
      .filter((h) => h.action !== 'run')
      .map((h) => `${h.method} ${h.path} -> ${h.upstreamStatus ?? `refused ${h.action}`}`);
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** The service's base URL through the proxy. */
  get baseUrl(): string {
    const prefix = new URL(this.target).pathname.replace(/\/+$/, '');
    return `http://127.0.0.1:${this.port}${prefix}`;
  }

  /** Adds a rule; the returned function removes it. */
  add(rule: ProxyRule): () => void {
    const entry = { ...rule, seen: 0, taken: 0 };
    this.rules.push(entry);
    return () => {
      const index = this.rules.indexOf(entry);
      if (index >= 0) this.rules.splice(index, 1);
    };
  }

  clear(): void {
    this.rules.length = 0;
  }

  /** Calls `watch` with every request and the service's answer (for the reviewer, who learns of submitted requests). */
  watch(watch: (request: SeenRequest) => void): () => void {
    this.watchers.push(watch);
    return () => {
      const index = this.watchers.indexOf(watch);
      if (index >= 0) this.watchers.splice(index, 1);
    };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.upstream.close();
  }

  private take(method: string, path: string, headers: IncomingHttpHeaders): ProxyRule | undefined {
    for (const rule of this.rules) {
      if (rule.method !== method || !rule.path.test(path)) continue;
      if (rule.header !== undefined) {
        const wanted = !rule.header.startsWith('!');
        const has = headers[rule.header.replace(/^!/, '').toLowerCase()] !== undefined;
        if (has !== wanted) continue;
      }
      rule.seen += 1;
      if (rule.seen <= (rule.skip ?? 0) || rule.taken >= (rule.times ?? Infinity)) continue;
      rule.taken += 1;
      return rule;
    }
    return undefined;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const path = url.split('?')[0] ?? url;
    const hit = (rule: ProxyRule, upstreamStatus?: number) => {
      const action = typeof rule.action === 'function' ? 'run' : rule.action;
      this.hits.push({ label: rule.label, at: Date.now(), method, path, upstreamStatus, action });
    };
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      const rule = this.take(method, path, req.headers);
      const action = rule?.action;
      if (rule && (action === '503' || action === '500')) {
        hit(rule);
        res.writeHead(Number(action), { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: `injected by ${this.options.injector}: ${action}` }));
        return;
      }
      if (rule && action === 'reset') {
        hit(rule);
        req.socket.destroy();
        return;
      }
      if (rule && typeof action === 'function') await action(url);
      const answer = await this.upstream.request({ method, path: url, headers: forwardable(req.headers), body });
      const payload = Buffer.from(await answer.body.arrayBuffer());
      const seen: SeenRequest = { at: Date.now(), method, path, status: answer.statusCode };
      if (method !== 'GET') Object.assign(seen, { body: body?.toString('utf8'), answer: payload.toString('utf8') });
      for (const watch of this.watchers) watch(seen);
      if (rule) hit(rule, answer.statusCode);
      if (action === 'reset-after' || req.socket.destroyed) {
        req.socket.destroy();
        return;
      }
      if (action === '503-after' || action === '500-after') {
        res.writeHead(action === '503-after' ? 503 : 500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: `injected by ${this.options.injector} after the service acted: ${action}` }));
        return;
      }
      res.writeHead(answer.statusCode, { ...forwardable(answer.headers), 'content-length': payload.length });
      res.end(payload);
    } catch {
      // The simulator is gone or reset the connection (an injected fault): so does the proxy.
      for (const watch of this.watchers) watch({ at: Date.now(), method, path });
      req.socket.destroy();
    }
  }
}
