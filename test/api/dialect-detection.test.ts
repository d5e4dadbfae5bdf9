// `auto` tells the wire's dialect from the service's answers: the token body, else a first listing, else it assumes
// the neutral vocabulary and says so. Found once per token provider; onDialect hears of it once per client.
import type { Dialect } from '../../api/dialect';
import { NetworkError } from '../../api/errors';
import { makeClient, recordingServerForSuite, restoreAccount, sourceAccount, type JsonReply } from './helpers';
import { P, publicHandler, publicResource, publicService, publicSourceAccount } from './dialect-services';

const server = recordingServerForSuite();

function heard() {
  const calls: [Dialect, string][] = [];
  return { calls, onDialect: (dialect: Dialect, how: string) => calls.push([dialect, how]) };
}

/** The OAuth2 endpoint answers `access_token` in both dialects: its body tells nothing. */
const oauth2 = { tokenEndpoint: 'oauth2' as const };

test('a configured dialect is spoken without asking the service anything', async () => {
  for (const dialect of ['public', 'neutral'] as const) {
    const { calls, onDialect } = heard();
    const client = makeClient(server, { dialect, onDialect });
    expect(await client.wireDialect()).toBe(dialect);
    expect(await client.wireDialect()).toBe(dialect);
    expect(calls).toEqual([[dialect, 'configured']]);
  }
  expect(server.requests).toHaveLength(0);
});

test.each([
  ['public', true],
  ['neutral', false],
] as const)(
  'auto: the token answer tells %s; onDialect is told once, however many calls wait',
  async (dialect, pub) => {
    if (pub) publicService(server);
    const { calls, onDialect } = heard();
    const client = makeClient(server, { onDialect });
    const seen = await Promise.all([client.wireDialect(), client.wireDialect(), client.wireDialect()]);
    expect(seen).toEqual([dialect, dialect, dialect]);
    expect(await client.wireDialect()).toBe(dialect);
    expect(calls).toEqual([[dialect, 'from the token answer']]);
    expect(server.tokenRequests).toHaveLength(1);
    expect(server.apiRequests).toHaveLength(0);
  },
);

test('clients sharing a token provider share its detection; each hears of it once', async () => {
  publicService(server);
  const first = heard();
  const second = heard();
  const a = makeClient(server, { onDialect: first.onDialect });
  const b = makeClient(server, { tokenProvider: a.tokens, onDialect: second.onDialect });
  expect(await a.wireDialect()).toBe('public');
  const asked = server.requests.length;
  expect(await b.wireDialect()).toBe('public');
  expect(server.requests).toHaveLength(asked);
  expect(first.calls).toEqual([['public', 'from the token answer']]);
  expect(second.calls).toEqual([['public', 'from the token answer']]);
});

test('auto over OAuth2: a first listing of source accounts tells, with one item asked for', async () => {
  publicService(server);
  server.tokenHandler = () => server.issueToken();
  const { calls, onDialect } = heard();
  expect(await makeClient(server, { ...oauth2, onDialect }).wireDialect()).toBe('public');
  expect(calls).toEqual([['public', 'from the first listing (a source account of cloudProvider AWS)']]);
  expect(server.apiRequests.map((r) => [r.method, r.path, r.query.get('pageSize'), r.body])).toEqual([
    ['POST', `${P}/source-accounts/list`, '1', '{}'],
  ]);
});

test('auto over OAuth2: no source account, then a resource type tells', async () => {
  server.handler = (req) =>
    req.path.endsWith('/source-accounts/list')
      ? { status: 200, json: { accounts: [] } }
      : { status: 200, json: { resources: [{ ...publicResource, resourceType: 'PA_RELATIONAL_DB' }] } };
  const { calls, onDialect } = heard();
  expect(await makeClient(server, { ...oauth2, onDialect }).wireDialect()).toBe('neutral');
  expect(calls).toEqual([['neutral', 'from the first listing (a resource of type PA_RELATIONAL_DB)']]);
});

test('auto over OAuth2: a list the caller may not read tells nothing, and the next one is asked', async () => {
  server.handler = (req): JsonReply => {
    if (req.path.endsWith('/source-accounts/list')) return { status: 403, json: { error: 'forbidden' } };
    if (req.path.endsWith('/resources')) return { status: 200, json: { resources: [] } };
    return {
      status: 200,
      json: { accounts: [{ ...restoreAccount(), restoreAccountAttributes: { cloudProvider: 'GCP' } }] },
    };
  };
  const { calls, onDialect } = heard();
  expect(await makeClient(server, { ...oauth2, onDialect }).wireDialect()).toBe('public');
  expect(calls).toEqual([['public', 'from the first listing (a restore account of cloudProvider GCP)']]);
});

test('auto over OAuth2: when nothing tells, the neutral dialect is assumed, and said to be', async () => {
  server.handler = (req) =>
    req.path.endsWith('/resources')
      ? { status: 200, json: { resources: [] } }
      : {
          status: 200,
          json: { accounts: [{ ...sourceAccount(), sourceAccountAttributes: { cloudProvider: 'NEW_CLOUD' } }] },
        };
  const { calls, onDialect } = heard();
  expect(await makeClient(server, { ...oauth2, onDialect }).wireDialect()).toBe('neutral');
  expect(calls).toEqual([['neutral', 'assumed: neither the token answer nor a first listing tells']]);
  expect(server.apiRequests).toHaveLength(3);
});

test('a detection that cannot reach the service fails, tells nothing, and is tried again by the next call', async () => {
  server.handler = () => 'reset';
  const { calls, onDialect } = heard();
  const client = makeClient(server, { ...oauth2, onDialect, timeoutMs: 2_000 });
  await expect(client.wireDialect()).rejects.toBeInstanceOf(NetworkError);
  expect(calls).toEqual([]);
  server.handler = publicHandler;
  expect(await client.wireDialect()).toBe('public');
  expect(calls).toEqual([
    [
      'public',
      `from the first listing (a source account of cloudProvider ${publicSourceAccount.sourceAccountAttributes.cloudProvider})`,
    ],
  ]);
});

test('a call that needs the dialect detects it first; one that does not, never asks', async () => {
  publicService(server);
  const client = makeClient(server, { ...oauth2 });
  await client.listResourcesPage({});
  expect(server.apiRequests.map((r) => r.path)).toEqual([`${P}/resources`]);
  await client.restoreBucket('res-1', 'snap-1', {
    destination: { bucketA: { bucketName: 'b' } },
    restoreAccountId: 'ra',
  });
  expect(server.apiRequests.map((r) => r.path.replace(P, ''))).toEqual([
    '/resources',
    '/source-accounts/list',
    '/resources/res-1/snapshots/snap-1/restore-bucket',
  ]);
  expect(JSON.parse(server.lastApi().body)).toEqual({
    destination: { s3Bucket: { bucketName: 'b' } },
    restoreAccountId: 'ra',
  });
});
