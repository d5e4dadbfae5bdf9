// The codec server speaks Temporal's codec-server protocol over HTTP, as the Web UI calls it, and trusts little: no
// `*` without a token, no Host but its own (DNS rebinding), no /encode unless asked, no token-less bind off loopback,
// only JSON, and bounded requests that cannot starve one another.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { DEFAULT_CODEC_LIMITS } from '../../cli/codec-limits';
import { OpenOriginError, startCodecServer, type RunningCodecServer } from '../../cli/codec-server';
import { UsageError } from '../../operator/errors';
import { AesGcmCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA } from '../../runtime/codec';
import { runCliFromSource, spawnCliFromSource } from '../helpers/cli-from-source';

const UI = 'http://localhost:8233';
const TOKEN = 'a-codec-server-token-for-tests';
const codec = new AesGcmCodec({ current: 'k1', keys: new Map([['k1', randomBytes(32)]]) });
const b64 = (text: string) => Buffer.from(text).toString('base64');
const unb64 = (text: string | undefined) => Buffer.from(text ?? '', 'base64').toString('utf8');

interface JsonPayloads {
  payloads: { metadata: Record<string, string>; data: string }[];
}

const PAYLOAD = { metadata: { encoding: b64('json/plain') }, data: b64('{"rows":42,"path":"/exports/a.csv"}') };

let open: RunningCodecServer;
let guarded: RunningCodecServer;
let decodeOnly: RunningCodecServer;
beforeAll(async () => {
  open = await startCodecServer({ codec, allowEncode: true });
  guarded = await startCodecServer({ codec, token: TOKEN, allowedOrigin: UI, allowEncode: true });
  decodeOnly = await startCodecServer({ codec });
});
afterAll(async () => {
  await open.close();
  await guarded.close();
  await decodeOnly.close();
});

function post(server: RunningCodecServer, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', Origin: UI, ...headers },
    body: JSON.stringify(body),
  });
}

test('a payload round-trips: /encode gives ciphertext with the key ID, /decode gives the original back', async () => {
  const encodedResponse = await post(open, '/encode', { payloads: [PAYLOAD] });
  expect(encodedResponse.status).toBe(200);
  const encoded = (await encodedResponse.json()) as JsonPayloads;
  const [cipher] = encoded.payloads;
  expect(unb64(cipher?.metadata.encoding)).toBe(ENCRYPTED_ENCODING);
  expect(unb64(cipher?.metadata[KEY_ID_METADATA])).toBe('k1');
  expect(unb64(cipher?.data)).not.toContain('rows');

  const decodedResponse = await post(open, '/decode', encoded);
  expect(decodedResponse.status).toBe(200);
  expect(decodedResponse.headers.get('access-control-allow-origin')).toBe(UI);
  expect(await decodedResponse.json()).toEqual({ payloads: [PAYLOAD] });
});

test('with a token, a request without it (or with a wrong one) is refused; with it, it is served', async () => {
  const without = await post(guarded, '/decode', { payloads: [PAYLOAD] });
  expect(without.status).toBe(401);
  expect(without.headers.get('www-authenticate')).toBe('Bearer');
  // The UI can read the refusal: CORS headers are on error answers too.
  expect(without.headers.get('access-control-allow-origin')).toBe(UI);
  expect((await post(guarded, '/decode', { payloads: [] }, { Authorization: 'Bearer wrong' })).status).toBe(401);
  const ok = await post(guarded, '/decode', { payloads: [PAYLOAD] }, { Authorization: `Bearer ${TOKEN}` });
  expect(ok.status).toBe(200);
  expect(await ok.json()).toEqual({ payloads: [PAYLOAD] });
});

test('a CORS preflight from the Web UI is answered without the token', async () => {
  const response = await fetch(`${guarded.url}/decode`, {
    method: 'OPTIONS',
    headers: {
      Origin: UI,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'content-type,x-namespace,authorization',
    },
  });
  expect(response.status).toBe(204);
  expect(response.headers.get('access-control-allow-origin')).toBe(UI);
  expect(response.headers.get('access-control-allow-credentials')).toBe('true');
  expect(response.headers.get('access-control-allow-methods')).toContain('POST');
  expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toEqual(
    expect.stringContaining('x-namespace'),
  );
  // Another origin gets no grant.
  const other = await fetch(`${guarded.url}/decode`, { method: 'OPTIONS', headers: { Origin: 'http://evil.test' } });
  expect(other.headers.get('access-control-allow-origin')).toBeNull();
});

test('bad requests are refused with a reason, and a tampered payload does not decode', async () => {
  expect((await post(open, '/decode', { payloads: [{ data: '***' }] })).status).toBe(400);
  const notJson = { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{' };
  expect((await fetch(`${open.url}/decode`, notJson)).status).toBe(400);
  expect((await fetch(`${open.url}/decode`)).status).toBe(405);
  expect((await post(open, '/other', {})).status).toBe(404);

  const encoded = (await (await post(open, '/encode', { payloads: [PAYLOAD] })).json()) as JsonPayloads;
  const cipher = encoded.payloads[0] as JsonPayloads['payloads'][number];
  const bytes = Buffer.from(cipher.data, 'base64');
  bytes[15] = (bytes[15] ?? 0) ^ 1;
  const tampered = await post(open, '/decode', { payloads: [{ ...cipher, data: bytes.toString('base64') }] });
  expect(tampered.status).toBe(422);
  expect(((await tampered.json()) as { error: string }).error).toMatch(/fails authentication/);
});

/** A request with the Host header given (fetch always sends the URL's own); `undefined`: no Host header at all. */
function withHost(
  server: RunningCodecServer,
  method: string,
  path: string,
  host: string | undefined,
): Promise<{ status: number; headers: Record<string, unknown> }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        setHost: host !== undefined,
        headers: { ...(host === undefined ? {} : { Host: host }), Origin: UI, 'Content-Type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(method === 'POST' ? JSON.stringify({ payloads: [] }) : undefined);
  });
}

test('a Host header that names neither the server nor the allowed origin is refused (DNS rebinding)', async () => {
  const port = new URL(open.url).port;
  const rebound = await withHost(open, 'POST', '/decode', `rebound.attacker.test:${port}`);
  expect(rebound.status).toBe(421);
  // Not even a preflight learns anything.
  const preflight = await withHost(open, 'OPTIONS', '/decode', `rebound.attacker.test:${port}`);
  expect(preflight.status).toBe(421);
  expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  // Without a Host header, node:http itself refuses an HTTP/1.1 request.
  expect((await withHost(open, 'POST', '/decode', undefined)).status).toBe(400);
  expect((await withHost(open, 'POST', '/decode', `127.0.0.1:${Number(port) + 1}`)).status).toBe(421);
  // Its own names, bound to loopback, and the allowed origin's host are served.
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, 'localhost:8233']) {
    expect([host, (await withHost(open, 'POST', '/decode', host)).status]).toEqual([host, 200]);
  }
});

test('names given with allowedHosts (a proxy in front) are served too', async () => {
  const proxied = await startCodecServer({ codec, allowedHosts: ['codec.internal.example'] });
  try {
    expect((await withHost(proxied, 'POST', '/decode', 'codec.internal.example')).status).toBe(200);
    expect((await withHost(proxied, 'POST', '/decode', 'codec.internal.example:443')).status).toBe(200);
    expect((await withHost(proxied, 'POST', '/decode', 'other.internal.example')).status).toBe(421);
  } finally {
    await proxied.close();
  }
});

test('/encode is served only when asked for; /decode always', async () => {
  const encode = await post(decodeOnly, '/encode', { payloads: [PAYLOAD] });
  expect(encode.status).toBe(403);
  expect(((await encode.json()) as { error: string }).error).toContain('--allow-encode');
  const encoded = (await (await post(open, '/encode', { payloads: [PAYLOAD] })).json()) as JsonPayloads;
  const decoded = await post(decodeOnly, '/decode', encoded);
  expect(decoded.status).toBe(200);
  expect(await decoded.json()).toEqual({ payloads: [PAYLOAD] });
});

test("'*' as the allowed origin needs a token, in the server and in the command (exit code 2)", async () => {
  await expect(startCodecServer({ codec, allowedOrigin: '*' })).rejects.toBeInstanceOf(OpenOriginError);
  const withToken = await startCodecServer({ codec, allowedOrigin: '*', token: TOKEN });
  await withToken.close();
  const key = `k1:${randomBytes(32).toString('base64')}`;
  const env = { PATH: process.env.PATH, RUNBOOKS_CODEC_KEY: key };
  const refused = runCliFromSource(['codec-server', '--port', '0', '--allow-origin', '*'], env);
  expect(refused.status).toBe(2);
  expect(refused.stderr).toContain("--allow-origin '*' needs RUNBOOKS_CODEC_SERVER_TOKEN");
});

const KEY_ENV = { PATH: process.env.PATH, RUNBOOKS_CODEC_KEY: `k1:${randomBytes(32).toString('base64')}` };

test('off loopback, it refuses to start without a token or --behind-proxy (exit code 2, one line)', async () => {
  // Closed again if it did start, so that a failing run does not leave it listening.
  const outcome = await startCodecServer({ codec, host: '0.0.0.0' }).then(
    (started) => started.close().then(() => 'started'),
    (err: unknown) => err,
  );
  expect(outcome).toBeInstanceOf(UsageError);
  expect((outcome as UsageError).message).toMatch(/would listen on 0\.0\.0\.0 with no token/);
  const refused = runCliFromSource(['codec-server', '--port', '0', '--host', '0.0.0.0'], KEY_ENV);
  // The process ended: nothing is left listening.
  expect(refused.status).toBe(2);
  expect(refused.stdout).toBe('');
  expect(refused.stderr.trim().split('\n')).toEqual([
    expect.stringMatching(/^the codec server would listen on 0\.0\.0\.0 with no token.*--behind-proxy/),
  ]);
});

test('off loopback, it starts with a token, or with --behind-proxy', async () => {
  const withToken = await startCodecServer({ codec, host: '0.0.0.0', token: TOKEN });
  try {
    const url = withToken.url.replace('0.0.0.0', '127.0.0.1');
    const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN}` };
    const body = JSON.stringify({ payloads: [PAYLOAD] });
    expect((await fetch(`${url}/decode`, { method: 'POST', headers, body })).status).toBe(200);
  } finally {
    await withToken.close();
  }
  const proxied = await startCodecServer({ codec, host: '0.0.0.0', behindProxy: true });
  await proxied.close();
});

/** Starts `runbooks codec-server` as a child and resolves with its first line, once it listens (or its exit). */
function startCommand(args: string[], env: Record<string, string | undefined>) {
  const child = spawnCliFromSource(['codec-server', '--port', '0', ...args], env);
  const stopped = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const firstLine = new Promise<string>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0] ?? '');
    });
    void stopped.then(() => resolve(`exited: ${err.trim()}`));
  });
  const stop = async () => {
    child.kill('SIGINT');
    return stopped;
  };
  return { firstLine, stop };
}

test('off loopback, a token from --token-file or RUNBOOKS_CODEC_SERVER_BEHIND_PROXY lets the command start', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'codec-token-'));
  try {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const withFile = startCommand(['--host', '0.0.0.0', '--token-file', tokenFile], KEY_ENV);
    const line = await withFile.firstLine;
    await withFile.stop();
    expect(line).toMatch(/^codec server at http:\/\/0\.0\.0\.0:\d+ .*token: required/);

    // The file's token is the one asked for.
    const again = startCommand(['--host', '127.0.0.1', '--token-file', tokenFile], KEY_ENV);
    const againUrl = /at (\S+)/.exec(await again.firstLine)?.[1] ?? '';
    const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN}` };
    const body = JSON.stringify({ payloads: [] });
    const answered = await fetch(`${againUrl}/decode`, { method: 'POST', headers, body });
    const refused = await fetch(`${againUrl}/decode`, {
      method: 'POST',
      headers: { ...headers, Authorization: 'Bearer wrong-token-of-length' },
      body,
    });
    await again.stop();
    expect([answered.status, refused.status]).toEqual([200, 401]);

    // A token file others can read is refused, like every key file.
    const shared = join(dir, 'shared');
    writeFileSync(shared, `${TOKEN}\n`, { mode: 0o644 });
    const refusedFile = runCliFromSource(['codec-server', '--port', '0', '--token-file', shared], KEY_ENV);
    expect(refusedFile.status).toBe(2);
    expect(refusedFile.stderr).toMatch(/--token-file/);

    const proxied = startCommand(['--host', '0.0.0.0'], { ...KEY_ENV, RUNBOOKS_CODEC_SERVER_BEHIND_PROXY: 'true' });
    const proxiedLine = await proxied.firstLine;
    await proxied.stop();
    expect(proxiedLine).toMatch(/token: none; behind a proxy/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The codec, counting the payloads each call decodes, and telling `onDecode` of every call. */
class CountingCodec implements PayloadCodec {
  readonly decodeCalls: number[] = [];
  onDecode: (count: number) => void = () => undefined;
  encode(payloads: Payload[]): Promise<Payload[]> {
    return codec.encode(payloads);
  }
  decode(payloads: Payload[]): Promise<Payload[]> {
    this.decodeCalls.push(payloads.length);
    this.onDecode(payloads.length);
    return codec.decode(payloads);
  }
}

test('too many payloads, too many bytes or too big a body is refused with 413, before any is decoded', async () => {
  const counting = new CountingCodec();
  const limits = { maxPayloads: 10, maxBodyBytes: 8192, maxCodedBytes: 1000, chunkPayloads: 1 };
  const small = await startCodecServer({ codec: counting, limits });
  try {
    const many = await post(small, '/decode', { payloads: Array.from({ length: 11 }, () => PAYLOAD) });
    expect(many.status).toBe(413);
    expect(await many.json()).toEqual({ error: 'more than 10 payloads in one request' });
    const big = await post(small, '/decode', { payloads: [{ ...PAYLOAD, data: b64('x'.repeat(9000)) }] });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: string }).error).toMatch(/body is larger than 8192 bytes/);
    expect(counting.decodeCalls).toEqual([]);

    // Each under the body limit, together over the coded bytes: it stops at the second and sends none of them.
    const heavy = { ...PAYLOAD, data: b64('y'.repeat(600)) };
    const tooManyBytes = await post(small, '/decode', { payloads: [heavy, heavy, heavy, heavy] });
    expect(tooManyBytes.status).toBe(413);
    expect(await tooManyBytes.json()).toEqual({ error: 'the coded payloads exceed 1000 bytes in one request' });
    expect(counting.decodeCalls).toEqual([1, 1]);
  } finally {
    await small.close();
  }
});

test('a body a page could send cross-origin without a preflight (not application/json) is refused with 415', async () => {
  const counting = new CountingCodec();
  const server = await startCodecServer({ codec: counting });
  try {
    const body = JSON.stringify({ payloads: [PAYLOAD] });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const response = await post(server, '/decode', { payloads: [PAYLOAD] }, { 'Content-Type': type });
      expect([type, response.status]).toEqual([type, 415]);
    }
    // fetch's own type for a string body: text/plain;charset=UTF-8.
    expect((await fetch(`${server.url}/decode`, { method: 'POST', body })).status).toBe(415);
    expect(counting.decodeCalls).toEqual([]);
    const json = await post(
      server,
      '/decode',
      { payloads: [PAYLOAD] },
      { 'Content-Type': 'application/json; charset=utf-8' },
    );
    expect(json.status).toBe(200);
  } finally {
    await server.close();
  }
});

test('a one-payload decode is answered while a maximal request is decoded', async () => {
  const counting = new CountingCodec();
  const server = await startCodecServer({ codec: counting });
  try {
    // As many payloads as allowed, as big as the body allows.
    const plain = { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('z'.repeat(2900)) };
    const encrypted = await codec.encode(Array.from({ length: DEFAULT_CODEC_LIMITS.maxPayloads }, () => plain));
    const maximal = { payloads: encrypted.map((p) => ({ metadata: mapValues(p.metadata), data: base64Of(p.data) })) };
    expect(JSON.stringify(maximal).length).toBeLessThanOrEqual(DEFAULT_CODEC_LIMITS.maxBodyBytes);
    const [one] = maximal.payloads;

    const answered: string[] = [];
    let small: Promise<Response> | undefined;
    // Sent once the maximal request is being decoded.
    counting.onDecode = () => {
      small ??= post(server, '/decode', { payloads: [one] }).then((response) => {
        answered.push('small');
        return response;
      });
    };
    const big = await post(server, '/decode', maximal);
    answered.push('big');
    expect(big.status).toBe(200);
    expect(((await big.json()) as JsonPayloads).payloads).toHaveLength(DEFAULT_CODEC_LIMITS.maxPayloads);
    expect((await small)?.status).toBe(200);
    expect(answered).toEqual(['small', 'big']);
  } finally {
    await server.close();
  }
});

const base64Of = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('base64');
const mapValues = (metadata: Payload['metadata']) =>
  Object.fromEntries(Object.entries(metadata ?? {}).map(([k, v]) => [k, base64Of(v)]));

test('beyond its requests in flight it answers 503 with Retry-After, and serves again once they end', async () => {
  const counting = new CountingCodec();
  const server = await startCodecServer({ codec: counting, limits: { maxRequestsInFlight: 1 } });
  try {
    // One request holds the only slot: its body is never finished.
    const held = request(`${server.url}/decode`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Length': '1000' },
    });
    held.on('error', () => undefined);
    held.write('{"payloads": [');
    // Once the server reads it, the next request finds no slot.
    const statusUntil = async (wanted: number) => {
      let response = await post(server, '/decode', { payloads: [] });
      for (let attempt = 0; attempt < 50 && response.status !== wanted; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        response = await post(server, '/decode', { payloads: [] });
      }
      return response;
    };
    const busy = await statusUntil(503);
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('1');
    held.destroy();
    const status = (await statusUntil(200)).status;
    expect(status).toBe(200);
  } finally {
    await server.close();
  }
});

test('a connection that sends its headers or its body too slowly is closed', async () => {
  const server = await startCodecServer({ codec, limits: { headersTimeoutMs: 300, requestTimeoutMs: 600 } });
  try {
    const { hostname, port } = new URL(server.url);
    const dribble = (start: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(Number(port), hostname, () => socket.write(start));
        let answer = '';
        socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
        // One byte a while, for longer than the server allows; it stops when the server closes the connection.
        const timer = setInterval(() => socket.write(' '), 100);
        socket.on('close', () => {
          clearInterval(timer);
          resolve(answer.split('\r\n')[0] ?? '');
        });
        socket.on('error', () => undefined);
      });
    const headers = `POST /decode HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\n`;
    expect(await dribble(headers.replace(/\r\n$/, '\r\nX-Slow: '))).toMatch(/^HTTP\/1\.1 408/);
    expect(await dribble(`${headers}Content-Length: 100000\r\n\r\n{"payloads": [`)).toMatch(/^HTTP\/1\.1 408/);
  } finally {
    await server.close();
  }
});
