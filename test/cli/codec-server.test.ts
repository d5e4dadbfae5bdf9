// The codec server speaks Temporal's codec-server protocol over HTTP, as the Web UI calls it.
import { randomBytes } from 'node:crypto';
import { startCodecServer, type RunningCodecServer } from '../../cli/codec-server';
import { AesGcmCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA } from '../../runtime/codec';

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
beforeAll(async () => {
  open = await startCodecServer({ codec });
  guarded = await startCodecServer({ codec, token: TOKEN, allowedOrigin: UI });
});
afterAll(async () => {
  await open.close();
  await guarded.close();
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
  expect((await fetch(`${open.url}/decode`, { method: 'POST', body: '{' })).status).toBe(400);
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
