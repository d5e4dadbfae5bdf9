import { z } from 'zod';
import type { DialectDetection, TokenProvider } from './auth';
import type { ServiceCaller } from './caller';
import { dialectOfToken } from './dialect';
import { BackupServiceError } from './errors';
import { record } from './schemas/common';

/**
 * Telling the service's dialect from its answers, for a client set to `auto`: the token answer's shape first; when
 * that cannot tell (the OAuth2 endpoint answers alike in both), the tokens of a first listing, one item of each list
 * that carries a provider or a resource type. When nothing tells, the neutral vocabulary is assumed, and the
 * detection says so.
 */

const Items = record({ accounts: z.array(z.unknown()).optional(), resources: z.array(z.unknown()).optional() });

interface Probe {
  path: string;
  /** The tokens of an item that name a dialect, in order of trust, with how to describe them. */
  tokens(item: Record<string, unknown>): [string, unknown][];
}

const PROBES: readonly Probe[] = [
  {
    path: '/source-accounts/list',
    tokens: (a) => [['a source account of cloudProvider', attributesOf(a.sourceAccountAttributes).cloudProvider]],
  },
  {
    path: '/resources',
    tokens: (r) => [
      ['a resource of type', r.resourceType],
      ['a resource of cloudProvider', r.cloudProvider],
    ],
  },
  {
    path: '/restore-accounts/list',
    tokens: (a) => [['a restore account of cloudProvider', attributesOf(a.restoreAccountAttributes).cloudProvider]],
  },
];

const attributesOf = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};

export async function detectDialect(
  tokens: TokenProvider,
  caller: ServiceCaller,
  projectPath: string,
): Promise<DialectDetection> {
  await tokens.getToken();
  if (tokens.tokenDialect) return { dialect: tokens.tokenDialect, how: 'from the token answer' };
  for (const probe of PROBES) {
    const found = await firstItem(caller, projectPath + probe.path);
    for (const [what, token] of found ? probe.tokens(found) : []) {
      const dialect = typeof token === 'string' ? dialectOfToken(token) : undefined;
      if (dialect) return { dialect, how: `from the first listing (${what} ${String(token)})` };
    }
  }
  return { dialect: 'neutral', how: 'assumed: neither the token answer nor a first listing tells' };
}

/**
 * The first item of a list, asked with an empty body (the same in both dialects). A list this caller may not read
 * tells nothing; a service that cannot be reached fails the detection, to be tried again.
 */
async function firstItem(caller: ServiceCaller, path: string): Promise<Record<string, unknown> | undefined> {
  try {
    const { data } = await caller.call({
      method: 'POST',
      path,
      json: {},
      query: { pageSize: 1 },
      ok: [200],
      schema: Items,
    });
    const item: unknown = (data.accounts ?? data.resources ?? [])[0];
    return typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : undefined;
  } catch (err) {
    if (err instanceof BackupServiceError && !err.retryable) return undefined;
    throw err;
  }
}
