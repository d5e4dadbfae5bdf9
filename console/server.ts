import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { clientDeadlines } from '../operator/exposure';
import type { History } from '../history';
import { NudgeRefused, type ConsoleData } from './data';
import { LoginThrottle } from './login-throttle';
import { markup, type Html } from './html';
import { page, STYLE_HASH } from './layout';
import { PAGES, type PageInput } from './pages';
import { PLAN_REPORT_ROUTE, planReportFile } from './plans-page';
import { ConsoleGuard, foreignOrigin, securityHeaders, SESSION_COOKIE } from './security';

export interface ConsoleOptions {
  data: ConsoleData;
  guard: ConsoleGuard;
  /** The output folder's history (history/HistoryIndex): the drills, plans, posture and exports pages. */
  history: { read(): Promise<History> };
  namespace: string;
  /** The Temporal Web UI, to link each run to. */
  temporalUiUrl?: string;
  /** Behind the operator's proxy: X-Forwarded-* are believed (the cookie is Secure over https). */
  behindProxy?: boolean;
  /** Rows per page. */
  limit?: number;
  /** Failed sign-ins per client address (console/login-throttle.ts). */
  throttle?: LoginThrottle;
  /** Where failed sign-ins and lockouts are reported (the submitted token never is). */
  log?: ConsoleLog;
  timeouts?: Partial<ConsoleTimeouts>;
}

/** The warnings the console reports: pino's `warn` fits. */
export interface ConsoleLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * How long a client may take, in ms: to send its headers, its whole request, and between two requests on one
 * connection. A client that sends a byte at a time cannot hold a connection (and a slot of the server) for longer.
 */
export interface ConsoleTimeouts {
  headersMs: number;
  requestMs: number;
  keepAliveMs: number;
}

export const DEFAULT_TIMEOUTS: ConsoleTimeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 };

const HEADERS = securityHeaders(STYLE_HASH);
const FORM_LIMIT = 8 * 1024;

/** The console's routes: its pages (console/pages.ts), one action (the nudge), the login form when a token is set. */
export function buildConsole(options: ConsoleOptions): FastifyInstance {
  const { data, guard } = options;
  const limit = options.limit ?? 100;
  const throttle = options.throttle ?? new LoginThrottle();
  const log = options.log ?? { warn: () => undefined };
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const app = Fastify({
    logger: false,
    trustProxy: options.behindProxy === true,
    bodyLimit: FORM_LIMIT,
    // Node's own server, for its header and request timeouts, checked often enough to hold to them.
    serverFactory: (handler: (req: IncomingMessage, res: ServerResponse) => void) =>
      createServer(
        { ...clientDeadlines(timeouts.headersMs, timeouts.requestMs), keepAliveTimeout: timeouts.keepAliveMs },
        handler,
      ),
  });
  // Forms post urlencoded bodies; fastify parses only JSON on its own.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_LIMIT },
    (_req, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );

  // A signed-in session's pages carry its sign-out form.
  const signOut = (req: FastifyRequest) => {
    const identity = guard.identity(req);
    return identity?.startsWith('session:') ? { csrf: guard.csrfToken(identity) } : undefined;
  };
  const send = (reply: FastifyReply, status: number, title: string, current: string, body: Html) =>
    reply
      .code(status)
      .type('text/html; charset=utf-8')
      .send(page(title, current, body, PAGES, signOut(reply.request)).text);
  // 401 with a word on signing in: a request without the token, or the login form given a wrong one.
  const signIn = (reply: FastifyReply, body: Html) => {
    reply.header('WWW-Authenticate', 'Bearer');
    return send(reply, 401, 'Sign in', '', body);
  };

  app.addHook('onRequest', async (req, reply) => {
    reply.headers(HEADERS);
    if (!guard.hostAllowed(req)) {
      return send(
        reply,
        421,
        'Misdirected request',
        '',
        markup`<p>This console does not answer to that host name.</p>`,
      );
    }
    if (req.url === '/login' || req.url.startsWith('/login?')) return;
    if (guard.identity(req) === undefined) {
      return signIn(
        reply,
        markup`<p>
          This console needs its token: send <code>Authorization: Bearer &lt;token&gt;</code>, or
          <a href="/login">sign in</a>.
        </p>`,
      );
    }
  });

  app.setErrorHandler(async (err: Error & { statusCode?: number }, _req, reply) => {
    // 503: Temporal unreachable or lacking a search attribute (console/data.ts), which the message says.
    const code = err.statusCode ?? 0;
    const status = (code >= 400 && code < 500) || code === 503 ? code : 502;
    // The message is escaped like any other value; it may quote what Temporal answered.
    return send(reply, status, 'Not available', '', markup`<p class="notice error">${err.message}</p>`);
  });

  app.get('/', async (_req, reply) => reply.redirect('/runs', 303));

  const pageInput = {
    data,
    history: options.history,
    namespace: options.namespace,
    temporalUiUrl: options.temporalUiUrl,
    limit,
  };
  for (const { path, title, body } of PAGES) {
    app.get<{ Querystring: PageInput['query'] }>(path, async (req, reply) => {
      const csrf = guard.csrfToken(guard.identity(req) ?? '');
      return send(reply, 200, title, path, await body({ ...pageInput, query: req.query, csrf }));
    });
  }

  // A plan run's report files, by name: only those of a report the Plans page lists, never a path.
  app.get<{ Params: { file: string } }>(`${PLAN_REPORT_ROUTE}/:file`, async (req, reply) => {
    const file = await planReportFile((await options.history.read()).plans, req.params.file);
    if (!file) return send(reply, 404, 'Not found', '/plans', markup`<p>No such report file of a plan run.</p>`);
    if (file.csp) reply.header('Content-Security-Policy', file.csp);
    return reply.code(200).type(file.contentType).send(file.body);
  });

  app.post<{ Body: Record<string, string> | undefined }>('/approvals/nudge', async (req, reply) => {
    const identity = guard.identity(req) ?? '';
    if (foreignOrigin(req) || !guard.csrfValid(identity, req.body?.csrf)) {
      return send(
        reply,
        403,
        'Refused',
        '/approvals',
        markup`<p>This form is out of date or came from another site: reload the page and try again.</p>`,
      );
    }
    const workflowId = req.body?.workflowId;
    if (typeof workflowId !== 'string' || workflowId === '') {
      return send(reply, 400, 'Bad request', '/approvals', markup`<p>No workflow ID.</p>`);
    }
    try {
      await data.nudge(workflowId);
    } catch (err) {
      if (err instanceof NudgeRefused)
        return send(reply, err.status, 'Not nudged', '/approvals', markup`<p>${err.message}</p>`);
      throw err;
    }
    return reply.redirect('/approvals?nudged=1', 303);
  });

  app.get('/login', async (_req, reply) => {
    if (!guard.needsToken) return reply.redirect('/runs', 303);
    return send(reply, 200, 'Sign in', '', loginForm());
  });

  app.post<{ Body: Record<string, string> | undefined }>('/login', async (req, reply) => {
    if (!guard.needsToken) return reply.redirect('/runs', 303);
    if (foreignOrigin(req)) return send(reply, 403, 'Refused', '', markup`<p>This form came from another site.</p>`);
    // Locked out: no token is checked, the right one included, so that a lockout stops guessing outright.
    const locked = throttle.lockedFor(req.ip);
    if (locked > 0) {
      reply.header('Retry-After', String(Math.ceil(locked / 1000)));
      return send(
        reply,
        429,
        'Sign in',
        '',
        markup`<p class="notice error">Too many wrong tokens from this address: try again later.</p>`,
      );
    }
    if (!guard.tokenMatches(req.body?.token ?? '')) {
      const lockout = throttle.failed(req.ip);
      log.warn({ event: 'console.login.failed', client: req.ip }, 'console sign-in with a wrong token');
      if (lockout > 0) {
        log.warn(
          { event: 'console.login.locked', client: req.ip, lockoutSeconds: Math.ceil(lockout / 1000) },
          'console sign-in locked for this address',
        );
      }
      return signIn(
        reply,
        markup`<p class="notice error">That is not the token.</p>
          ${loginForm()}`,
      );
    }
    throttle.succeeded(req.ip);
    reply.header('Set-Cookie', sessionCookie(req, guard.newSession()));
    return reply.redirect('/runs', 303);
  });

  app.post<{ Body: Record<string, string> | undefined }>('/logout', async (req, reply) => {
    const identity = guard.identity(req) ?? '';
    if (foreignOrigin(req) || !guard.csrfValid(identity, req.body?.csrf)) {
      return send(reply, 403, 'Refused', '', markup`<p>This form is out of date or came from another site.</p>`);
    }
    guard.endSession(req);
    reply.header('Set-Cookie', sessionCookie(req, undefined));
    return reply.redirect(guard.needsToken ? '/login' : '/runs', 303);
  });

  return app;
}

/** The session cookie holding `session`, or clearing it when undefined; Secure when the request came over https. */
function sessionCookie(req: FastifyRequest, session: string | undefined): string {
  const expiry = session === undefined ? '; Max-Age=0' : '';
  const secure = req.protocol === 'https' ? '; Secure' : '';
  return `${SESSION_COOKIE}=${session ?? ''}${expiry}; HttpOnly; SameSite=Strict; Path=/${secure}`;
}

function loginForm(): Html {
  return markup`<form method="post" action="/login">
    <p>
      <label for="token">The console's token</label><br /><input
        id="token"
        name="token"
        type="password"
        autocomplete="current-password"
        required
      />
    </p>
    <p><button type="submit">Sign in</button></p>
  </form>`;
}
