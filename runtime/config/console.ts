import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { registerSecret } from '../../api/redact';
import { bool, mdCode, ConfigError, type Env, parseEnv, type SettingDoc, text } from './env';
import { refuseSharedKeyFile } from './key-files';

/** The web console (runbooks serve, console/); its command-line options override these. */

/** The console's port when neither --port nor RUNBOOKS_CONSOLE_PORT names one. */
export const DEFAULT_CONSOLE_PORT = 8090;

const ConsoleEnv = z.object({
  RUNBOOKS_CONSOLE_HOST: text.optional(),
  RUNBOOKS_CONSOLE_PORT: z
    .string()
    .regex(/^\d{1,5}$/, 'must be a port number')
    .transform(Number)
    .pipe(z.number().int().max(65535, 'must be at most 65535'))
    .optional(),
  RUNBOOKS_CONSOLE_TOKEN_FILE: text.optional(),
  RUNBOOKS_CONSOLE_BEHIND_PROXY: bool.optional(),
  RUNBOOKS_TEMPORAL_UI_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
});

export interface ConsoleSettings {
  host?: string;
  port?: number;
  tokenFile?: string;
  behindProxy?: boolean;
  temporalUiUrl?: string;
}

/** The console's settings from the environment; its command-line options override them. */
export function loadConsoleSettings(env: Env = process.env): ConsoleSettings {
  const e = parseEnv(ConsoleEnv, env);
  return {
    host: e.RUNBOOKS_CONSOLE_HOST,
    port: e.RUNBOOKS_CONSOLE_PORT,
    tokenFile: e.RUNBOOKS_CONSOLE_TOKEN_FILE,
    behindProxy: e.RUNBOOKS_CONSOLE_BEHIND_PROXY,
    temporalUiUrl: e.RUNBOOKS_TEMPORAL_UI_URL,
  };
}

/**
 * The console's bearer token from its file: at least 16 characters, and (as every key file) readable by its owner
 * only unless RUNBOOKS_ALLOW_SHARED_KEY_FILES says otherwise. `variable` names where the path came from.
 */
export function loadConsoleToken(path: string, variable: string, env: Env = process.env): string {
  let token: string;
  try {
    token = readFileSync(path, 'utf8').trim();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ConfigError([{ variable, message: `${path}: cannot be read (${code})` }]);
  }
  if (token.length < 16) throw new ConfigError([{ variable, message: `${path}: the token is under 16 characters` }]);
  refuseSharedKeyFile(path, variable, env);
  registerSecret(token);
  return token;
}

/** docs/configuration.md, "The web console" (its defaults are console/serve-command.ts's). */
export const CONSOLE_SETTINGS: readonly SettingDoc[] = [
  {
    name: 'RUNBOOKS_CONSOLE_HOST',
    default: mdCode('127.0.0.1'),
    meaning: 'The address the console listens on; off localhost it needs a token or `RUNBOOKS_CONSOLE_BEHIND_PROXY`',
  },
  { name: 'RUNBOOKS_CONSOLE_PORT', default: mdCode(DEFAULT_CONSOLE_PORT), meaning: 'Its port' },
  {
    name: 'RUNBOOKS_CONSOLE_TOKEN_FILE',
    default: 'none',
    meaning: 'A file (mode 0600) holding the bearer token every request needs, 16 characters or more',
  },
  {
    name: 'RUNBOOKS_CONSOLE_BEHIND_PROXY',
    default: mdCode('false'),
    meaning: '`true`: a proxy in front authenticates every request, so no token is needed off localhost',
  },
  {
    name: 'RUNBOOKS_TEMPORAL_UI_URL',
    default: "the dev server's UI, when known",
    meaning: 'The Temporal Web UI that the Runs page links each run to',
  },
];
