import { hostname, networkInterfaces } from 'node:os';
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

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

/** `host:port` (lower case, IPv6 in brackets), as a Host header names a server. */
function hostPort(host: string, port: number): string {
  const name = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `${name.toLowerCase()}:${port}`;
}

/** A Host header (or host[:port]) as `host:port`; no port means http's default, 80. Unparsable: ''. */
export function normalizeHostHeader(header: string): string {
  const match = /^(\[[0-9a-f:.]+\]|[^[\]:\s]+)(?::(\d{1,5}))?$/.exec(header.trim().toLowerCase());
  return match ? `${match[1] ?? ''}:${match[2] ?? '80'}` : '';
}

/**
 * The Host headers this server answers: its own address (for a loopback or wildcard bind, every local name), the
 * allowed origin's host, and any name given with `allowedHosts`.
 */
export function acceptedHosts(bound: string, port: number, allowedOrigin: string, extra: string[] = []): Set<string> {
  const hosts = new Set<string>([hostPort(bound, port)]);
  const wildcard = WILDCARDS.has(bound);
  if (wildcard || isLoopback(bound)) {
    for (const name of LOOPBACK_NAMES) hosts.add(hostPort(name, port));
  }
  if (wildcard) {
    hosts.add(hostPort(hostname(), port));
    for (const nic of Object.values(networkInterfaces()).flat()) if (nic) hosts.add(hostPort(nic.address, port));
  }
  if (allowedOrigin !== '*') {
    const origin = new URL(allowedOrigin);
    hosts.add(hostPort(origin.hostname, Number(origin.port || (origin.protocol === 'https:' ? 443 : 80))));
  }
  for (const name of extra) {
    const given = normalizeHostHeader(name);
    // A name without a port: as a proxy in front (80, 443) or a DNS name for this port would send it.
    if (/:\d+$/.test(name.trim())) hosts.add(given);
    else for (const p of [80, 443, port]) hosts.add(given.replace(/:80$/, `:${p}`));
  }
  return hosts;
}
