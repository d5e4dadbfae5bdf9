// Statuses map to typed errors; network failures and timeouts are NetworkErrors; no error ever carries a secret.
import { inspect } from 'node:util';
import { TokenProvider } from '../../api/auth';
import {
  BackupServiceError,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  InvalidResponseError,
  NetworkError,
  NotFoundError,
  ServerError,
  TooManyRequestsError,
  UnexpectedStatusError,
  parseRetryAfter,
} from '../../api/errors';
import { HttpTransport } from '../../api/http';
import { REDACTED, redact, registerSecret } from '../../api/redact';
import {
  CREDENTIALS,
  PROJECT_ID,
  recordingServerForSuite,
  apiCredentials,
  closedPort,
  delay,
  failureOf,
  makeClient,
  mpaRequest,
  vault,
} from './helpers';

const server = recordingServerForSuite();

const VAULT_PATH = `/v1/projects/${PROJECT_ID}/vaults/vault-1`;

describe('status mapping', () => {
  test.each([
    [400, BadRequestError, 'BAD_REQUEST'],
    [403, ForbiddenError, 'FORBIDDEN'],
    [404, NotFoundError, 'NOT_FOUND'],
    [409, ConflictError, 'CONFLICT'],
  ] as const)('%i is a non-retryable typed error carrying the service text', async (status, type, code) => {
    server.reply(status, { error: `the service says no (${status})` });
    const err = await failureOf(() => makeClient(server).getVault('vault-1'));

    expect(err).toBeInstanceOf(type);
    expect(err).toBeInstanceOf(BackupServiceError);
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({
      name: type.name,
      code,
      status,
      retryable: false,
      method: 'GET',
      path: VAULT_PATH,
      serviceMessage: `the service says no (${status})`,
    });
    expect((err as Error).message).toContain(`the service says no (${status})`);
    expect((err as Error).message).toContain(`GET ${VAULT_PATH}`);
    expect(server.apiRequests).toHaveLength(1);
  });

  test.each([500, 502, 503])('%i is a retryable ServerError', async (status) => {
    server.reply(status, { error: 'backend down' });
    const err = await failureOf(() => makeClient(server).getVault('vault-1'));
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({ code: 'SERVER_ERROR', status, retryable: true, serviceMessage: 'backend down' });
  });

  test('429 with Retry-After: 7 is retryable with retryAfterSeconds 7', async () => {
    server.reply(429, { error: 'too many on-demand backups' }, { 'retry-after': '7' });
    const err = await failureOf(() => makeClient(server).takeSnapshot('res-1', { vaultId: 'v', retentionDays: 1 }));
    expect(err).toBeInstanceOf(TooManyRequestsError);
    expect(err).toMatchObject({
      code: 'TOO_MANY_REQUESTS',
      status: 429,
      retryable: true,
      retryAfterSeconds: 7,
      serviceMessage: 'too many on-demand backups',
    });
  });

  test('429 without Retry-After has retryAfterSeconds undefined', async () => {
    server.reply(429);
    const err = await failureOf(() => makeClient(server).takeSnapshot('res-1', { vaultId: 'v', retentionDays: 1 }));
    expect(err).toBeInstanceOf(TooManyRequestsError);
    expect((err as TooManyRequestsError).retryAfterSeconds).toBeUndefined();
    expect((err as TooManyRequestsError).retryable).toBe(true);
  });

  test('429 with an HTTP-date Retry-After gives the seconds until then', async () => {
    server.reply(429, undefined, { 'retry-after': new Date(Date.now() + 30_000).toUTCString() });
    const err = await failureOf(() => makeClient(server).takeSnapshot('res-1', { vaultId: 'v', retentionDays: 1 }));
    const seconds = (err as TooManyRequestsError).retryAfterSeconds;
    expect(seconds).toBeGreaterThanOrEqual(28);
    expect(seconds).toBeLessThanOrEqual(31);
  });

  test('parseRetryAfter reads seconds and HTTP dates, and ignores garbage', () => {
    const now = Date.parse('2025-03-01T12:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter(' 2.5 ', now)).toBe(2.5);
    expect(parseRetryAfter('Sat, 01 Mar 2025 12:01:00 GMT', now)).toBe(60);
    expect(parseRetryAfter('Sat, 01 Mar 2025 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  test('an empty error body still gives a typed error, without a service message', async () => {
    server.reply(404);
    const err = await failureOf(() => makeClient(server).getVault('vault-1'));
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).serviceMessage).toBeUndefined();
    expect((err as Error).message).toContain('not found');
  });

  test('a non-JSON error body gives a typed error, without a service message', async () => {
    server.handler = () => ({ status: 409, text: '<html>conflict</html>' });
    const err = await failureOf(() => makeClient(server).getVault('vault-1'));
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as ConflictError).serviceMessage).toBeUndefined();
  });

  test('a status outside the mapping is a non-retryable UnexpectedStatusError', async () => {
    server.reply(418, { error: 'teapot' });
    const err = await failureOf(() => makeClient(server).getVault('vault-1'));
    expect(err).toBeInstanceOf(UnexpectedStatusError);
    expect(err).toMatchObject({ status: 418, retryable: false, serviceMessage: 'teapot' });
  });

  test('a success status the call does not expect is an UnexpectedStatusError', async () => {
    server.reply(200, { vault: vault() });
    const err = await failureOf(() =>
      makeClient(server).createVault({ name: 'v', region: 'r', vaultAttributes: { cloudProvider: 'PROVIDER_A' } }),
    );
    expect(err).toBeInstanceOf(UnexpectedStatusError);
    expect(err).toMatchObject({ status: 200, retryable: false });
  });
});

describe('unreadable responses', () => {
  test('a body that breaks the schema is an InvalidResponseError naming the field', async () => {
    server.reply(200, { vault: { ...vault(), id: 5 } });
    const err = await failureOf(() => makeClient(server).getVault('vault-1'));
    expect(err).toBeInstanceOf(InvalidResponseError);
    expect(err).toMatchObject({ code: 'INVALID_RESPONSE', retryable: false });
    expect((err as Error).message).toContain('vault.id');
  });

  test('a non-JSON success body is an InvalidResponseError', async () => {
    server.handler = () => ({ status: 200, text: 'OK' });
    expect(await failureOf(() => makeClient(server).getVault('vault-1'))).toBeInstanceOf(InvalidResponseError);
  });

  test('a protected call answered 202 without a jobId is an InvalidResponseError, not a raw ZodError', async () => {
    server.reply(202, { actionApprovalRequest: mpaRequest() });
    const input = { destination: {}, restoreAccountId: 'ra-1' };
    const err = await failureOf(() => makeClient(server).restoreBucket('res-1', 'snap-1', input));
    expect(err).toBeInstanceOf(InvalidResponseError);
  });
});

describe('network failures', () => {
  test('connection refused on the token call is a retryable NetworkError', async () => {
    const client = makeClient(server, { baseUrl: `http://127.0.0.1:${await closedPort()}/api` });
    const err = await failureOf(() => client.getVault('vault-1'));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ code: 'NETWORK_ERROR', retryable: true, timedOut: false });
    expect((err as Error).message).toContain('ECONNREFUSED');
  });

  test('connection refused on a service call is a NetworkError naming the call', async () => {
    const tokenProvider = new TokenProvider({
      transport: new HttpTransport({ baseUrl: server.url() }),
      credentials: CREDENTIALS,
    });
    const client = makeClient(server, { baseUrl: `http://127.0.0.1:${await closedPort()}/api`, tokenProvider });
    const err = await failureOf(() => client.getVault('vault-1'));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ method: 'GET', path: VAULT_PATH, timedOut: false, retryable: true });
    expect(server.tokenRequests).toHaveLength(1);
  });

  test('a connection reset mid-call is a retryable NetworkError', async () => {
    server.handler = () => 'reset';
    const err = await failureOf(() => makeClient(server).takeSnapshot('res-1', { vaultId: 'v', retentionDays: 1 }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ retryable: true, timedOut: false });
  });

  test('a server that never answers times out after timeoutMs: NetworkError with timedOut true', async () => {
    server.handler = () => 'hang';
    const client = makeClient(server, { timeoutMs: 200 });
    const started = Date.now();
    const err = await failureOf(() => client.getVault('vault-1'));
    const elapsed = Date.now() - started;

    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ timedOut: true, retryable: true, method: 'GET', path: VAULT_PATH });
    expect((err as Error).message).toContain('200 ms');
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeLessThan(3000);
    expect(server.apiRequests).toHaveLength(1);
  });

  test('the calls of a transport share one deadline timer: a hang after answered calls still times out', async () => {
    let calls = 0;
    server.handler = async () => {
      calls += 1;
      if (calls === 3) return 'hang';
      await delay(50);
      return { status: 200, json: { vault: vault() } };
    };
    const client = makeClient(server, { timeoutMs: 200 });
    await client.getVault('vault-1');
    await client.getVault('vault-1');
    // Two at once: whichever reaches the server first hangs, the other is answered within the deadline.
    const settled = await Promise.allSettled([client.getVault('vault-1'), client.getVault('vault-1')]);

    expect(settled.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const hung = settled.find((r) => r.status === 'rejected');
    expect(hung?.reason).toMatchObject({ timedOut: true, retryable: true });
  });
});

describe('no error carries a secret', () => {
  /** Every rendering of the error a log line or a workflow history could hold. */
  function renderings(err: unknown): string[] {
    expect(err).toBeInstanceOf(BackupServiceError);
    const e = err as BackupServiceError;
    return [e.message, e.serviceMessage ?? '', String(e), JSON.stringify(e), e.stack ?? '', inspect(e)];
  }

  function expectNoSecret(err: unknown, ...secrets: string[]): void {
    for (const text of renderings(err)) for (const secret of secrets) expect(text).not.toContain(secret);
  }

  test('a service error echoing the client secret and the bearer token is scrubbed', async () => {
    server.handler = (req) => ({
      status: 400,
      json: {
        error:
          `rejected ${req.headers.authorization ?? ''}; token ${(req.headers.authorization ?? '').slice(7)} ` +
          `for ${CREDENTIALS.clientId} with secret ${CREDENTIALS.clientSecret} (clientSecret=${CREDENTIALS.clientSecret})`,
      },
    });
    const err = await failureOf(() => makeClient(server).getVault('vault-1'));
    const token = server.lastToken;

    expect(err).toBeInstanceOf(BadRequestError);
    expectNoSecret(err, CREDENTIALS.clientSecret, token);
    // The rest of the service's text survives.
    expect((err as BadRequestError).serviceMessage).toContain('rejected');
    expect((err as BadRequestError).serviceMessage).toContain(REDACTED);
    expect((err as Error).message).toContain(CREDENTIALS.clientId);
  });

  test.each(['json', 'oauth2'] as const)(
    'a 404 on the %s token call echoing the request is scrubbed',
    async (tokenEndpoint) => {
      const secret = 'p@ss w0rd/+Zq9!secret';
      server.tokenHandler = (req) => ({
        status: 404,
        json: { error: `no credentials for ${req.body}; secret was ${secret}` },
      });
      const client = makeClient(server, {
        tokenEndpoint,
        credentials: { clientId: 'client-404', clientSecret: secret },
      });
      const err = await failureOf(() => client.getVault('vault-1'));

      expect(err).toBeInstanceOf(NotFoundError);
      expectNoSecret(err, secret, encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2));
      expect((err as NotFoundError).serviceMessage).toContain('client-404');
      expect(server.apiRequests).toHaveLength(0);
    },
  );

  test('a secret returned by a rotation is scrubbed from later errors', async () => {
    const rotated = 'rotated-9f8e7d6c5b4a';
    server.reply(200, apiCredentials(rotated));
    const client = makeClient(server);
    await client.rotateCurrentCredentials();
    server.reply(500, { error: `could not store ${rotated}` });
    expectNoSecret(await failureOf(() => client.getVault('vault-1')), rotated);
  });

  test('a timeout error carries no secret', async () => {
    server.handler = () => 'hang';
    const err = await failureOf(() => makeClient(server, { timeoutMs: 100 }).getVault('vault-1'));
    expectNoSecret(err, CREDENTIALS.clientSecret, server.lastToken);
  });
});

describe('redact()', () => {
  test('scrubs a bearer token', () => {
    expect(redact('Authorization: Bearer xyz.abc-123_DEF~+/=')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redact('authorization: bearer eyJhbGciOiJIUzI1NiJ9.e30.sig tail')).toBe(
      `authorization: bearer ${REDACTED} tail`,
    );
  });

  test('scrubs client_secret in form text, leaving the other fields', () => {
    expect(redact('client_id=abc&client_secret=hunter2%2Bx&grant_type=client_credentials')).toBe(
      `client_id=abc&client_secret=${REDACTED}&grant_type=client_credentials`,
    );
  });

  test('scrubs secret-named JSON fields, leaving the other fields', () => {
    expect(redact('{"clientId":"abc","clientSecret":"hunter2"}')).toBe(
      `{"clientId":"abc","clientSecret":"${REDACTED}"}`,
    );
    expect(redact('{"access_token":"t0k3n","expires_in":3600}')).toBe(
      `{"access_token":"${REDACTED}","expires_in":3600}`,
    );
  });

  test('scrubs a registered secret wherever it appears; ignores values too short to be secrets', () => {
    registerSecret('opaque-value-42');
    registerSecret('abc');
    expect(redact('x opaque-value-42 y')).toBe(`x ${REDACTED} y`);
    expect(redact('abc def')).toBe('abc def');
  });

  test('scrubs API keys however they are spelled', () => {
    expect(redact('GET /v1?api_key=k3y-abc&x=1')).toBe(`GET /v1?api_key=${REDACTED}&x=1`);
    expect(redact('{"apiKey":"k3y-abc"}')).toBe(`{"apiKey":"${REDACTED}"}`);
    expect(redact('x-api-key: k3y-abc')).toBe(`x-api-key: ${REDACTED}`);
  });

  test('scrubs a private key in PEM, raw or JSON-escaped', () => {
    const body = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7';
    const pem = (nl: string) => `-----BEGIN EC PRIVATE KEY-----${nl}${body}${nl}-----END EC PRIVATE KEY-----`;
    for (const nl of ['\n', '\\n']) {
      expect(redact(`key: ${pem(nl)}`)).toBe(
        `key: -----BEGIN EC PRIVATE KEY-----${REDACTED}-----END EC PRIVATE KEY-----`,
      );
    }
  });

  test('a registered multi-line secret is scrubbed in a JSON line and line by line', () => {
    const secret = 'first-line-of-a-secret\nsecond-line-of-a-secret';
    registerSecret(secret);
    expect(redact(JSON.stringify({ secret }))).not.toContain('line-of-a-secret');
    expect(redact('only second-line-of-a-secret')).toBe(`only ${REDACTED}`);
  });

  test('leaves ordinary text alone', () => {
    expect(redact('vault vault-1 not found in region-1')).toBe('vault vault-1 not found in region-1');
  });
});

describe('redact() leaves English alone and still takes the secrets', () => {
  test('fixed text naming a token is not rewritten', () => {
    for (const text of [
      'the console would listen on 0.0.0.0 with no token: anyone who reaches it could read the runs',
      'RUNBOOKS_CONSOLE_TOKEN: must be at least 16 characters',
      'the bearer of this message',
      'password: required',
      'set RUNBOOKS_CODEC_SERVER_TOKEN=<token> and send Authorization: Bearer <token>',
    ]) {
      expect(redact(text)).toBe(text);
    }
  });

  test('secret-shaped values after a name, bearer tokens, JWTs and AWS keys are redacted', () => {
    expect(redact('token: abcd1234efgh5678ijkl')).toBe(`token: ${REDACTED}`);
    expect(redact('TOKEN: abcdefghijklmnopqrstuvwx')).toBe(`TOKEN: ${REDACTED}`);
    expect(redact('Authorization: Bearer abcd1234efgh5678ijkl')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redact('sent eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl to it')).toBe(`sent ${REDACTED} to it`);
    expect(redact('key AKIAIOSFODNN7EXAMPLE used')).toBe(`key ${REDACTED} used`);
    expect(redact('password=hunter')).toBe(`password=${REDACTED}`);
  });
});
