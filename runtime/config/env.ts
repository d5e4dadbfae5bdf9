import { z } from 'zod';

/**
 * What every concern of the configuration shares: the environment's type, the error that names each variable at
 * fault, the parsing of a group of variables, the common value schemas, and the shape of a variable's docs line.
 */

export type Env = Record<string, string | undefined>;

export interface ConfigIssue {
  variable: string;
  message: string;
}

/** A configuration that cannot be used; `issues` name each variable at fault. */
export class ConfigError extends Error {
  constructor(readonly issues: readonly ConfigIssue[]) {
    super(`invalid configuration:\n${issues.map((i) => `  ${i.variable}: ${i.message}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * A variable's row in docs/configuration.md, as Markdown: `name` is the first cell without its backticks
 * (`TEMPORAL_GRPC_META_<NAME>` names a family), `default` and `meaning` the other two cells verbatim.
 * test/docs/configuration.test.ts checks the page against every module's table.
 */
export interface SettingDoc {
  name: string;
  default: string;
  meaning: string;
}

/** A value as the docs show it: in backticks. */
export const mdCode = (value: string | number): string => `\`${value}\``;

// Empty values count as unset, as they do in most `.env` tooling.
export const present = (env: Env): Record<string, string> =>
  Object.fromEntries(
    Object.entries(env).flatMap(([k, v]) => (v === undefined || v.trim() === '' ? [] : [[k, v.trim()]])),
  );

export const text = z.string().min(1);
export const bool = z
  .enum(['true', 'false', '1', '0'], { error: "must be 'true' or 'false'" })
  .transform((v) => v === 'true' || v === '1');
export const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[^\s:/[\]]+):\d{1,5}$/;

/** host:port with a port from 1 to 65535: `127.0.0.1:99999` would only fail later, at the connection. */
export function validHostPort(value: string): boolean {
  const port = Number(value.slice(value.lastIndexOf(':') + 1));
  return HOST_PORT.test(value) && port >= 1 && port <= 65535;
}

export const millis = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number of milliseconds')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

/** Parses one group of variables, or throws a ConfigError naming each bad one. */
export function parseEnv<S extends z.ZodObject>(schema: S, env: Env): z.output<S> {
  const result = schema.safeParse(present(env));
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((issue) => ({
      variable: String(issue.path[0] ?? 'environment'),
      message: issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message,
    })),
  );
}
