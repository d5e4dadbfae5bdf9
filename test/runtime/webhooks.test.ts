import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { redact, REDACTED } from '../../api';
import { ConfigError, loadConfig, loadWebhookTargets } from '../../runtime/config';
import { deliver, deliveryIdOf, signatureHeader, type WebhookTarget } from '../../runtime/webhooks';

const SECRET = 'a-signing-secret-0123456789';

function issuesOf(load: () => unknown): string[] {
  try {
    load();
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map((i) => `${i.variable}: ${i.message}`);
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('webhook configuration', () => {
  test('none configured: no targets, and loadConfig leaves them unset', () => {
    expect(loadWebhookTargets({})).toEqual([]);
    expect(loadConfig({}).webhooks).toBeUndefined();
  });

  test('one target from the environment, with an event filter', () => {
    const targets = loadWebhookTargets({
      RUNBOOKS_WEBHOOK_URL: 'https://hooks.example.com/runbooks',
      RUNBOOKS_WEBHOOK_SECRET: SECRET,
      RUNBOOKS_WEBHOOK_EVENTS: 'approval.pending, drill.failed',
    });
    expect(targets).toEqual([
      {
        name: 'webhook',
        url: 'https://hooks.example.com/runbooks',
        format: 'json',
        secret: SECRET,
        events: ['approval.pending', 'drill.failed'],
      },
    ]);
  });

  test('a Slack target needs no secret; a JSON one does', () => {
    const slack = { RUNBOOKS_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/x', RUNBOOKS_WEBHOOK_FORMAT: 'slack' };
    expect(loadWebhookTargets(slack)[0]).toMatchObject({ format: 'slack', secret: undefined });
    expect(issuesOf(() => loadWebhookTargets({ RUNBOOKS_WEBHOOK_URL: 'https://x.example.com/h' }))).toEqual([
      expect.stringMatching(/^RUNBOOKS_WEBHOOK_SECRET: is required for json webhooks/),
    ]);
  });

  test('bad values are ConfigErrors naming the variable, never echoing a secret', () => {
    const issues = issuesOf(() =>
      loadConfig({
        RUNBOOKS_WEBHOOK_URL: 'ftp://x.example.com',
        RUNBOOKS_WEBHOOK_SECRET: 'short-one',
        RUNBOOKS_WEBHOOK_FORMAT: 'xml',
        RUNBOOKS_WEBHOOK_EVENTS: 'approval.pending,drill.exploded',
      }),
    );
    expect(issues.map((i) => i.split(':')[0]).sort()).toEqual([
      'RUNBOOKS_WEBHOOK_EVENTS',
      'RUNBOOKS_WEBHOOK_FORMAT',
      'RUNBOOKS_WEBHOOK_SECRET',
      'RUNBOOKS_WEBHOOK_URL',
    ]);
    expect(issues.join('\n')).not.toContain('short-one');
    expect(issuesOf(() => loadWebhookTargets({ RUNBOOKS_WEBHOOK_SECRET: SECRET }))).toEqual([
      'RUNBOOKS_WEBHOOK_SECRET: needs RUNBOOKS_WEBHOOK_URL',
    ]);
  });

  test('a file of targets: validated entry by entry, and not together with the variables', () => {
    const read = (text: string) => () => text;
    const file = { RUNBOOKS_WEBHOOKS_FILE: '/etc/runbooks/webhooks.json' };
    const good = JSON.stringify([
      { url: 'https://a.example.com/h', secret: SECRET },
      { name: 'chat', url: 'https://hooks.slack.com/services/T/B/y', format: 'slack', events: ['drill.failed'] },
    ]);
    expect(loadWebhookTargets(file, read(good)).map((t) => [t.name, t.format])).toEqual([
      ['webhook-1', 'json'],
      ['chat', 'slack'],
    ]);
    expect(issuesOf(() => loadWebhookTargets(file, read('[{"url": "https://a.example.com/h"}]')))).toEqual([
      'RUNBOOKS_WEBHOOKS_FILE: /etc/runbooks/webhooks.json: 0.secret: a json target needs a secret to sign with',
    ]);
    expect(issuesOf(() => loadWebhookTargets(file, read('{')))).toEqual([
      'RUNBOOKS_WEBHOOKS_FILE: /etc/runbooks/webhooks.json: not valid JSON',
    ]);
    const twice = JSON.stringify([
      { name: 'a', url: 'https://a.example.com/h', format: 'slack' },
      { name: 'a', url: 'https://b.example.com/h', format: 'slack' },
    ]);
    expect(issuesOf(() => loadWebhookTargets(file, read(twice)))).toEqual([
      'RUNBOOKS_WEBHOOKS_FILE: /etc/runbooks/webhooks.json: two targets are named a',
    ]);
    expect(
      issuesOf(() => loadWebhookTargets({ ...file, RUNBOOKS_WEBHOOK_URL: 'https://a.example.com/h' }, read(good))),
    ).toEqual(['RUNBOOKS_WEBHOOKS_FILE: set RUNBOOKS_WEBHOOKS_FILE or RUNBOOKS_WEBHOOK_URL, not both']);
  });

  test('configured secrets and URLs are redacted wherever they would be logged', () => {
    const url = 'https://hooks.slack.com/services/T0/B0/redact-me-0123';
    loadWebhookTargets({ RUNBOOKS_WEBHOOK_URL: url, RUNBOOKS_WEBHOOK_FORMAT: 'slack' });
    loadWebhookTargets({ RUNBOOKS_WEBHOOK_URL: 'https://a.example.com/h', RUNBOOKS_WEBHOOK_SECRET: SECRET });
    expect(redact(`posting to ${url} with ${SECRET}`)).toBe(`posting to ${REDACTED} with ${REDACTED}`);
  });
});

describe('signature and delivery ID', () => {
  test('the signature is HMAC-SHA256 over "<t>.<body>"', () => {
    const body = '{"event":"drill.failed"}';
    const mac = createHmac('sha256', SECRET).update(`1700000000.${body}`).digest('hex');
    expect(signatureHeader(SECRET, 1700000000, body)).toBe(`t=1700000000,v1=${mac}`);
  });

  test('the delivery ID is stable per run and event, and differs between them', () => {
    const id = deliveryIdOf('restore-1', 'run-1', 'approval.pending');
    expect(deliveryIdOf('restore-1', 'run-1', 'approval.pending')).toBe(id);
    expect(deliveryIdOf('restore-1', 'run-2', 'approval.pending')).not.toBe(id);
    expect(deliveryIdOf('restore-1', 'run-1', 'approval.decided')).not.toBe(id);
    expect(id).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('deliver', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      const status = Number(req.url?.slice(1));
      if (status === 429) res.setHeader('retry-after', '7');
      if (status === 302) res.setHeader('location', 'https://elsewhere.example.com/');
      res.statusCode = status;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const send = (url: string) => {
    const target: WebhookTarget = { name: 't', url, format: 'json', secret: SECRET };
    return deliver(target, { event: 'drill.failed', deliveryId: 'd1', body: '{}' });
  };

  test.each([
    [200, { kind: 'delivered', status: 200 }],
    [204, { kind: 'delivered', status: 204 }],
    [400, { kind: 'rejected', status: 400 }],
    [404, { kind: 'rejected', status: 404 }],
    [302, { kind: 'rejected', status: 302 }],
    [408, { kind: 'retry', reason: 'HTTP 408' }],
    [429, { kind: 'retry', reason: 'HTTP 429', retryAfterSeconds: 7 }],
    [503, { kind: 'retry', reason: 'HTTP 503' }],
  ])('HTTP %i', async (status, expected) => {
    expect(await send(`${base}/${status}`)).toEqual(expected);
  });

  test('a network error is retried, and its reason names no URL', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const result = await send(`http://127.0.0.1:${port}/secret-path`);
    expect(result).toEqual({ kind: 'retry', reason: 'ECONNREFUSED' });
  });
});
