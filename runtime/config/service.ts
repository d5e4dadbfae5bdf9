import { z } from 'zod';
import { DIALECT_SETTINGS, type DialectSetting } from '../../api/dialect';
import { registerSecret } from '../../api/redact';
import {
  mdCode,
  ConfigError,
  type ConfigIssue,
  type Env,
  millis,
  parseEnv,
  present,
  type SettingDoc,
  text,
} from './env';

/** The Backup Management Service (BACKUP_*): a real one, or the simulator in-process when none is configured. */

export const DEFAULT_TIMEOUT_MS = 30_000;

export type ServiceConfig =
  | { mode: 'embedded'; dialect?: DialectSetting }
  | {
      mode: 'remote';
      /** BACKUP_SERVICE_DIALECT: the dialect request bodies are sent in, or `auto` to detect it. */
      dialect: DialectSetting;
      baseUrl: string;
      projectId: string;
      clientId?: string;
      clientSecret?: string;
      credentialsFile?: string;
      tokenEndpoint: 'json' | 'oauth2';
      timeoutMs: number;
    };

const ServiceEnv = z.object({
  BACKUP_SERVICE_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. https://backup.example.com/api' })
    .optional(),
  BACKUP_PROJECT_ID: text.optional(),
  BACKUP_CLIENT_ID: text.optional(),
  BACKUP_CLIENT_SECRET: text.optional(),
  BACKUP_CREDENTIALS_FILE: text.optional(),
  BACKUP_TOKEN_ENDPOINT: z.enum(['json', 'oauth2'], { error: "must be 'json' or 'oauth2'" }).default('json'),
  BACKUP_SERVICE_DIALECT: z
    .enum(DIALECT_SETTINGS, { error: `must be one of ${DIALECT_SETTINGS.join(', ')}` })
    .default('auto'),
  BACKUP_TIMEOUT_MS: millis(100, 600_000).optional(),
});

/** Variables that only make sense for a real service; the others have harmless defaults. */
const SERVICE_IDENTITY = [
  'BACKUP_PROJECT_ID',
  'BACKUP_CLIENT_ID',
  'BACKUP_CLIENT_SECRET',
  'BACKUP_CREDENTIALS_FILE',
] as const;

export function loadServiceConfig(env: Env = process.env): ServiceConfig {
  const e = parseEnv(ServiceEnv, env);
  const issues: ConfigIssue[] = [];
  if (!e.BACKUP_SERVICE_URL) {
    // Settings for a real service without its URL are a mistake, not a wish for the simulator.
    const given = present(env);
    const stray = SERVICE_IDENTITY.filter((k) => given[k] !== undefined);
    for (const variable of stray) {
      issues.push({ variable, message: 'needs BACKUP_SERVICE_URL; unset the BACKUP_* variables to use the simulator' });
    }
    if (issues.length > 0) throw new ConfigError(issues);
    return { mode: 'embedded', dialect: e.BACKUP_SERVICE_DIALECT };
  }
  if (!e.BACKUP_PROJECT_ID)
    issues.push({ variable: 'BACKUP_PROJECT_ID', message: 'is required with BACKUP_SERVICE_URL' });
  if (!e.BACKUP_CREDENTIALS_FILE) {
    if (!e.BACKUP_CLIENT_ID) {
      issues.push({ variable: 'BACKUP_CLIENT_ID', message: 'is required unless BACKUP_CREDENTIALS_FILE holds it' });
    }
    if (!e.BACKUP_CLIENT_SECRET) {
      issues.push({ variable: 'BACKUP_CLIENT_SECRET', message: 'is required unless BACKUP_CREDENTIALS_FILE is set' });
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
  registerSecret(e.BACKUP_CLIENT_SECRET);
  return {
    mode: 'remote',
    dialect: e.BACKUP_SERVICE_DIALECT,
    baseUrl: e.BACKUP_SERVICE_URL,
    projectId: e.BACKUP_PROJECT_ID ?? '',
    clientId: e.BACKUP_CLIENT_ID,
    clientSecret: e.BACKUP_CLIENT_SECRET,
    credentialsFile: e.BACKUP_CREDENTIALS_FILE,
    tokenEndpoint: e.BACKUP_TOKEN_ENDPOINT,
    timeoutMs: e.BACKUP_TIMEOUT_MS ?? DEFAULT_TIMEOUT_MS,
  };
}

/** docs/configuration.md, "The Backup Management Service". */
export const SERVICE_SETTINGS: readonly SettingDoc[] = [
  {
    name: 'BACKUP_SERVICE_URL',
    default: 'unset: the simulator, in-process',
    meaning:
      'The base URL including the API prefix (http or https), e.g. `https://acme.backup.example/api`. The project ' +
      'and credential variables below need it: without it they are an error',
  },
  { name: 'BACKUP_PROJECT_ID', default: 'required with the URL', meaning: 'The project (a uuid) the runbooks act on' },
  {
    name: 'BACKUP_CLIENT_ID',
    default: 'none',
    meaning: "The API credentials' ID; with `BACKUP_CLIENT_SECRET`, or in the credentials file",
  },
  {
    name: 'BACKUP_CLIENT_SECRET',
    default: 'none',
    meaning:
      "The API credentials' secret. When the credentials file exists it wins, and this goes stale after a rotation",
  },
  {
    name: 'BACKUP_CREDENTIALS_FILE',
    default: 'none',
    meaning:
      'A JSON file `{"clientId", "clientSecret"}` (mode 0600) that the worker reads its secret from and ' +
      '`rotateCredentials` writes; seeded from the two above when missing. Its folder must be writable',
  },
  {
    name: 'BACKUP_TOKEN_ENDPOINT',
    default: mdCode('json'),
    meaning: '`json` (`POST /v1/token`) or `oauth2` (the form-encoded `POST /v1/oauth2/token`)',
  },
  {
    name: 'BACKUP_TIMEOUT_MS',
    default: mdCode(DEFAULT_TIMEOUT_MS),
    meaning: 'The deadline of each request, 100 to 600000 ms',
  },
  {
    name: 'BACKUP_SERVICE_DIALECT',
    default: mdCode('auto'),
    meaning:
      "`public` (the real service's OpenAPI document), `neutral` (the specification, the simulator) or `auto`: told " +
      'by the token answer, else by a first listing; the worker logs the choice',
  },
];
