import { z } from 'zod';
import { registerSecret } from '../../api/redact';
import { bool, mdCode, ConfigError, type Env, parseEnv, type SettingDoc } from './env';
import { loadConsoleToken } from './console';

/** `runbooks codec-server`: who may call it. */

export interface CodecServerAccess {
  token?: string;
  /** A proxy in front authenticates every request (RUNBOOKS_CODEC_SERVER_BEHIND_PROXY). */
  behindProxy: boolean;
}

/**
 * Who may call the codec server: a bearer token (RUNBOOKS_CODEC_SERVER_TOKEN, or a token file read as the console
 * reads its own: `tokenFile`, the --token-file option, else RUNBOOKS_CODEC_SERVER_TOKEN_FILE; not both), or, with
 * RUNBOOKS_CODEC_SERVER_BEHIND_PROXY, a proxy in front that authenticates every request.
 */
export function loadCodecServerAccess(env: Env = process.env, tokenFile?: string): CodecServerAccess {
  const schema = z.object({
    RUNBOOKS_CODEC_SERVER_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
    RUNBOOKS_CODEC_SERVER_TOKEN_FILE: z.string().trim().min(1).optional(),
    RUNBOOKS_CODEC_SERVER_BEHIND_PROXY: bool.optional(),
  });
  const e = parseEnv(schema, env);
  const behindProxy = e.RUNBOOKS_CODEC_SERVER_BEHIND_PROXY ?? false;
  const file = tokenFile ?? e.RUNBOOKS_CODEC_SERVER_TOKEN_FILE;
  const variable = tokenFile !== undefined ? '--token-file' : 'RUNBOOKS_CODEC_SERVER_TOKEN_FILE';
  if (file !== undefined && e.RUNBOOKS_CODEC_SERVER_TOKEN !== undefined) {
    throw new ConfigError([{ variable, message: 'set RUNBOOKS_CODEC_SERVER_TOKEN or a token file, not both' }]);
  }
  if (file !== undefined) return { token: loadConsoleToken(file, variable, env), behindProxy };
  registerSecret(e.RUNBOOKS_CODEC_SERVER_TOKEN);
  return { token: e.RUNBOOKS_CODEC_SERVER_TOKEN, behindProxy };
}

/** docs/configuration.md, "Encryption and keys". */
export const CODEC_SERVER_SETTINGS: readonly SettingDoc[] = [
  {
    name: 'RUNBOOKS_CODEC_SERVER_TOKEN',
    default: 'none',
    meaning: '`runbooks codec-server`: requests need `Authorization: Bearer <token>` (16 characters or more)',
  },
  {
    name: 'RUNBOOKS_CODEC_SERVER_TOKEN_FILE',
    default: 'none',
    meaning:
      'Or a file (mode 0600) holding that token (not both); off localhost `runbooks codec-server` needs a token or ' +
      '`--behind-proxy`',
  },
  {
    name: 'RUNBOOKS_CODEC_SERVER_BEHIND_PROXY',
    default: mdCode('false'),
    meaning:
      '`true`: as `--behind-proxy`, a proxy in front authenticates every request, so `runbooks codec-server` needs ' +
      'no token off localhost',
  },
];
