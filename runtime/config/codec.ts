import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { registerSecret } from '../../api/redact';
import { KEY_BYTES, type CodecKeys } from '../codec';
import { bool, mdCode, ConfigError, type Env, parseEnv, type SettingDoc, text } from './env';
import { refuseSharedKeyFile } from './key-files';

/** Payload encryption (runtime/codec.ts): the codec's keys, and whether history may stay in clear. */

const keyId = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'a key ID is 1 to 64 letters, digits, dots, dashes or _');
// Messages never echo the value: it is a secret.
const keyBytes = z
  .string()
  .regex(/^[A-Za-z0-9+/]{43}=$/, `must be base64 of ${KEY_BYTES} random bytes (openssl rand -base64 32)`)
  .transform((v) => new Uint8Array(Buffer.from(v, 'base64')));

const CodecEnv = z.object({
  RUNBOOKS_CODEC_KEY: z
    .string()
    .regex(/^[^:]+:[^:]+$/, 'must be <keyId>:<base64 key>')
    .transform((v) => v.split(':') as [string, string])
    .pipe(z.tuple([keyId, keyBytes]))
    .optional(),
  RUNBOOKS_CODEC_KEYS_FILE: text.optional(),
  RUNBOOKS_REQUIRE_ENCRYPTION: bool.optional(),
});

const CodecKeysFile = z
  .strictObject({ current: keyId, keys: z.record(keyId, keyBytes) })
  .refine((f) => f.keys[f.current] !== undefined, { message: 'current names no key in keys', path: ['current'] });

/**
 * The payload codec's keys, or undefined when encryption is off (the default): RUNBOOKS_CODEC_KEYS_FILE (a JSON file
 * `{ "current": id, "keys": { id: base64 } }`, which keeps retired keys for old history) or RUNBOOKS_CODEC_KEY.
 */
export function loadCodecKeys(
  env: Env = process.env,
  read = (path: string) => readFileSync(path, 'utf8'),
): CodecKeys | undefined {
  const keys = readCodecKeys(env, read);
  if (!keys && parseEnv(CodecEnv, env).RUNBOOKS_REQUIRE_ENCRYPTION) {
    const message = 'is true, but no codec key is configured: set RUNBOOKS_CODEC_KEY or RUNBOOKS_CODEC_KEYS_FILE';
    throw new ConfigError([{ variable: 'RUNBOOKS_REQUIRE_ENCRYPTION', message }]);
  }
  return keys;
}

function readCodecKeys(env: Env, read: (path: string) => string): CodecKeys | undefined {
  const e = parseEnv(CodecEnv, env);
  if (e.RUNBOOKS_CODEC_KEY && e.RUNBOOKS_CODEC_KEYS_FILE) {
    const message = 'set RUNBOOKS_CODEC_KEY or RUNBOOKS_CODEC_KEYS_FILE, not both';
    throw new ConfigError([{ variable: 'RUNBOOKS_CODEC_KEY', message }]);
  }
  if (e.RUNBOOKS_CODEC_KEY) {
    const [id, key] = e.RUNBOOKS_CODEC_KEY;
    registerSecret(Buffer.from(key).toString('base64'));
    return { current: id, keys: new Map([[id, key]]) } satisfies CodecKeys;
  }
  const path = e.RUNBOOKS_CODEC_KEYS_FILE;
  if (!path) return undefined;
  const fail = (message: string) => new ConfigError([{ variable: 'RUNBOOKS_CODEC_KEYS_FILE', message }]);
  refuseSharedKeyFile(path, 'RUNBOOKS_CODEC_KEYS_FILE', env);
  let json: unknown;
  try {
    json = JSON.parse(read(path));
  } catch (err) {
    const reason =
      (err as NodeJS.ErrnoException).code ?? (err instanceof SyntaxError ? 'not valid JSON' : 'unreadable');
    throw fail(`${path}: ${reason}`);
  }
  const parsed = CodecKeysFile.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(file)'}: ${i.message}`);
    throw fail(`${path}: ${issues.join('; ')}`);
  }
  for (const key of Object.values(parsed.data.keys)) registerSecret(Buffer.from(key).toString('base64'));
  return { current: parsed.data.current, keys: new Map(Object.entries(parsed.data.keys)) } satisfies CodecKeys;
}

/** docs/configuration.md, "Encryption and keys". */
export const CODEC_SETTINGS: readonly SettingDoc[] = [
  {
    name: 'RUNBOOKS_CODEC_KEY',
    default: 'unset: history in clear',
    meaning: `One key of encrypted history, \`<keyId>:<base64 of ${KEY_BYTES} bytes>\``,
  },
  {
    name: 'RUNBOOKS_CODEC_KEYS_FILE',
    default: 'none',
    meaning:
      'Or a JSON file `{"current": "<keyId>", "keys": {"<keyId>": "<base64>"}}` (mode 0600) that keeps retired keys; ' +
      'not with `RUNBOOKS_CODEC_KEY`',
  },
  {
    name: 'RUNBOOKS_REQUIRE_ENCRYPTION',
    default: mdCode('false'),
    meaning: '`true`: the worker and the CLI refuse to start without a codec key',
  },
];
