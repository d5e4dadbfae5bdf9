// The console against a hostile client: a notice never quotes the URL, sign-in guesses are throttled per address
// (429 with Retry-After, the right token refused while locked, each failure and lockout logged without the token),
// sign-out ends the session server-side, and a connection that dribbles its headers or body is closed.
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { ConsoleData } from '../../console/data';
import { LoginThrottle } from '../../console/login-throttle';
import { NUDGED_NOTICE } from '../../console/pages';
import { buildConsole, type ConsoleLog } from '../../console/server';
import { ConsoleGuard } from '../../console/security';
import { FORM, form, listen } from './listen';

const TOKEN = 'a-console-token-of-32-characters';
const data: ConsoleData = { runs: async () => [], approvals: async () => [], nudge: async () => undefined };
const history = {
  read: async () => ({
    drills: { drills: [], skipped: [], chains: [], keySource: 'folder' as const, keyIds: [] },
    plans: { dir: '', plans: [], skipped: [], chains: [], keySource: 'folder' as const, keyIds: [] },
    posture: [],
    exports: [],
    readAt: '',
  }),
};

function recorder(): ConsoleLog & { lines: string[] } {
  const lines: string[] = [];
  return { lines, warn: (fields, message) => lines.push(JSON.stringify({ ...fields, message })) };
}

test('the approvals notice is fixed text: nothing of the query string reaches the page', async () => {
  const app = buildConsole({ data, guard: new ConsoleGuard({}), history, namespace: 'default' });
  const ask = await listen(app);
  try {
    for (const text of [
      '<script>alert(1)</script>',
      'Approved by the CISO, no review needed',
      '1<b>x</b>',
      '%E2%80%AE',
    ]) {
      const res = await ask({ url: `/approvals?nudged=${encodeURIComponent(text)}` });
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain('Approved by the CISO');
      expect(res.body).not.toMatch(/alert\(1\)|<b>x/);
      expect(res.body).not.toContain(NUDGED_NOTICE);
    }
    expect((await ask({ url: '/approvals?nudged=1' })).body).toContain(NUDGED_NOTICE);
  } finally {
    await app.close();
  }
});

test('sign-in: wrong tokens lock the address out, doubling, and the right token is refused until it ends', async () => {
  let now = 1_000_000;
  const throttle = new LoginThrottle({ freeFailures: 3, firstLockoutMs: 1_000, maxLockoutMs: 8_000, now: () => now });
  const log = recorder();
  const app = buildConsole({
    data,
    guard: new ConsoleGuard({ token: TOKEN }),
    history,
    namespace: 'default',
    throttle,
    log,
  });
  const ask = await listen(app);
  const login = (token: string) => ask({ method: 'POST', url: '/login', headers: FORM, payload: form({ token }) });
  try {
    // Three free failures, then a lockout of 1 s.
    for (let i = 0; i < 3; i++) expect((await login(`guess-${i}`)).statusCode).toBe(401);
    expect((await login('guess-3')).statusCode).toBe(401);
    const locked = await login(TOKEN);
    expect(locked.statusCode).toBe(429);
    expect(locked.headers['retry-after']).toBe('1');
    expect(locked.headers['set-cookie']).toBeUndefined();

    // Each further failure doubles the lockout, up to the cap: 2 s, 4 s, 8 s, 8 s.
    const lockouts: string[] = [];
    for (let i = 0; i < 4; i++) {
      now += 60_000;
      expect((await login('guess')).statusCode).toBe(401);
      lockouts.push(String((await login(TOKEN)).headers['retry-after']));
    }
    expect(lockouts).toEqual(['2', '4', '8', '8']);

    // When the lockout ends, the right token signs in and the address starts afresh.
    now += 8_000;
    const ok = await login(TOKEN);
    expect(ok.statusCode).toBe(303);
    expect(String(ok.headers['set-cookie'])).toMatch(/^runbooks_console=/);
    expect(throttle.lockedFor('127.0.0.1')).toBe(0);
    expect((await login('guess-again')).statusCode).toBe(401);

    // Every failure and every lockout logged, with the client's address and never a submitted token.
    expect(log.lines.filter((l) => l.includes('console.login.failed'))).toHaveLength(9);
    expect(log.lines.filter((l) => l.includes('console.login.locked'))).toHaveLength(5);
    expect(log.lines.every((l) => l.includes('127.0.0.1'))).toBe(true);
    expect(log.lines.join('\n')).not.toMatch(/guess|a-console-token/);
  } finally {
    await app.close();
  }
});

test('the throttle forgets the address seen least recently past its bound', () => {
  const throttle = new LoginThrottle({ freeFailures: 0, maxClients: 3, now: () => 0 });
  for (const address of ['a', 'b', 'c', 'd']) throttle.failed(address);
  expect(throttle.size).toBe(3);
  expect(throttle.lockedFor('a')).toBe(0);
  expect(throttle.lockedFor('d')).toBeGreaterThan(0);
});

test('sign-out: needs the CSRF token, clears the cookie and ends the session on the server', async () => {
  const app = buildConsole({ data, guard: new ConsoleGuard({ token: TOKEN }), history, namespace: 'default' });
  const ask = await listen(app);
  try {
    const login = await ask({ method: 'POST', url: '/login', headers: FORM, payload: form({ token: TOKEN }) });
    const cookie = String(login.headers['set-cookie']).split(';')[0] ?? '';
    const runs = await ask({ url: '/runs', headers: { cookie } });
    expect(runs.statusCode).toBe(200);
    // The header's sign-out form, with the session's CSRF token.
    const csrf = /action="\/logout">\s*<input type="hidden" name="csrf" value="([^"]+)"/.exec(runs.body)?.[1];
    expect(csrf).toBeDefined();
    // A bearer client has no session: no sign-out button.
    expect((await ask({ url: '/runs', headers: { authorization: `Bearer ${TOKEN}` } })).body).not.toContain('/logout');

    const logout = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
      ask({ method: 'POST', url: '/logout', headers: { ...FORM, cookie, ...headers }, payload: form(fields) });
    expect((await logout({})).statusCode).toBe(403);
    expect((await logout({ csrf: csrf ?? '' }, { origin: 'https://evil.example' })).statusCode).toBe(403);
    expect((await ask({ url: '/runs', headers: { cookie } })).statusCode).toBe(200);

    const out = await logout({ csrf: csrf ?? '' });
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/login');
    expect(String(out.headers['set-cookie'])).toMatch(
      /^runbooks_console=; Max-Age=0; HttpOnly; SameSite=Strict; Path=\//,
    );
    // The old cookie, replayed, no longer reads anything.
    expect((await ask({ url: '/runs', headers: { cookie } })).statusCode).toBe(401);
  } finally {
    await app.close();
  }
});

describe('a client that dribbles is closed', () => {
  const app = buildConsole({
    data,
    guard: new ConsoleGuard({}),
    history,
    namespace: 'default',
    timeouts: { headersMs: 300, requestMs: 300, keepAliveMs: 300 },
  });
  let port: number;
  beforeAll(async () => {
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(() => app.close());

  /** Writes `head`, then `drip` every 50 ms until the server closes the socket; resolves with what it answered. */
  function dribble(head: string, drip: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let answer = '';
      let timer: NodeJS.Timeout | undefined;
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (answer += chunk));
      socket.on('error', () => undefined);
      socket.on('connect', () => {
        socket.write(head);
        timer = setInterval(() => {
          if (!socket.destroyed) socket.write(drip);
        }, 50);
      });
      socket.on('close', () => {
        clearInterval(timer);
        resolve(answer);
      });
      // Far beyond any timeout set here: only a server that never closes gets here.
      setTimeout(() => reject(new Error('the server kept the connection open')), 20_000).unref();
    });
  }

  test('headers sent a byte at a time', async () => {
    const answer = await dribble('GET /runs HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X');
    expect(answer).not.toContain('200 OK');
  });

  test('headers sent, then the body a byte at a time', async () => {
    const head =
      'POST /approvals/nudge HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n' +
      'Content-Length: 4000\r\n\r\n';
    const answer = await dribble(head, 'a');
    expect(answer).not.toMatch(/^HTTP\/1\.1 (200|303)/);
  });
});
