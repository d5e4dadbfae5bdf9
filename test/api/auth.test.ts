// Tokens: both endpoints and both dialects, caching, refresh before expiry, one refresh for concurrent callers,
// and one refresh-and-retry on a 401.
import { TokenProvider, requestToken } from '../../api/auth';
import {
  InvalidArgumentError,
  InvalidResponseError,
  NotFoundError,
  ServerError,
  UnauthorizedError,
} from '../../api/errors';
import { HttpTransport } from '../../api/http';
import {
  CREDENTIALS,
  PROJECT_ID,
  recordingServerForSuite,
  delay,
  failureOf,
  makeClient,
  parseJson,
  vault,
  type JsonReply,
  type RecordedRequest,
} from './helpers';

const server = recordingServerForSuite();

function transport(): HttpTransport {
  return new HttpTransport({ baseUrl: server.url() });
}

/** A clock the test moves by hand. */
function manualClock(start = Date.parse('2025-03-01T00:00:00Z')) {
  let now = start;
  return {
    now: () => now,
    advanceSeconds: (seconds: number) => {
      now += seconds * 1000;
    },
  };
}

/** A client whose tokens expire on a clock the test moves by hand. */
function clientOnManualClock(options: { refreshMarginSeconds?: number } = {}) {
  const clock = manualClock();
  const tokenProvider = new TokenProvider({
    transport: transport(),
    credentials: CREDENTIALS,
    now: clock.now,
    ...options,
  });
  return { clock, client: makeClient(server, { tokenProvider }) };
}

describe('requestToken', () => {
  test('/v1/token sends JSON {clientId, clientSecret} without an Authorization header', async () => {
    server.tokenHandler = () => ({
      status: 200,
      json: { access_token: 'tok-json-123456', token_type: 'Bearer', expires_in: 1234 },
    });
    const token = await requestToken(transport(), CREDENTIALS);

    expect(token).toEqual({ accessToken: 'tok-json-123456', expiresInSeconds: 1234 });
    const [req] = server.requests;
    expect(server.requests).toHaveLength(1);
    expect(`${req?.method} ${req?.url}`).toBe('POST /api/v1/token');
    expect(req?.headers['content-type']).toBe('application/json');
    expect(req?.headers.authorization).toBeUndefined();
    expect(parseJson(req?.body ?? '')).toEqual({
      clientId: CREDENTIALS.clientId,
      clientSecret: CREDENTIALS.clientSecret,
    });
  });

  test('/v1/oauth2/token sends the form client_id, client_secret, grant_type=client_credentials', async () => {
    server.tokenHandler = () => ({
      status: 200,
      json: { access_token: 'tok-form-123456', token_type: 'Bearer', expires_in: 43200 },
    });
    const token = await requestToken(transport(), { clientId: 'id with space', clientSecret: 's3cret+/&=x' }, 'oauth2');

    expect(token).toEqual({ accessToken: 'tok-form-123456', expiresInSeconds: 43200 });
    const [req] = server.requests;
    expect(server.requests).toHaveLength(1);
    expect(`${req?.method} ${req?.url}`).toBe('POST /api/v1/oauth2/token');
    expect(req?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(req?.headers.authorization).toBeUndefined();
    const form = new URLSearchParams(req?.body);
    expect([...form.entries()]).toEqual([
      ['client_id', 'id with space'],
      ['client_secret', 's3cret+/&=x'],
      ['grant_type', 'client_credentials'],
    ]);
  });

  test.each([
    ['neutral', { access_token: 'tok-spec-123456', token_type: 'Bearer', expires_in: 600 }, 600],
    ['neutral, no expires_in (12 h default)', { access_token: 'tok-spec-123456', token_type: 'Bearer' }, 43200],
    ['public', { accessToken: 'tok-spec-123456', expirationSeconds: 600 }, 600],
    ['public, no expirationSeconds', { accessToken: 'tok-spec-123456' }, 43200],
    [
      'neutral, unknown fields',
      { access_token: 'tok-spec-123456', expires_in: 600, scope: 'all', futureField: { x: 1 } },
      600,
    ],
  ])('reads the %s dialect', async (_name, body, expiresInSeconds) => {
    server.tokenHandler = () => ({ status: 200, json: body });
    for (const endpoint of ['json', 'oauth2'] as const) {
      await expect(requestToken(transport(), CREDENTIALS, endpoint)).resolves.toEqual({
        accessToken: 'tok-spec-123456',
        expiresInSeconds,
      });
    }
  });

  test('a 200 without any token is an InvalidResponseError', async () => {
    server.tokenHandler = () => ({ status: 200, json: { token_type: 'Bearer', expires_in: 600 } });
    const err = await failureOf(() => requestToken(transport(), CREDENTIALS));
    expect(err).toBeInstanceOf(InvalidResponseError);
  });

  test.each(['json', 'oauth2'] as const)(
    '404 on the %s endpoint is a NotFoundError with the service text',
    async (endpoint) => {
      server.tokenHandler = () => ({ status: 404, json: { error: 'credentials not found' } });
      const err = await failureOf(() => requestToken(transport(), CREDENTIALS, endpoint));
      expect(err).toBeInstanceOf(NotFoundError);
      expect(err).toMatchObject({ status: 404, retryable: false, serviceMessage: 'credentials not found' });
    },
  );

  test('empty credentials are refused before anything is sent', async () => {
    const err = await failureOf(() => requestToken(transport(), { clientId: 'id', clientSecret: '' }, 'oauth2'));
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).field).toBe('credentials.clientSecret');
    expect(server.requests).toHaveLength(0);
  });
});

describe('TokenProvider through the client', () => {
  test('the JSON endpoint is the default; calls carry the issued bearer token', async () => {
    server.reply(200, { vault: vault() });
    await makeClient(server).getVault('vault-1');
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /api/v1/token',
      `GET /api/v1/projects/${PROJECT_ID}/vaults/vault-1`,
    ]);
    expect(server.lastApi().headers.authorization).toBe(`Bearer ${server.lastToken}`);
  });

  test('tokenEndpoint oauth2 uses the form endpoint', async () => {
    server.reply(200, { vault: vault() });
    await makeClient(server, { tokenEndpoint: 'oauth2' }).getVault('vault-1');
    expect(server.tokenRequests.map((r) => r.path)).toEqual(['/api/v1/oauth2/token']);
    expect(new URLSearchParams(server.tokenRequests[0]?.body).get('grant_type')).toBe('client_credentials');
  });

  test('a public-dialect token is used as the bearer token', async () => {
    server.tokenHandler = () => ({
      status: 200,
      json: { accessToken: 'public-dialect-token-1', expirationSeconds: 60 },
    });
    server.reply(200, { vault: vault() });
    await makeClient(server).getVault('vault-1');
    expect(server.lastApi().headers.authorization).toBe('Bearer public-dialect-token-1');
  });

  test('two calls share one cached token: one token request', async () => {
    server.reply(200, { vault: vault() });
    const client = makeClient(server);
    await client.getVault('vault-1');
    await client.getVault('vault-2');
    expect(server.tokenRequests).toHaveLength(1);
    expect(server.apiRequests.map((r) => r.headers.authorization)).toEqual([
      `Bearer ${server.lastToken}`,
      `Bearer ${server.lastToken}`,
    ]);
  });

  test('two clients sharing a TokenProvider share its token', async () => {
    server.reply(200, { vault: vault() });
    const tokenProvider = new TokenProvider({ transport: transport(), credentials: CREDENTIALS });
    await makeClient(server, { tokenProvider }).getVault('vault-1');
    await makeClient(server, { tokenProvider }).getVault('vault-1');
    expect(server.tokenRequests).toHaveLength(1);
  });

  test('the token is refreshed before it expires (lifetime minus margin)', async () => {
    // 3600 s lifetime: the default margin is min(300 s, a tenth of it) = 300 s, so a refresh is due at 3300 s.
    server.tokenHandler = () => server.issueToken(3600);
    server.reply(200, { vault: vault() });
    const { clock, client } = clientOnManualClock();

    await client.getVault('vault-1');
    clock.advanceSeconds(3299);
    await client.getVault('vault-1');
    expect(server.tokenRequests).toHaveLength(1);

    clock.advanceSeconds(2);
    await client.getVault('vault-1');
    expect(server.tokenRequests).toHaveLength(2);
    const [first, second] = server.issuedTokens.slice(-2);
    expect(server.apiRequests.map((r) => r.headers.authorization)).toEqual([
      `Bearer ${first}`,
      `Bearer ${first}`,
      `Bearer ${second}`,
    ]);
  });

  test('refreshMarginSeconds moves the refresh point', async () => {
    server.tokenHandler = () => server.issueToken(1000);
    server.reply(200, { vault: vault() });
    const { clock, client } = clientOnManualClock({ refreshMarginSeconds: 500 });
    await client.getVault('vault-1');
    clock.advanceSeconds(499);
    await client.getVault('vault-1');
    clock.advanceSeconds(2);
    await client.getVault('vault-1');
    expect(server.tokenRequests).toHaveLength(2);
  });

  test('ten concurrent callers share ONE token request', async () => {
    server.tokenHandler = async () => {
      await delay(50);
      return server.issueToken();
    };
    server.reply(200, { vault: vault() });
    const client = makeClient(server);
    await Promise.all(Array.from({ length: 10 }, (_, i) => client.getVault(`vault-${i}`)));
    expect(server.tokenRequests).toHaveLength(1);
    expect(server.apiRequests).toHaveLength(10);
    expect(new Set(server.apiRequests.map((r) => r.headers.authorization))).toEqual(
      new Set([`Bearer ${server.lastToken}`]),
    );
  });

  test('ten concurrent callers after expiry share ONE refresh', async () => {
    server.reply(200, { vault: vault() });
    const { clock, client } = clientOnManualClock();
    await client.getVault('vault-1');
    clock.advanceSeconds(3600);
    server.tokenHandler = async () => {
      await delay(50);
      return server.issueToken();
    };
    await Promise.all(Array.from({ length: 10 }, () => client.getVault('vault-1')));
    expect(server.tokenRequests).toHaveLength(2);
  });

  test('a failed token request is not cached: the next call asks again', async () => {
    server.tokenHandler = () => ({ status: 503, json: { error: 'try later' } });
    server.reply(200, { vault: vault() });
    const client = makeClient(server);
    expect(await failureOf(() => client.getVault('vault-1'))).toBeInstanceOf(ServerError);
    expect(server.apiRequests).toHaveLength(0);

    server.tokenHandler = () => server.issueToken();
    await expect(client.getVault('vault-1')).resolves.toEqual(vault());
    expect(server.tokenRequests).toHaveLength(2);
  });

  test('setCredentials: the next call gets a token with the new credentials', async () => {
    server.reply(200, { vault: vault() });
    const client = makeClient(server);
    await client.getVault('vault-1');
    client.tokens.setCredentials({ clientId: CREDENTIALS.clientId, clientSecret: 'new-secret-after-rotation' });
    await client.getVault('vault-1');
    expect(server.tokenRequests.map((r) => parseJson(r.body))).toEqual([
      { clientId: CREDENTIALS.clientId, clientSecret: CREDENTIALS.clientSecret },
      { clientId: CREDENTIALS.clientId, clientSecret: 'new-secret-after-rotation' },
    ]);
  });
});

describe('401: one refresh, one retry', () => {
  /** Refuses any call made with the next token to be issued; answers `ok` to any other. */
  function refuseNextToken(ok: JsonReply = { status: 200, json: { vault: vault() } }): void {
    const index = server.issuedTokens.length;
    server.handler = (req: RecordedRequest) =>
      req.headers.authorization === `Bearer ${server.issuedTokens[index]}`
        ? { status: 401, json: { error: 'token revoked' } }
        : ok;
  }

  test('401 on the first token, then 200: exactly 2 token requests and 2 calls', async () => {
    refuseNextToken();
    const client = makeClient(server);
    await expect(client.getVault('vault-1')).resolves.toEqual(vault());

    expect(server.tokenRequests).toHaveLength(2);
    expect(server.apiRequests).toHaveLength(2);
    const [first, second] = server.issuedTokens.slice(-2);
    expect(server.apiRequests.map((r) => r.headers.authorization)).toEqual([`Bearer ${first}`, `Bearer ${second}`]);
  });

  test('a persistent 401 is an UnauthorizedError after exactly one retry', async () => {
    server.reply(401, { error: 'no such token' });
    const err = await failureOf(() => makeClient(server).getVault('vault-1'));

    expect(err).toBeInstanceOf(UnauthorizedError);
    expect(err).toMatchObject({ status: 401, retryable: false, code: 'UNAUTHORIZED', serviceMessage: 'no such token' });
    expect(server.tokenRequests).toHaveLength(2);
    expect(server.apiRequests).toHaveLength(2);
  });

  test('ten concurrent calls refused with the same token share one refresh', async () => {
    server.tokenHandler = async () => {
      await delay(20);
      return server.issueToken();
    };
    refuseNextToken();
    const client = makeClient(server);
    const results = await Promise.all(Array.from({ length: 10 }, () => client.getVault('vault-1')));

    expect(results).toEqual(Array.from({ length: 10 }, () => vault()));
    expect(server.tokenRequests).toHaveLength(2);
    expect(server.apiRequests).toHaveLength(20);
  });

  test('the retry of a call with a body sends the same body', async () => {
    refuseNextToken({ status: 202, json: { jobId: 'job-1' } });
    await expect(makeClient(server).takeSnapshot('res-1', { vaultId: 'v', retentionDays: 7 })).resolves.toBe('job-1');
    expect(server.apiRequests.map((r) => r.body)).toEqual([
      JSON.stringify({ vaultId: 'v', retentionDays: 7 }),
      JSON.stringify({ vaultId: 'v', retentionDays: 7 }),
    ]);
  });
});

describe('a credentials source (a file another worker may rotate)', () => {
  const secretOf = (r: RecordedRequest) => (parseJson(r.body) as { clientSecret: string }).clientSecret;
  /** Issues tokens only for `valid`; any other secret is "not found", as after a rotation. */
  function acceptOnly(valid: () => string): void {
    server.tokenHandler = (req) =>
      secretOf(req) === valid() ? server.issueToken() : { status: 404, json: { error: 'credentials not found' } };
  }

  test('every new token is asked for with what the source holds then, not what the client started with', async () => {
    let inFile = 'secret-before';
    acceptOnly(() => inFile);
    server.reply(200, { vault: vault() });
    const credentialsSource = {
      current: () => Promise.resolve({ clientId: CREDENTIALS.clientId, clientSecret: inFile }),
    };
    const client = makeClient(server, { credentialsSource });
    await client.getVault('vault-1');
    // Another worker rotates and rewrites the file; this client's token is then refused (expired early).
    inFile = 'secret-after';
    const refused = server.lastToken;
    server.handler = (req) =>
      req.headers.authorization === `Bearer ${refused}`
        ? { status: 401, json: { error: 'token expired' } }
        : { status: 200, json: { vault: vault() } };
    await expect(client.getVault('vault-1')).resolves.toEqual(vault());
    expect(server.tokenRequests.map(secretOf)).toEqual(['secret-before', 'secret-after']);
  });

  test('after a 404 the source is asked once more (recover), and its newer secret is used', async () => {
    acceptOnly(() => 'secret-after');
    server.reply(200, { vault: vault() });
    const recover = jest.fn(() => Promise.resolve({ clientId: CREDENTIALS.clientId, clientSecret: 'secret-after' }));
    const current = () => Promise.resolve({ clientId: CREDENTIALS.clientId, clientSecret: 'secret-before' });
    await expect(makeClient(server, { credentialsSource: { current, recover } }).getVault('vault-1')).resolves.toEqual(
      vault(),
    );
    expect(recover).toHaveBeenCalledTimes(1);
    expect(server.tokenRequests.map(secretOf)).toEqual(['secret-before', 'secret-after']);
  });

  test('a 404 with nothing newer in the source is a NotFoundError after one token request', async () => {
    acceptOnly(() => 'somebody-elses');
    const current = jest.fn(() => Promise.resolve({ clientId: CREDENTIALS.clientId, clientSecret: 'secret-before' }));
    const err = await failureOf(() => makeClient(server, { credentialsSource: { current } }).getVault('vault-1'));
    expect(err).toBeInstanceOf(NotFoundError);
    // Read once for the request and once more after the 404; the same secret is not sent twice.
    expect(current).toHaveBeenCalledTimes(2);
    expect(server.tokenRequests).toHaveLength(1);
    expect(server.apiRequests).toHaveLength(0);
  });
});
