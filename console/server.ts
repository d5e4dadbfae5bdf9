import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { approvalsBody } from './approvals-page';
import { DEFAULT_PERIOD_DAYS, DEFAULT_TREND_DRILLS, type History } from '../history';
import { NudgeRefused, type ConsoleData } from './data';
import { drillsBody, exportsBody, postureBody } from './history-pages';
import { markup, type Html } from './html';
import { page, STYLE_HASH } from './layout';
import { runsBody } from './runs-page';
import { ConsoleGuard, foreignOrigin, securityHeaders, SESSION_COOKIE } from './security';

export interface ConsoleOptions {
  data: ConsoleData;
  guard: ConsoleGuard;
  /** The output folder's history (history/HistoryIndex): the drills, posture and exports pages. */
  history: { read(): Promise<History> };
  namespace: string;
  /** The Temporal Web UI, to link each run to. */
  temporalUiUrl?: string;
  /** Behind the operator's proxy: X-Forwarded-* are believed (the cookie is Secure over https). */
  behindProxy?: boolean;
  /** Rows per page. */
  limit?: number;
}

const HEADERS = securityHeaders(STYLE_HASH);
const FORM_LIMIT = 8 * 1024;

/** The console's routes: server-rendered pages, one action (the nudge), the login form when a token is set. */
export function buildConsole(options: ConsoleOptions): FastifyInstance {
  const { data, guard } = options;
  const limit = options.limit ?? 100;
  const app = Fastify({ logger: false, trustProxy: options.behindProxy === true, bodyLimit: FORM_LIMIT });
  // Forms post urlencoded bodies; fastify parses only JSON on its own.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_LIMIT },
    (_req, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );

  const send = (reply: FastifyReply, status: number, title: string, current: string, body: Html) =>
    reply
      .code(status)
      .type('text/html; charset=utf-8')
      .send(page(title, current, body).text);

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
      reply.header('WWW-Authenticate', 'Bearer');
      return send(
        reply,
        401,
        'Sign in',
        '',
        markup`<p>
          This console needs its token: send <code>Authorization: Bearer &lt;token&gt;</code>, or
          <a href="/login">sign in</a>.
        </p>`,
      );
    }
  });

  app.setErrorHandler(async (err: Error & { statusCode?: number }, _req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 502;
    // The message is escaped like any other value; it may quote what Temporal answered.
    return send(reply, status, 'Not available', '', markup`<p class="notice error">${err.message}</p>`);
  });

  app.get('/', async (_req, reply) => reply.redirect('/runs', 303));

  app.get('/runs', async (_req, reply) => {
    const runs = await data.runs(limit);
    const body = runsBody({ runs, namespace: options.namespace, uiBaseUrl: options.temporalUiUrl });
    return send(reply, 200, 'Runs', '/runs', body);
  });

  app.get<{ Querystring: { nudged?: string } }>('/approvals', async (req, reply) => {
    const identity = guard.identity(req) ?? '';
    const waiting = await data.approvals(limit);
    const nudged = typeof req.query.nudged === 'string' ? req.query.nudged : undefined;
    const notice = nudged ? markup`Nudged <code>${nudged}</code>: it looks at its request now.` : undefined;
    return send(
      reply,
      200,
      'Approvals',
      '/approvals',
      approvalsBody({ waiting, csrf: guard.csrfToken(identity), notice }),
    );
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
    return reply.redirect(`/approvals?nudged=${encodeURIComponent(workflowId)}`, 303);
  });

  app.get<{ Querystring: { period?: string; last?: string } }>('/drills', async (req, reply) => {
    const periodDays = whole(req.query.period, 1, 3650) ?? DEFAULT_PERIOD_DAYS;
    const lastN = whole(req.query.last, 1, 100) ?? DEFAULT_TREND_DRILLS;
    const history = await options.history.read();
    return send(reply, 200, 'Drills', '/drills', drillsBody({ history, periodDays, lastN }));
  });

  app.get('/posture', async (_req, reply) =>
    send(reply, 200, 'Posture', '/posture', postureBody(await options.history.read())),
  );

  app.get('/exports', async (_req, reply) =>
    send(reply, 200, 'Exports', '/exports', exportsBody((await options.history.read()).exports)),
  );

  app.get('/login', async (_req, reply) => {
    if (!guard.needsToken) return reply.redirect('/runs', 303);
    return send(reply, 200, 'Sign in', '', loginForm());
  });

  app.post<{ Body: Record<string, string> | undefined }>('/login', async (req, reply) => {
    if (!guard.needsToken) return reply.redirect('/runs', 303);
    if (foreignOrigin(req)) return send(reply, 403, 'Refused', '', markup`<p>This form came from another site.</p>`);
    if (!guard.tokenMatches(req.body?.token ?? '')) {
      reply.header('WWW-Authenticate', 'Bearer');
      return send(
        reply,
        401,
        'Sign in',
        '',
        markup`<p class="notice error">That is not the token.</p>
          ${loginForm()}`,
      );
    }
    const secure = req.protocol === 'https' ? '; Secure' : '';
    reply.header('Set-Cookie', `${SESSION_COOKIE}=${guard.newSession()}; HttpOnly; SameSite=Strict; Path=/${secure}`);
    return reply.redirect('/runs', 303);
  });

  return app;
}

/** A whole number from a query string within [min, max], or undefined for anything else. */
function whole(value: string | undefined, min: number, max: number): number | undefined {
  const n = value !== undefined && /^\d{1,6}$/.test(value) ? Number(value) : NaN;
  return n >= min && n <= max ? n : undefined;
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
