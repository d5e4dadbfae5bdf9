// The transport: base URL path prefixes, percent-encoded path parameters, one keep-alive pool per base URL, and a
// dispatcher that replaces the pool.
import { MockAgent } from 'undici';
import { HttpTransport, closeHttpPools, pathOf } from '../../api/http';
import { PROJECT_ID, RecordingServer, delay, makeClient, vault } from './helpers';

const servers: RecordingServer[] = [];

async function startServer(): Promise<RecordingServer> {
  const server = await RecordingServer.start();
  servers.push(server);
  return server;
}

afterAll(async () => {
  await closeHttpPools();
  await Promise.all(servers.map((s) => s.close()));
});

describe('base URL', () => {
  test.each([
    ['/api', '/api'],
    ['/api/', '/api'],
    ['/api/v0-gw//', '/api/v0-gw'],
    ['', ''],
    ['/', ''],
  ])('prefix %p: every request, the token call too, goes below %p', async (prefix, expected) => {
    const server = await startServer();
    server.reply(200, { vault: vault() });
    await makeClient(server, { baseUrl: server.url(prefix) }).getVault('vault-1');
    expect(server.requests.map((r) => r.url)).toEqual([
      `${expected}/v1/token`,
      `${expected}/v1/projects/${PROJECT_ID}/vaults/vault-1`,
    ]);
  });

  test('the transport reports its base URL without a trailing slash', () => {
    expect(new HttpTransport({ baseUrl: 'http://127.0.0.1:1/api/' }).baseUrl).toBe('http://127.0.0.1:1/api');
  });
});

describe('pathOf', () => {
  test('percent-encodes every parameter, and only the parameters', () => {
    expect(pathOf`/v1/queries/${'a:b'}/results`).toBe('/v1/queries/a%3Ab/results');
    expect(pathOf`/v1/x/${'a/b c?d#e%f&g=h'}`).toBe('/v1/x/a%2Fb%20c%3Fd%23e%25f%26g%3Dh');
    expect(pathOf`/v1/${'p'}/${'q'}`).toBe('/v1/p/q');
  });

  test('encoded parameters reach the server as sent', async () => {
    const server = await startServer();
    server.reply(200, { status: 'IN_PROGRESS' });
    await makeClient(server).getQueryStatus('a:b/c d?e#f%g');
    expect(server.lastApi().url).toBe(`/api/v1/projects/${PROJECT_ID}/queries/a%3Ab%2Fc%20d%3Fe%23f%25g/status`);
  });
});

describe('keep-alive', () => {
  test('two sequential calls reuse one TCP connection (the token call included)', async () => {
    const server = await startServer();
    server.reply(200, { vault: vault() });
    const client = makeClient(server);
    await client.getVault('vault-1');
    await client.getVault('vault-2');
    expect(server.requests).toHaveLength(3);
    expect(server.connections).toBe(1);
  });

  test('twenty sequential calls from three clients of one base URL share one small pool', async () => {
    const server = await startServer();
    server.reply(200, { vaults: [vault()] });
    const clients = [makeClient(server), makeClient(server), makeClient(server, { baseUrl: server.url('/other') })];
    for (let i = 0; i < 20; i += 1) await clients[i % 3]?.listVaultsPage();
    expect(server.requests).toHaveLength(23);
    // A new connection per call (or per client) would show 20 or more.
    expect(server.connections).toBeLessThanOrEqual(2);
  });

  test('closeHttpPools closes the pooled connections; a new client opens new ones', async () => {
    const server = await startServer();
    server.reply(200, { vault: vault() });
    await makeClient(server).getVault('vault-1');
    const before = server.connections;
    expect(server.openConnections).toBeGreaterThan(0);

    await closeHttpPools();
    for (let i = 0; i < 50 && server.openConnections > 0; i += 1) await delay(10);
    expect(server.openConnections).toBe(0);

    await makeClient(server).getVault('vault-1');
    expect(server.connections).toBeGreaterThan(before);
  });
});

describe('dispatcher option', () => {
  test('a MockAgent replaces the shared pool', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const origin = agent.get('http://backup.test');
    origin
      .intercept({ path: '/gw/v1/token', method: 'POST' })
      .reply(200, { accessToken: 'mock-token-123456', expirationSeconds: 600 });
    origin
      .intercept({
        path: `/gw/v1/projects/${PROJECT_ID}/vaults/vault-1`,
        method: 'GET',
        headers: { authorization: 'Bearer mock-token-123456' },
      })
      .reply(200, { vault: vault() });

    const server = await startServer();
    const client = makeClient(server, { baseUrl: 'http://backup.test/gw', dispatcher: agent });
    await expect(client.getVault('vault-1')).resolves.toEqual(vault());
    agent.assertNoPendingInterceptors();
    await agent.close();
    expect(server.requests).toHaveLength(0);
  });
});
