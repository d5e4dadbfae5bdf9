import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { DIALECT_SETTINGS, type DialectSetting } from '../api/dialect';
import { registerSecret } from '../api/redact';
import { registerEnvironmentSecrets, SECRET_HEADER } from './env-secrets';
import { KEY_BYTES, type CodecKeys } from './codec';
import { EvidenceKeyError, parseEvidenceKey } from './evidence-key';
import { ALLOW_SHARED_KEY_FILES, keyFileProblem } from './key-file-permissions';
import { webhookTargetsOf, type WebhookTarget } from './webhooks';

/**
 * The worker's and the CLI's configuration, from the environment only (twelve-factor): every variable is validated
 * here, and every problem is reported with the variable's name. `.env.example` documents them.
 */

export const DEFAULT_TASK_QUEUE = 'backup-runbooks';
export const DEFAULT_TIMEOUT_MS = 30_000;

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

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

/** Each TLS file is a path or its PEM text (the `*_DATA` variables, `*_data` profile fields). */
export interface TlsSettings {
  clientCertPath?: string;
  clientCertData?: string;
  clientKeyPath?: string;
  clientKeyData?: string;
  serverCaCertPath?: string;
  serverCaCertData?: string;
  serverName?: string;
}

/** A setting of Temporal's environment configuration, named as a variable or as a profile field in messages. */
export type TemporalSetting =
  'address' | 'namespace' | 'apiKey' | 'tls' | 'serverName' | 'clientCert' | 'clientKey' | 'serverCaCert';

export interface TemporalConfig {
  /** Unset: the worker starts an embedded dev server (and the CLI looks for its address file). */
  address?: string;
  namespace: string;
  taskQueue: string;
  /** `false` for plain text; settings (possibly empty) for TLS with the system's roots. */
  tls: TlsSettings | false;
  apiKey?: string;
  /** gRPC headers (`TEMPORAL_GRPC_META_*`, a profile's `grpc_meta`). */
  grpcMeta?: Record<string, string>;
  /** The TOML profile read, if any, and the label of each setting taken from it (the environment overrides it). */
  profile?: { name: string; file: string; fields: Partial<Record<TemporalSetting, string>> };
}
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

export interface Config {
  temporal: TemporalConfig;
  service: ServiceConfig;
  /** Embedded state (dev server database, simulator, address files). */
  dataDir: string;
  outputDir: string;
  logLevel: LogLevelName;
  /** A workflow bundle prebuilt by `npm run build:bundle`; unset: bundled from source at start. */
  workflowBundle?: string;
  /** host:port of the Runtime's Prometheus endpoint (`/metrics`); unset: no endpoint. */
  metricsAddress?: string;
  /** host:port of the worker's health endpoint (`/healthz`, `/readyz`: worker/health-server.ts); unset: none. */
  healthAddress?: string;
  /** Runs kept in the worker's sticky cache; the others (mostly runs that only wait) are evicted and replay on wake. */
  maxCachedWorkflows?: number;
  /** How waits look (RUNBOOKS_WAIT_LOOKS, runtime/activity-deps.ts): inside one watch (the default), or one per attempt. */
  waitLooks?: 'watch' | 'attempts';
  /** Payload encryption keys; undefined: history is plain JSON, as Temporal writes it by default. */
  codecKeys?: CodecKeys;
  /** Worker Versioning; undefined (the default, and locally): the worker is unversioned. */
  versioning?: VersioningConfig;
  /** PKCS#8 PEM Ed25519 key that seals drill reports, created there when missing; unset: one in the data dir. */
  evidenceKeyFile?: string;
  /** Notification webhooks (runtime/webhooks.ts); empty or unset: none are sent. */
  webhooks?: WebhookTarget[];
  /** At start, retry an unreachable Temporal this long (RUNBOOKS_TEMPORAL_CONNECT_TIMEOUT_MS), then fail. */
  temporalConnectTimeoutMs?: number;
  /** After SIGTERM, running activities get this long (RUNBOOKS_SHUTDOWN_GRACE_TIME_MS) before they are cancelled. */
  shutdownGraceTimeMs?: number;
  /** RUNBOOKS_ALLOW_SHARED_KEY_FILES: key files that the group or others can read are accepted. */
  allowSharedKeyFiles?: boolean;
}

export interface VersioningConfig {
  deploymentName: string;
  /** Unset: the worker derives it from its workflow bundle (worker/versioning.ts). */
  buildId?: string;
  mode: VersioningMode;
}

/**
 * `auto-upgrade`: runs move to the newest build, which makes itself current at start (workers replaced in place, as
 * compose does). `pinned`: runs finish on the build that started them, and a release is promoted by hand (old workers
 * stay until their runs drain, as a rainbow deployment keeps them).
 */
export const VERSIONING_MODES = ['pinned', 'auto-upgrade'] as const;
export type VersioningMode = (typeof VERSIONING_MODES)[number];
/** The mode that strands no run whichever way the workers are replaced (docs/operations/deploy.md, "Upgrades"). */
export const DEFAULT_VERSIONING_MODE: VersioningMode = 'auto-upgrade';

type Env = Record<string, string | undefined>;

/**
 * Runs a worker keeps in memory (~1.8 MB each). Waiting runs wake rarely, and replaying one from its short history
 * costs milliseconds, so they need not stay cached; the SDK's default, sized from the heap, kept every one of them.
 * With 1,000 waiting runs, a cache of 100 held 635 MB of worker RSS and 50 held 481 MB (bench/waiting).
 */
export const DEFAULT_MAX_CACHED_WORKFLOWS = 50;

// Empty values count as unset, as they do in most `.env` tooling.
const present = (env: Env): Record<string, string> =>
  Object.fromEntries(
    Object.entries(env).flatMap(([k, v]) => (v === undefined || v.trim() === '' ? [] : [[k, v.trim()]])),
  );

const text = z.string().min(1);
const bool = z
  .enum(['true', 'false', '1', '0'], { error: "must be 'true' or 'false'" })
  .transform((v) => v === 'true' || v === '1');
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[^\s:/[\]]+):\d{1,5}$/;

/** host:port with a port from 1 to 65535: `127.0.0.1:99999` would only fail later, at the connection. */
function validHostPort(value: string): boolean {
  const port = Number(value.slice(value.lastIndexOf(':') + 1));
  return HOST_PORT.test(value) && port >= 1 && port <= 65535;
}

// The TEMPORAL_* variables are read by @temporalio/envconfig; these checks only refuse values it would misread.
const TemporalEnv = z.object({
  TEMPORAL_TLS: bool.optional(),
  RUNBOOKS_TASK_QUEUE: text.default(DEFAULT_TASK_QUEUE),
});
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
  BACKUP_TIMEOUT_MS: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of milliseconds')
    .transform(Number)
    .pipe(z.number().int().min(100, 'must be at least 100').max(600_000, 'must be at most 600000'))
    .optional(),
});

/** Variables that only make sense for a real service; the others have harmless defaults. */
const SERVICE_IDENTITY = [
  'BACKUP_PROJECT_ID',
  'BACKUP_CLIENT_ID',
  'BACKUP_CLIENT_SECRET',
  'BACKUP_CREDENTIALS_FILE',
] as const;

/** How long a starting worker keeps retrying an unreachable Temporal before it gives up (and exits non-zero). */
export const DEFAULT_TEMPORAL_CONNECT_TIMEOUT_MS = 60_000;
/** Running activities get this long to finish after SIGTERM; inside Docker's default 10 s stop timeout with cleanup. */
export const DEFAULT_SHUTDOWN_GRACE_TIME_MS = 8_000;

const millis = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number of milliseconds')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

const ProcessEnv = z.object({
  RUNBOOKS_DATA_DIR: text.default('.data'),
  RUNBOOKS_OUTPUT_DIR: text.optional(),
  LOG_LEVEL: z
    .string()
    .transform((v) => v.toLowerCase())
    .pipe(z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }))
    .default('info'),
  RUNBOOKS_WORKFLOW_BUNDLE: text.regex(/\.c?js$/, 'must name a .js file written by npm run build:bundle').optional(),
  RUNBOOKS_METRICS_ADDRESS: text.regex(HOST_PORT, 'must be host:port, e.g. 0.0.0.0:9464').optional(),
  RUNBOOKS_HEALTH_ADDRESS: text.regex(HOST_PORT, 'must be host:port, e.g. 0.0.0.0:8080').optional(),
  RUNBOOKS_MAX_CACHED_WORKFLOWS: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of runs')
    .transform(Number)
    .pipe(z.number().int().max(100_000, 'must be at most 100000'))
    .default(DEFAULT_MAX_CACHED_WORKFLOWS),
  RUNBOOKS_WAIT_LOOKS: z.enum(['watch', 'attempts'], { error: 'must be watch or attempts' }).default('watch'),
  RUNBOOKS_TEMPORAL_CONNECT_TIMEOUT_MS: millis(0, 3_600_000).default(DEFAULT_TEMPORAL_CONNECT_TIMEOUT_MS),
  RUNBOOKS_SHUTDOWN_GRACE_TIME_MS: millis(0, 600_000).default(DEFAULT_SHUTDOWN_GRACE_TIME_MS),
});

// Temporal joins the two as `<deploymentName>.<buildId>` in its older APIs and UI, so a name holds no dot.
const VersioningEnv = z.object({
  RUNBOOKS_DEPLOYMENT_NAME: text
    .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/, 'must be letters, digits, - or _ (no dots), e.g. backup-runbooks')
    .optional(),
  RUNBOOKS_BUILD_ID: text
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'must be letters, digits, ., - or _, e.g. 2026.11.1 or a git sha')
    .optional(),
  RUNBOOKS_VERSIONING: z.enum(VERSIONING_MODES, { error: "must be 'pinned' or 'auto-upgrade'" }).optional(),
});

/** Parses one group of variables, or throws a ConfigError naming each bad one. */
function parseEnv<S extends z.ZodObject>(schema: S, env: Env): z.output<S> {
  const result = schema.safeParse(present(env));
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((issue) => ({
      variable: String(issue.path[0] ?? 'environment'),
      message: issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message,
    })),
  );
}

// Loaded on first use: `runbooks --help` and the codec server never connect.
const requireHere: (id: string) => unknown = createRequire(__filename);
const envconfig = () => requireHere('@temporalio/envconfig') as typeof import('@temporalio/envconfig');

const VARIABLES: Record<TemporalSetting, string> = {
  address: 'TEMPORAL_ADDRESS',
  namespace: 'TEMPORAL_NAMESPACE',
  apiKey: 'TEMPORAL_API_KEY',
  tls: 'TEMPORAL_TLS',
  serverName: 'TEMPORAL_TLS_SERVER_NAME',
  clientCert: 'TEMPORAL_TLS_CLIENT_CERT',
  clientKey: 'TEMPORAL_TLS_CLIENT_KEY',
  serverCaCert: 'TEMPORAL_TLS_SERVER_CA_CERT',
};
const FILE_SETTINGS: readonly TemporalSetting[] = ['clientCert', 'clientKey', 'serverCaCert'];

/** The variable behind a setting; a file's is `*_PATH`, or `*_DATA` when its PEM text is given. */
function variableOf(setting: TemporalSetting, isData: boolean): string {
  if (!FILE_SETTINGS.includes(setting)) return VARIABLES[setting];
  return `${VARIABLES[setting]}${isData ? '_DATA' : '_PATH'}`;
}

const TOML_FIELDS: Record<TemporalSetting, string> = {
  address: 'address',
  namespace: 'namespace',
  apiKey: 'api_key',
  tls: 'tls.disabled',
  serverName: 'tls.server_name',
  clientCert: 'tls.client_cert',
  clientKey: 'tls.client_key',
  serverCaCert: 'tls.server_ca_cert',
};

type Profile = import('@temporalio/envconfig').ClientConfigProfile;
type DataSource = import('@temporalio/envconfig').ConfigDataSource;

/** The settings a profile holds, each with its field's name (`*_path` or `*_data` for files). */
function profileFields(profile: Profile): [TemporalSetting, string][] {
  const fileField = (base: string, source: DataSource | undefined) =>
    source && `${base}${'path' in source ? '_path' : '_data'}`;
  const fields: [TemporalSetting, string | undefined][] = [
    ['address', profile.address !== undefined ? TOML_FIELDS.address : undefined],
    ['namespace', profile.namespace !== undefined ? TOML_FIELDS.namespace : undefined],
    ['apiKey', profile.apiKey !== undefined ? TOML_FIELDS.apiKey : undefined],
    ['tls', profile.tls?.disabled !== undefined ? TOML_FIELDS.tls : undefined],
    ['serverName', profile.tls?.serverName !== undefined ? TOML_FIELDS.serverName : undefined],
    ['clientCert', fileField(TOML_FIELDS.clientCert, profile.tls?.clientCert)],
    ['clientKey', fileField(TOML_FIELDS.clientKey, profile.tls?.clientKey)],
    ['serverCaCert', fileField(TOML_FIELDS.serverCaCert, profile.tls?.serverCACert)],
  ];
  return fields.flatMap(([setting, field]) => (field === undefined ? [] : [[setting, field]]));
}

/** Where Temporal's tools look for their TOML file when TEMPORAL_CONFIG_FILE is unset (as envconfig does). */
function defaultConfigFile(e: Record<string, string>): string | undefined {
  if (process.platform === 'win32') return e.APPDATA && join(e.APPDATA, 'temporalio', 'temporal.toml');
  if (process.platform === 'darwin') {
    return e.HOME && join(e.HOME, 'Library', 'Application Support', 'temporalio', 'temporal.toml');
  }
  const dir = e.XDG_CONFIG_HOME ?? (e.HOME && join(e.HOME, '.config'));
  return dir && isAbsolute(dir) ? join(dir, 'temporalio', 'temporal.toml') : undefined;
}

/** The TOML file's text: TEMPORAL_CONFIG_FILE (which must exist), or the default file if there is one. */
function readConfigFile(e: Record<string, string>): { file: string; data: string } | undefined {
  const file = e.TEMPORAL_CONFIG_FILE ?? defaultConfigFile(e);
  if (file === undefined) return undefined;
  try {
    return { file, data: readFileSync(file, 'utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    if (code === 'ENOENT' && e.TEMPORAL_CONFIG_FILE === undefined) return undefined;
    throw new ConfigError([{ variable: 'TEMPORAL_CONFIG_FILE', message: `cannot read ${file}: ${code}` }]);
  }
}

/**
 * The Temporal part only (the CLI needs no service settings), through Temporal's environment configuration: a TOML
 * profile (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE) overridden by the TEMPORAL_* variables.
 */
export function loadTemporalConfig(env: Env = process.env): TemporalConfig {
  const own = parseEnv(TemporalEnv, env);
  const e = present(env);
  const { loadClientConfigFromToml, loadClientConfigProfile } = envconfig();
  const config = readConfigFile(e);
  const profileName = e.TEMPORAL_PROFILE ?? 'default';
  let fileProfile: Profile | undefined;
  if (config) {
    try {
      // Strict: a misspelled field is refused, never ignored.
      fileProfile = loadClientConfigFromToml(Buffer.from(config.data), { strict: true }).profiles[profileName];
    } catch (err) {
      throw new ConfigError([
        { variable: 'TEMPORAL_CONFIG_FILE', message: `${config.file}: ${(err as Error).message}` },
      ]);
    }
  }
  if (e.TEMPORAL_PROFILE !== undefined && fileProfile === undefined) {
    const where = config ? `no profile '${profileName}' in ${config.file}` : 'no Temporal config file was found';
    throw new ConfigError([{ variable: 'TEMPORAL_PROFILE', message: `${where} (set TEMPORAL_CONFIG_FILE)` }]);
  }
  let merged: Profile;
  try {
    merged = loadClientConfigProfile({
      profile: profileName,
      ...(config && fileProfile ? { configSource: { data: config.data } } : { disableFile: true }),
      configFileStrict: true,
      overrideEnvVars: e,
    });
  } catch (err) {
    // Only a file given both as a path and as data gets here, e.g. a profile's *_data and a *_PATH variable.
    throw new ConfigError([{ variable: 'TEMPORAL_TLS', message: (err as Error).message }]);
  }

  const envName = (setting: TemporalSetting) => variableOf(setting, e[variableOf(setting, true)] !== undefined);
  // A setting the environment does not give came from the profile.
  const fromFile = Object.fromEntries(
    profileFields(fileProfile ?? {}).flatMap(([setting, field]) =>
      e[envName(setting)] === undefined && config
        ? [[setting, `profile.${profileName}.${field} in ${config.file}`]]
        : [],
    ),
  ) as Partial<Record<TemporalSetting, string>>;
  const nameOf = (setting: TemporalSetting) => fromFile[setting] ?? envName(setting);

  const issues: ConfigIssue[] = [];
  const address = merged.address?.trim() || undefined;
  if (address !== undefined && !validHostPort(address)) {
    issues.push({ variable: nameOf('address'), message: `must be host:port, e.g. localhost:7233, not '${address}'` });
  }
  const tls = merged.tls;
  const tlsGiven = (['serverName', 'clientCert', 'clientKey', 'serverCaCert'] as const).filter((s) =>
    s === 'serverName' ? tls?.serverName !== undefined : tls?.[s === 'serverCaCert' ? 'serverCACert' : s] !== undefined,
  );
  if (address === undefined) {
    for (const setting of [...tlsGiven, ...(merged.apiKey !== undefined ? (['apiKey'] as const) : [])]) {
      issues.push({
        variable: nameOf(setting),
        message: 'needs TEMPORAL_ADDRESS (the embedded dev server takes neither TLS nor keys)',
      });
    }
  }
  if ((tls?.clientCert === undefined) !== (tls?.clientKey === undefined)) {
    const missing = tls?.clientCert ? 'clientKey' : 'clientCert';
    const name = fromFile[tls?.clientCert ? 'clientCert' : 'clientKey']
      ? `profile.${profileName}.${TOML_FIELDS[missing]}_path`
      : envName(missing);
    issues.push({ variable: name, message: 'is required with its pair: a client certificate needs its key' });
  }
  if (tls?.disabled === true && tlsGiven.length > 0) {
    const asking = tlsGiven.map(nameOf).join(', ');
    issues.push({ variable: nameOf('tls'), message: `turns TLS off, but ${asking} ask for TLS` });
  }
  if (issues.length > 0) throw new ConfigError(issues);

  const text = (source: DataSource | undefined) =>
    source && 'data' in source ? Buffer.from(source.data).toString('utf8') : undefined;
  registerTemporalSecrets(merged.apiKey, text(tls?.clientKey), merged.grpcMeta);
  const path = (source: DataSource | undefined) => (source && 'path' in source ? source.path : undefined);
  // As in Temporal's environment configuration: TLS when asked for, or when any TLS setting or an API key is given.
  const tlsOn = tls?.disabled !== undefined ? !tls.disabled : tlsGiven.length > 0 || merged.apiKey !== undefined;
  return {
    address,
    namespace: merged.namespace?.trim() || 'default',
    taskQueue: own.RUNBOOKS_TASK_QUEUE,
    tls: tlsOn
      ? {
          clientCertPath: path(tls?.clientCert),
          clientCertData: text(tls?.clientCert),
          clientKeyPath: path(tls?.clientKey),
          clientKeyData: text(tls?.clientKey),
          serverCaCertPath: path(tls?.serverCACert),
          serverCaCertData: text(tls?.serverCACert),
          serverName: tls?.serverName,
        }
      : false,
    apiKey: merged.apiKey,
    grpcMeta: merged.grpcMeta && Object.keys(merged.grpcMeta).length > 0 ? merged.grpcMeta : undefined,
    profile: config && fileProfile ? { name: profileName, file: config.file, fields: fromFile } : undefined,
  };
}

/** Whatever of the Temporal settings is a secret is redacted wherever it would be logged, worker and CLI alike. */
function registerTemporalSecrets(apiKey?: string, clientKeyData?: string, grpcMeta?: Record<string, string>): void {
  registerSecret(apiKey);
  registerSecret(clientKeyData);
  for (const [header, value] of Object.entries(grpcMeta ?? {})) if (SECRET_HEADER.test(header)) registerSecret(value);
}

/** The name of a setting in messages: its profile field when it came from the TOML file, else its variable. */
export function temporalSettingName(temporal: TemporalConfig, setting: TemporalSetting): string {
  const tls = temporal.tls || {};
  const data = { clientCert: tls.clientCertData, clientKey: tls.clientKeyData, serverCaCert: tls.serverCaCertData };
  const isData = setting in data && data[setting as keyof typeof data] !== undefined;
  return temporal.profile?.fields[setting] ?? variableOf(setting, isData);
}

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

/** The worker's deployment version, or undefined when it is unversioned (no RUNBOOKS_DEPLOYMENT_NAME). */
export function loadVersioningConfig(env: Env = process.env): VersioningConfig | undefined {
  const e = parseEnv(VersioningEnv, env);
  if (e.RUNBOOKS_DEPLOYMENT_NAME === undefined) {
    const orphans = (['RUNBOOKS_BUILD_ID', 'RUNBOOKS_VERSIONING'] as const).filter((name) => e[name] !== undefined);
    if (orphans.length > 0) {
      throw new ConfigError(orphans.map((variable) => ({ variable, message: 'needs RUNBOOKS_DEPLOYMENT_NAME' })));
    }
    return undefined;
  }
  return {
    deploymentName: e.RUNBOOKS_DEPLOYMENT_NAME,
    buildId: e.RUNBOOKS_BUILD_ID,
    mode: e.RUNBOOKS_VERSIONING ?? DEFAULT_VERSIONING_MODE,
  };
}

/** Everything the worker needs; all problems of all groups are reported together. */
export function loadConfig(env: Env = process.env): Config {
  registerEnvironmentSecrets(env);
  const issues: ConfigIssue[] = [];
  const attempt = <T>(load: () => T): T | undefined => {
    try {
      return load();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      issues.push(...err.issues);
      return undefined;
    }
  };
  const temporal = attempt(() => loadTemporalConfig(env));
  const service = attempt(() => loadServiceConfig(env));
  const rest = attempt(() => parseEnv(ProcessEnv, env));
  const codec = attempt(() => ({ keys: loadCodecKeys(env) }));
  const versioning = attempt(() => ({ config: loadVersioningConfig(env) }));
  const evidence = attempt(() => ({ keyFile: loadEvidenceKeyFile(env) }));
  const webhooks = attempt(() => loadWebhookTargets(env));
  const shared = attempt(() => ({ allowed: allowSharedKeyFiles(env) }));
  if (!temporal || !service || !rest || !codec || !versioning || !evidence || !webhooks || !shared) {
    throw new ConfigError(issues);
  }
  return {
    temporal,
    service,
    dataDir: rest.RUNBOOKS_DATA_DIR,
    outputDir: rest.RUNBOOKS_OUTPUT_DIR ?? join(rest.RUNBOOKS_DATA_DIR, 'output'),
    logLevel: rest.LOG_LEVEL,
    workflowBundle: rest.RUNBOOKS_WORKFLOW_BUNDLE,
    metricsAddress: rest.RUNBOOKS_METRICS_ADDRESS,
    healthAddress: rest.RUNBOOKS_HEALTH_ADDRESS,
    maxCachedWorkflows: rest.RUNBOOKS_MAX_CACHED_WORKFLOWS,
    waitLooks: rest.RUNBOOKS_WAIT_LOOKS,
    codecKeys: codec.keys,
    versioning: versioning.config,
    evidenceKeyFile: evidence.keyFile,
    webhooks: webhooks.length > 0 ? webhooks : undefined,
    temporalConnectTimeoutMs: rest.RUNBOOKS_TEMPORAL_CONNECT_TIMEOUT_MS,
    shutdownGraceTimeMs: rest.RUNBOOKS_SHUTDOWN_GRACE_TIME_MS,
    ...(shared.allowed ? { allowSharedKeyFiles: true } : {}),
  };
}

const SharedKeyFilesEnv = z.object({ [ALLOW_SHARED_KEY_FILES]: bool.optional() });

/** RUNBOOKS_ALLOW_SHARED_KEY_FILES (runtime/key-file-permissions.ts); false unless set. */
export function allowSharedKeyFiles(env: Env = process.env): boolean {
  return parseEnv(SharedKeyFilesEnv, env)[ALLOW_SHARED_KEY_FILES] ?? false;
}

/** A ConfigError naming `variable` when the key file at `path` can be read by its group or others. */
function refuseSharedKeyFile(path: string, variable: string, env: Env): void {
  const problem = keyFileProblem(path, allowSharedKeyFiles(env));
  if (problem) throw new ConfigError([{ variable, message: problem }]);
}

/**
 * RUNBOOKS_EVIDENCE_KEY_FILE, checked now: a bad key must stop the worker, not the first drill's report. A missing
 * one is fine: the worker creates it at start (runtime/evidence-key.ts), once for every replica sharing the volume.
 */
export function loadEvidenceKeyFile(env: Env = process.env, read = (path: string) => readFileSync(path, 'utf8')) {
  const path = parseEnv(z.object({ RUNBOOKS_EVIDENCE_KEY_FILE: text.optional() }), env).RUNBOOKS_EVIDENCE_KEY_FILE;
  if (path === undefined) return undefined;
  try {
    parseEvidenceKey(read(path), path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return path;
    const message =
      err instanceof EvidenceKeyError
        ? err.message
        : `${path}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
    throw new ConfigError([{ variable: 'RUNBOOKS_EVIDENCE_KEY_FILE', message }]);
  }
  refuseSharedKeyFile(path, 'RUNBOOKS_EVIDENCE_KEY_FILE', env);
  return path;
}

/** RUNBOOKS_WEBHOOK_* or RUNBOOKS_WEBHOOKS_FILE; none: an empty list. */
export function loadWebhookTargets(env: Env = process.env, read?: (path: string) => string): WebhookTarget[] {
  const { targets, issues } = webhookTargetsOf(env, read);
  if (issues.length > 0) throw new ConfigError(issues);
  return targets;
}

/** Where the data directory is, for the CLI (which needs no other setting of the worker). */
export function dataDirOf(env: Env = process.env): string {
  return parseEnv(ProcessEnv.pick({ RUNBOOKS_DATA_DIR: true }), env).RUNBOOKS_DATA_DIR;
}

// --- Payload encryption (runtime/codec.ts) ---------------------------------------------------------------------------

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

// --- The web console (runbooks serve, console/) ----------------------------------------------------------------------

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
