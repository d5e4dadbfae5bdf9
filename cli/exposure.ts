import type { ServerOptions } from 'node:http';
import { UsageError } from './errors';

/** The names a client on this machine uses for a server bound to loopback. */
export const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** Loopback addresses: a server of ours answers there without a token. */
export function isLoopback(host: string): boolean {
  return /^(?:localhost|127(?:\.\d{1,3}){3}|::1|\[::1\])$/i.test(host);
}

/**
 * Off loopback, a server of ours needs a token, or the operator's word that a proxy in front of it decides who gets
 * in; refused otherwise, before anything listens. `refusal` says what an open server would give away and how to close
 * it.
 */
export function checkExposure(
  host: string,
  token: string | undefined,
  behindProxy: boolean,
  refusal: (host: string) => string,
): void {
  if (isLoopback(host) || token !== undefined || behindProxy) return;
  throw new UsageError(refusal(host));
}

/**
 * Node server options that bound how long a client may take to send its headers and its whole request (408, then
 * closed), so that one sending a byte at a time holds nothing long. Node looks for connections past those deadlines
 * every 30 s by default, longer than either: here, every second at most.
 */
export function clientDeadlines(headersMs: number, requestMs: number): ServerOptions {
  return {
    headersTimeout: headersMs,
    requestTimeout: requestMs,
    connectionsCheckingInterval: Math.max(50, Math.min(headersMs, 1_000)),
  };
}
