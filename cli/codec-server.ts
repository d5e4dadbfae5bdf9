import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { z } from 'zod';
import { AesGcmCodec, PayloadDecryptionError, type CodecKeys } from '../runtime/codec';
import { ConfigError, loadCodecKeys, loadCodecServerAccess, type CodecServerAccess } from '../runtime/config';
import { parseCommandLine, positionals, wholeNumber } from '../operator/args';
import { codeInChunks, RefusedRequest, DEFAULT_CODEC_LIMITS, type CodecServerLimits } from './codec-limits';
import { DEFAULT_ALLOWED_ORIGIN } from '../operator/command-table';
import { UsageError } from '../operator/errors';
import { checkExposure, clientDeadlines } from '../operator/exposure';
import { helpFor } from '../operator/help';
import { acceptedHosts, normalizeHostHeader } from '../operator/exposure';

/**
 * Temporal's codec-server protocol, so the Web UI and `temporal` CLI can show encrypted history: `POST /encode` and
 * `POST /decode` take and answer `{ payloads: [{ metadata: { key: base64 }, data: base64 }] }` (protobuf JSON).
 * node:http only: this command must start fast and pull nothing heavy.
 *
 * It holds the keys to all history, so it trusts little: a `Host` header that names neither this server nor the
 * allowed origin is refused (421), so that a web page that rebinds its DNS name to 127.0.0.1 cannot reach it; `*` as
 * the allowed origin needs a token; off loopback it needs a token or --behind-proxy; only `application/json` is
 * taken, so that a page cannot send a body without a CORS preflight; `/encode`, which no viewer needs, is served only
 * when asked for; and each request is bounded (cli/codec-limits.ts).
 */

const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64');
const Body = z.object({
  payloads: z.array(z.object({ metadata: z.record(z.string(), base64).nullish(), data: base64.nullish() })),
});
type JsonPayload = z.infer<typeof Body>['payloads'][number];

const fromJson = ({ metadata, data }: JsonPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(data ?? '', 'base64'),
});

const toJson = ({ metadata, data }: Payload) => ({
  metadata: Object.fromEntries(
    Object.entries(metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')]),
  ),
  data: Buffer.from(data ?? []).toString('base64'),
});

export interface CodecServerOptions {
  codec: PayloadCodec;
  port?: number;
  host?: string;
  /** The Web UI's origin (scheme://host:port), or `*`. */
  allowedOrigin?: string;
  /** When set, every request needs `Authorization: Bearer <token>`. */
  token?: string;
  /** Serve `POST /encode` too (the Web UI only decodes; `temporal` CLI users who send data may need it). */
  allowEncode?: boolean;
  /** More names (host or host:port) that clients may use to reach the server, e.g. behind a reverse proxy. */
  allowedHosts?: string[];
  /** A proxy in front authenticates every request: no token needed off loopback. */
  behindProxy?: boolean;
  /** Tighter or looser bounds on one request than DEFAULT_CODEC_LIMITS. */
  limits?: Partial<CodecServerLimits>;
}

export interface RunningCodecServer {
  url: string;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const tooLarge = () => new RefusedRequest(413, `the body is larger than ${maxBytes} bytes`);
  // Refused before a byte is read when the client says how much it sends; else as it streams in.
  if (Number(req.headers['content-length'] ?? 0) > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new RefusedRequest(400, 'the body is not valid JSON');
  }
}

function authorized(req: IncomingMessage, token: string | undefined): boolean {
  if (!token) return true;
  const given = Buffer.from(/^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** `--allow-origin '*'` lets any web page call the server: only with a token. */
export class OpenOriginError extends Error {
  constructor() {
    super(
      "--allow-origin '*' needs RUNBOOKS_CODEC_SERVER_TOKEN: without a token, any web page could decrypt history " +
        'through this server. Name the Web UI origin instead (e.g. http://localhost:8233), or set a token.',
    );
    this.name = 'OpenOriginError';
  }
}

/** A POST a page may send cross-origin without a preflight has a "simple" type (text/plain, form, multipart). */
const isJson = (req: IncomingMessage) => /^application\/json\s*(?:;|$)/i.test(req.headers['content-type'] ?? '');

/** How many payloads a parsed body holds, before the schema walks them all. */
const payloadCount = (body: unknown): number => {
  const payloads = typeof body === 'object' && body !== null ? (body as { payloads?: unknown }).payloads : undefined;
  return Array.isArray(payloads) ? payloads.length : 0;
};

/** Off loopback without a token or --behind-proxy: whoever reaches the port could decrypt all history. */
const codecServerRefusal = (host: string) =>
  `the codec server would listen on ${host} with no token, and anyone who reaches it could decrypt all history: ` +
  'set RUNBOOKS_CODEC_SERVER_TOKEN (or --token-file, RUNBOOKS_CODEC_SERVER_TOKEN_FILE), or say --behind-proxy when ' +
  'a proxy in front authenticates every request (docs/security.md)';

export async function startCodecServer(options: CodecServerOptions): Promise<RunningCodecServer> {
  const allowedOrigin = options.allowedOrigin ?? DEFAULT_ALLOWED_ORIGIN;
  if (allowedOrigin === '*' && !options.token) throw new OpenOriginError();
  const bindHost = options.host ?? '127.0.0.1';
  checkExposure(bindHost, options.token, options.behindProxy === true, codecServerRefusal);
  const limits: CodecServerLimits = { ...DEFAULT_CODEC_LIMITS, ...options.limits };
  let hosts = new Set<string>();
  let inFlight = 0;

  const cors = (req: IncomingMessage, res: ServerResponse) => {
    const origin = req.headers.origin;
    if (allowedOrigin === '*' || origin === allowedOrigin) {
      res.setHeader('Access-Control-Allow-Origin', allowedOrigin === '*' ? '*' : allowedOrigin);
      // The UI may send its session's credentials; `*` cannot be combined with them.
      if (allowedOrigin !== '*') res.setHeader('Access-Control-Allow-Credentials', 'true');
    }
    res.setHeader('Vary', 'Origin');
  };

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    // Before anything else, preflights included: a rebound DNS name must learn nothing, not even CORS headers.
    const host = req.headers.host;
    if (!host || !hosts.has(normalizeHostHeader(host))) {
      throw new RefusedRequest(421, `this server does not answer to the host '${host ?? ''}'`);
    }
    cors(req, res);
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'OPTIONS') {
      // Preflights carry no credentials: answer them without the token.
      res.writeHead(204, {
        'Access-Control-Allow-Methods': 'POST, OPTIONS',
        'Access-Control-Allow-Headers': 'Content-Type, Authorization, X-Namespace',
        'Access-Control-Max-Age': '600',
      });
      res.end();
      return;
    }
    if (path !== '/encode' && path !== '/decode') throw new RefusedRequest(404, 'only POST /encode and POST /decode');
    if (req.method !== 'POST') throw new RefusedRequest(405, `${path} takes POST`);
    if (path === '/encode' && !options.allowEncode) {
      throw new RefusedRequest(403, 'POST /encode is off: start the server with --allow-encode to serve it');
    }
    if (!authorized(req, options.token)) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      throw new RefusedRequest(401, 'a valid bearer token is required');
    }
    if (!isJson(req)) throw new RefusedRequest(415, `${path} takes Content-Type: application/json`);
    if (inFlight >= limits.maxRequestsInFlight) {
      res.setHeader('Retry-After', '1');
      throw new RefusedRequest(503, 'too many requests at once: retry shortly');
    }
    inFlight += 1;
    try {
      const body = await readBody(req, limits.maxBodyBytes);
      if (payloadCount(body) > limits.maxPayloads) {
        throw new RefusedRequest(413, `more than ${limits.maxPayloads} payloads in one request`);
      }
      const parsed = Body.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new RefusedRequest(400, `${issue?.path.join('.') ?? 'body'}: ${issue?.message ?? 'invalid'}`);
      }
      const code = (chunk: Payload[]) =>
        path === '/encode' ? options.codec.encode(chunk) : options.codec.decode(chunk);
      const out = await codeInChunks(parsed.data.payloads.map(fromJson), code, limits);
      send(res, 200, { payloads: out.map(toJson) });
    } finally {
      inFlight -= 1;
    }
  };

  const deadlines = clientDeadlines(limits.headersTimeoutMs, limits.requestTimeoutMs);
  const server = createServer(deadlines, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (err instanceof RefusedRequest) {
        return send(res, err.status, { error: err.message });
      }
      if (err instanceof PayloadDecryptionError) return send(res, 422, { error: err.message });
      // The client went away (or was timed out) mid-body: there is no one to answer.
      if (req.destroyed) return;
      // Nothing of a payload or a key reaches the log or the answer.
      console.error(`codec server: ${(err as Error).message}`);
      send(res, 500, { error: 'internal error' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, bindHost, resolve);
  });
  const { address, port } = server.address() as AddressInfo;
  hosts = acceptedHosts(bindHost, port, allowedOrigin, options.allowedHosts);
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const HELP = helpFor('codec-server');

/** `runbooks codec-server`: serves until SIGINT or SIGTERM. */
export async function codecServerCommand(argv: string[]): Promise<void> {
  const { values, positionals: extra } = parseCommandLine(argv, HELP);
  positionals(extra, [], HELP);
  const port = wholeNumber(values.port, '--port', 0, 65535, HELP);
  const origin = values['allow-origin'];
  if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) {
    throw new UsageError(`--allow-origin must be scheme://host[:port] or *, not '${origin}'\n${HELP.usage}`);
  }
  let keys: CodecKeys | undefined;
  let access: CodecServerAccess;
  try {
    keys = loadCodecKeys();
    access = loadCodecServerAccess(process.env, values['token-file']);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  if (!keys) throw new UsageError(`no keys: set RUNBOOKS_CODEC_KEY or RUNBOOKS_CODEC_KEYS_FILE\n${HELP.usage}`);
  const { token } = access;
  if (origin === '*' && !token) throw new UsageError(new OpenOriginError().message);
  const behindProxy = values['behind-proxy'] || access.behindProxy;

  const server = await startCodecServer({
    codec: new AesGcmCodec(keys),
    port,
    host: values.host,
    allowedOrigin: origin,
    token,
    allowEncode: values['allow-encode'],
    allowedHosts: values['allow-host'],
    behindProxy,
  });
  console.log(
    `codec server at ${server.url} (keys: ${[...keys.keys.keys()].join(', ')}; current: ${keys.current}; ` +
      `origin: ${origin}; token: ${token ? 'required' : 'none'}${behindProxy ? '; behind a proxy' : ''}; /encode: ${values['allow-encode'] ? 'on' : 'off'})\n` +
      `In the Web UI: Settings (Data Encoder) → ${server.url}, or start the dev server with --ui-codec-endpoint ${server.url}`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
}
