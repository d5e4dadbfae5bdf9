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
