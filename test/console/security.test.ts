// The console's security layer over real HTTP: no token or a wrong one is 401, a forged POST (no or a wrong
// CSRF token, a foreign Origin) is 403 and sends no nudge, every answer carries the strict CSP, and a name holding
// `<script>` is shown escaped. The data is a fixed list (the e2e test reads a real Temporal); the nudges it would send
// are recorded, so that "no nudge sent" is observed. The pages are those of console/pages.ts, and the server serves
// no other page: a page added there is held to these tests without a word here.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import type { WaitingApproval } from '../../operator/output-shapes';
import type { ConsoleData, ConsoleRun } from '../../console/data';
import { STYLE_HASH } from '../../console/layout';
import { checkExposure } from '../../console/serve-command';
import { NUDGED_NOTICE, PAGES } from '../../console/pages';
import { PLAN_REPORT_ROUTE } from '../../console/plans-page';
import { buildConsole } from '../../console/server';
import { ConsoleGuard } from '../../console/security';
import { HistoryIndex } from '../../history';
import { loadOrCreateEvidenceKey } from '../../runtime/evidence-key';
import { measured, writeDrill } from '../history/fixtures';

const TOKEN = 'a-console-token-of-32-characters';
const EVIL = '<script>alert(1)</script>';

const run: ConsoleRun = {
  workflowId: `restore-${EVIL}`,
  runId: 'run-1',
  runbook: 'approvalGatedRestore',
  state: 'RUNNING',
  startTime: '2026-11-26T08:00:00.000Z',
  resource: `db-${EVIL}`,
  approvalStatus: 'PENDING_APPROVAL',
  status: {
    runbook: 'approvalGatedRestore',
    phase: 'waiting for approval',
    ids: { requestId: 'req-1' },
    waitingFor: `reviewers of ${EVIL}`,
    progress: { done: 1, total: 2, unit: 'approvals' },
    updatedAt: '2026-11-26T08:00:01.000Z',
  },
};

const waiting: WaitingApproval = {
  workflowId: run.workflowId,
  runId: run.runId,
  runbook: run.runbook,
  startedAt: run.startTime,
  requestId: `req-${EVIL}`,
  ageSeconds: 90,
  approvals: { current: 1, required: 2 },
  approvalDeadline: '2026-11-27T08:00:00.000Z',
  executionWindowHours: 6,
  answered: true,
};

// An output folder holding one sealed drill report whose resource is named with a script.
let outputDir: string;
beforeAll(async () => {
  outputDir = await mkdtemp(join(tmpdir(), 'console-security-'));
  const key = await loadOrCreateEvidenceKey(join(outputDir, 'evidence-signing-key.pem'));
  await writeDrill(outputDir, key, {
    runId: 'run-1',
    finishedAt: '2026-11-01T03:00:00.000Z',
    resources: [measured('res-1', 600, 3600, `db-${EVIL}`)],
  });
});
afterAll(() => rm(outputDir, { recursive: true, force: true }));

function fixture(token?: string) {
  const nudged: string[] = [];
  const data: ConsoleData = {
    runs: async () => [run],
    approvals: async () => [waiting],
    nudge: async (workflowId) => {
      nudged.push(workflowId);
    },
  };
  const guard = new ConsoleGuard({ token });
  // Read lazily: the folder is written in beforeAll.
  const history = { read: () => new HistoryIndex({ outputDir }).read() };
  const app = buildConsole({ data, guard, history, namespace: 'default', temporalUiUrl: 'http://127.0.0.1:8233' });
  return { app, guard, nudged };
}

interface Answer {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}
interface Ask {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  payload?: string;
}
type Client = (ask: Ask) => Promise<Answer>;

/** The app listening on a free local port, and a client that asks it as a browser or curl would. */
async function serve(app: FastifyInstance): Promise<Client> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return async ({ method, url, headers, payload }) => {
    const res = await request(`http://127.0.0.1:${port}${url}`, { method, headers, body: payload });
    return { statusCode: res.statusCode, headers: res.headers, body: await res.body.text() };
  };
}

const bearer = { authorization: `Bearer ${TOKEN}` };
const PATHS = PAGES.map((p) => p.path);
/** The GET routes that are not pages: the redirect to the first page, the login form, a plan run's report files. */
const NOT_PAGES = ['/', '/login', `${PLAN_REPORT_ROUTE}/:file`];

/** The paths an app answers `method` on, read from the route tree Fastify prints (a segment a line, 4 columns a level). */
function served(app: FastifyInstance, method: string): string[] {
  const paths: string[] = [];
  const segments: string[] = [];
  for (const line of app.printRoutes({ method, commonPrefix: false }).split('\n')) {
    const match = /^([ │]*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    segments.length = (match[1] ?? '').length / 4;
    segments.push(match[2] ?? '');
    if (match[3]?.split(', ').includes(method)) paths.push(segments.join(''));
  }
  return paths;
}

/** The CSRF token the approvals page hands out, read from its form. */
async function csrfOf(inject: Client, headers = {}): Promise<string> {
  const page = await inject({ method: 'GET', url: '/approvals', headers });
  expect(page.statusCode).toBe(200);
  const token = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1];
  if (!token) throw new Error('no CSRF token in the approvals page');
  return token;
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function expectStrictHeaders(res: Answer): void {
  const csp = String(res.headers['content-security-policy']);
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain(`style-src '${STYLE_HASH}'`);
  expect(csp).toContain('img-src data:');
  expect(csp).toContain("form-action 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toMatch(/script-src|unsafe-inline|unsafe-eval/);
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('same-origin');
}

describe('with a token', () => {
  const { app, nudged } = fixture(TOKEN);
  let ask: Client;
  beforeAll(async () => {
    ask = await serve(app);
  });
  afterAll(() => app.close());

  test('no token: 401, with the strict headers and nothing of the runs', async () => {
    for (const url of PATHS) {
      const res = await ask({ method: 'GET', url });
      expect({ url, status: res.statusCode }).toEqual({ url, status: 401 });
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.body).not.toContain('restore-');
      expectStrictHeaders(res);
    }
  });

  test('a wrong token: 401, in the header and in the login form', async () => {
    for (const wrong of ['Bearer wrong', `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, TOKEN]) {
      const res = await ask({ method: 'GET', url: '/runs', headers: { authorization: wrong } });
      expect({ wrong, status: res.statusCode }).toEqual({ wrong, status: 401 });
    }
    const login = await ask({ method: 'POST', url: '/login', headers: FORM, payload: form({ token: 'nope' }) });
    expect(login.statusCode).toBe(401);
    expect(login.headers['set-cookie']).toBeUndefined();
    expect(await ask({ method: 'GET', url: '/runs', headers: { cookie: 'runbooks_console=1.2.3' } })).toMatchObject({
      statusCode: 401,
    });
  });

  test('the right token reads the pages; the login form gives a session cookie that does too', async () => {
    const login = await ask({ method: 'POST', url: '/login', headers: FORM, payload: form({ token: TOKEN }) });
    expect(login.statusCode).toBe(303);
    const cookie = String(login.headers['set-cookie']);
    expect(cookie).toMatch(/^runbooks_console=[^;]+; HttpOnly; SameSite=Strict; Path=\/$/);
    for (const { path: url, title } of PAGES) {
      const res = await ask({ method: 'GET', url, headers: bearer });
      expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
      expect(res.body).toContain(`<h1>${title}</h1>`);
      // The navigation links every page and marks this one.
      for (const path of PATHS) expect(res.body).toContain(`<a href="${path}"`);
      expect(res.body).toContain(`<a href="${url}" aria-current="page">`);
      const session = await ask({ method: 'GET', url, headers: { cookie: cookie.split(';')[0] ?? '' } });
      expect({ url, status: session.statusCode }).toEqual({ url, status: 200 });
    }
  });

  test('the server serves every page of the list and no page outside it', () => {
    expect(served(app, 'GET').sort()).toEqual([...PATHS, ...NOT_PAGES].sort());
  });

  test('a POST without the token is 401 and sends no nudge, even with a valid CSRF token', async () => {
    const csrf = await csrfOf(ask, bearer);
    const res = await ask({
      method: 'POST',
      url: '/approvals/nudge',
      headers: FORM,
      payload: form({ csrf, workflowId: run.workflowId }),
    });
    expect(res.statusCode).toBe(401);
    expect(nudged).toEqual([]);
  });

  test("a session's CSRF token does not pass for another identity", async () => {
    const login = await ask({ method: 'POST', url: '/login', headers: FORM, payload: form({ token: TOKEN }) });
    const cookie = String(login.headers['set-cookie']).split(';')[0] ?? '';
    const sessionCsrf = await csrfOf(ask, { cookie });
    expect(sessionCsrf).not.toBe(await csrfOf(ask, bearer));
    const res = await ask({
      method: 'POST',
      url: '/approvals/nudge',
      headers: { ...FORM, ...bearer },
      payload: form({ csrf: sessionCsrf, workflowId: run.workflowId }),
    });
    expect(res.statusCode).toBe(403);
    expect(nudged).toEqual([]);
  });
});

describe('on localhost without a token', () => {
  const { app, nudged } = fixture();
  let ask: Client;
  beforeAll(async () => {
    ask = await serve(app);
  });
  afterAll(() => app.close());
  const nudge = (payload: Record<string, string>, headers: Record<string, string> = {}) =>
    ask({ method: 'POST', url: '/approvals/nudge', headers: { ...FORM, ...headers }, payload: form(payload) });

  test('a forged POST is 403 and sends no nudge: no CSRF token, a wrong one, a foreign Origin', async () => {
    const csrf = await csrfOf(ask);
    const forged = [
      await nudge({ workflowId: run.workflowId }),
      await nudge({ workflowId: run.workflowId, csrf: `${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'B' : 'A'}` }),
      await nudge({ workflowId: run.workflowId, csrf: '' }),
      await nudge({ workflowId: run.workflowId, csrf }, { origin: 'https://evil.example' }),
      await nudge({ workflowId: run.workflowId, csrf }, { origin: 'null' }),
      await nudge({ workflowId: run.workflowId, csrf }, { 'sec-fetch-site': 'cross-site' }),
    ];
    expect(forged.map((r) => r.statusCode)).toEqual([403, 403, 403, 403, 403, 403]);
    for (const res of forged) expectStrictHeaders(res);
    expect(nudged).toEqual([]);
  });

  test('the form as the page posts it (its CSRF token, its own Origin) nudges the run and redirects back', async () => {
    const csrf = await csrfOf(ask);
    const res = await nudge(
      { workflowId: run.workflowId, csrf },
      { origin: 'http://localhost:80', host: 'localhost:80' },
    );
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/approvals?nudged=1');
    expect(nudged).toEqual([run.workflowId]);
    const after = await ask({ method: 'GET', url: String(res.headers.location) });
    expect(after.body).toContain(`<div class="notice" role="status">${NUDGED_NOTICE}</div>`);
  });

  test('a name holding <script> is shown escaped on every page', async () => {
    for (const url of PATHS) {
      const res = await ask({ method: 'GET', url });
      expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
      expectStrictHeaders(res);
      // The fixture's names are on these pages (the posture and exports pages have none of its).
      if (['/runs', '/approvals', '/drills'].includes(url)) {
        expect(res.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      }
      // The page has no script element at all: nothing it shows can become one.
      expect({ url, scripts: res.body.match(/<script/gi) ?? [] }).toEqual({ url, scripts: [] });
    }
    const runs = (await ask({ method: 'GET', url: '/runs' })).body;
    // The link to the Temporal UI encodes the ID in its path.
    expect(runs).toContain(
      `href="http://127.0.0.1:8233/namespaces/default/workflows/${encodeURIComponent(run.workflowId)}/run-1/history"`,
    );
  });

  test("the CSP's style hash is the hash of the page's one stylesheet", async () => {
    const body = (await ask({ method: 'GET', url: '/runs' })).body;
    const styles = [...body.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1] ?? '');
    expect(styles).toHaveLength(1);
    expect(
      `sha256-${createHash('sha256')
        .update(styles[0] ?? '')
        .digest('base64')}`,
    ).toBe(STYLE_HASH);
    expect(body).not.toMatch(/\sstyle="/);
  });
});

test('without a token, a Host header naming another server is refused (a rebound DNS name)', async () => {
  const guard = new ConsoleGuard({ hosts: new Set(['127.0.0.1:8090', 'localhost:8090']) });
  const data: ConsoleData = { runs: async () => [run], approvals: async () => [], nudge: async () => undefined };
  const history = new HistoryIndex({ outputDir });
  const app = buildConsole({ data, guard, history, namespace: 'default' });
  const ask = await serve(app);
  for (const url of PATHS) {
    const rebound = await ask({ method: 'GET', url, headers: { host: 'evil.example:8090' } });
    expect({ url, status: rebound.statusCode }).toEqual({ url, status: 421 });
    expect(rebound.body).not.toContain('restore-');
    const own = await ask({ method: 'GET', url, headers: { host: 'localhost:8090' } });
    expect({ url, status: own.statusCode }).toEqual({ url, status: 200 });
  }
  await app.close();
});

test('off localhost the console refuses to start without a token, unless a proxy is said to stand in front', () => {
  expect(() => checkExposure('0.0.0.0', undefined, false)).toThrow(/--token-file or RUNBOOKS_CONSOLE_TOKEN_FILE/);
  expect(() => checkExposure('10.0.0.5', undefined, false)).toThrow(/--behind-proxy/);
  for (const host of ['127.0.0.1', 'localhost', '::1', '127.0.0.2']) {
    expect(() => checkExposure(host, undefined, false)).not.toThrow();
  }
  expect(() => checkExposure('0.0.0.0', TOKEN, false)).not.toThrow();
  expect(() => checkExposure('0.0.0.0', undefined, true)).not.toThrow();
});
