import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { normalizeHostHeader } from '../operator/exposure';

/**
 * Who may read the console and act through it. Reading needs the bearer token when one is set (in the Authorization
 * header, or a session cookie given for it by the login form); acting (a POST) needs, besides, the CSRF token of that
 * identity and an Origin, when the browser sends one, naming this server. Every comparison of a secret is
 * constant-time. Without a token the console answers only to the Host names of its own address, so that a page whose
 * DNS name is rebound to 127.0.0.1 cannot read it (and with it the CSRF token).
 */

export const SESSION_COOKIE = 'runbooks_console';
/** A session lasts this long, until it signs out, or until the console restarts (its secret is made at start). */
const SESSION_MS = 12 * 3600_000;
/** Sessions held at most: past this, the oldest is ended (a console has a few operators, not thousands). */
const MAX_SESSIONS = 1_000;

const mac = (secret: Buffer, text: string) => createHmac('sha256', secret).update(text).digest('base64url');

/** Constant-time equality of two strings (of any lengths: the length is not a secret worth hiding). */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface GuardOptions {
  /** When set, every request needs it. */
  token?: string;
  /** The Host headers answered (normalized `host:port`); undefined: any (with a token, or behind a proxy). */
  hosts?: Set<string>;
}

export class ConsoleGuard {
  private readonly secret = randomBytes(32);
  /** The live sessions, oldest first: a cookie is good only while its value is here, so that sign-out ends it. */
  private readonly sessions = new Set<string>();
  hosts: Set<string> | undefined;

  constructor(private readonly options: GuardOptions) {
    this.hosts = options.hosts;
  }

  get needsToken(): boolean {
    return this.options.token !== undefined;
  }

  /** False when the Host header names another server (a rebound DNS name). */
  hostAllowed(req: FastifyRequest): boolean {
    if (!this.hosts) return true;
    const host = req.headers.host;
    return host !== undefined && this.hosts.has(normalizeHostHeader(host));
  }

  /** The identity a request reads as (its CSRF token is derived from it), or undefined when it is not let in. */
  identity(req: FastifyRequest): string | undefined {
    const token = this.options.token;
    if (token === undefined) return 'local';
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (bearer !== undefined) return sameSecret(bearer, token) ? 'bearer' : undefined;
    const session = cookieOf(req, SESSION_COOKIE);
    return session !== undefined && this.validSession(session) ? `session:${session}` : undefined;
  }

  /** Checks a token given to the login form. */
  tokenMatches(given: string): boolean {
    return this.options.token !== undefined && sameSecret(given, this.options.token);
  }

  /** A new session cookie's value: `<issued ms>.<nonce>.<mac>`. */
  newSession(now = Date.now()): string {
    const body = `${now}.${randomBytes(16).toString('base64url')}`;
    const value = `${body}.${mac(this.secret, `session:${body}`)}`;
    this.sessions.add(value);
    for (const oldest of this.sessions) {
      if (this.sessions.size <= MAX_SESSIONS) break;
      this.sessions.delete(oldest);
    }
    return value;
  }

  /** Ends the session of a request (sign-out): its cookie is refused from now on. */
  endSession(req: FastifyRequest): void {
    const session = cookieOf(req, SESSION_COOKIE);
    if (session !== undefined) this.sessions.delete(session);
  }

  private validSession(value: string, now = Date.now()): boolean {
    const match = /^(\d{1,15})\.([\w-]{22})\.([\w-]{43})$/.exec(value);
    if (!match) return false;
    const body = `${match[1]}.${match[2]}`;
    if (!sameSecret(match[3] ?? '', mac(this.secret, `session:${body}`))) return false;
    if (now - Number(match[1]) >= SESSION_MS) {
      this.sessions.delete(value);
      return false;
    }
    return this.sessions.has(value);
  }

  /** The CSRF token of an identity: the forms of its pages carry it, and a POST must bring it back. */
  csrfToken(identity: string): string {
    return mac(this.secret, `csrf:${identity}`);
  }

  csrfValid(identity: string, given: unknown): boolean {
    return typeof given === 'string' && sameSecret(given, this.csrfToken(identity));
  }
}

/**
 * A POST from a page of another site: its Origin (sent by browsers on every POST) names another host, or the browser
 * says so in Sec-Fetch-Site. A client that sends neither (curl) still needs the CSRF token.
 */
export function foreignOrigin(req: FastifyRequest): boolean {
  if (req.headers['sec-fetch-site'] === 'cross-site') return true;
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  try {
    const from = new URL(origin);
    // Its own host as the request names it (behind a trusted proxy, X-Forwarded-Host), default ports dropped as in
    // an Origin.
    const own = new URL(`${from.protocol}//${req.host}`);
    return from.host.toLowerCase() !== own.host.toLowerCase();
  } catch {
    // `null` (a sandboxed frame, a redirect) included.
    return true;
  }
}

function cookieOf(req: FastifyRequest, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/** Headers on every answer: a strict CSP (the one stylesheet by its hash, images only inline), no sniffing. */
export function securityHeaders(styleHash: string): Record<string, string> {
  return {
    'Content-Security-Policy':
      `default-src 'none'; style-src '${styleHash}'; img-src data:; form-action 'self'; ` +
      "frame-ancestors 'none'; base-uri 'none'",
    'X-Content-Type-Options': 'nosniff',
    // Not no-referrer: under it a browser sends `Origin: null` with the page's own form, which foreignOrigin refuses.
    'Referrer-Policy': 'same-origin',
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-store',
  };
}
