import { z } from 'zod';
import { registerSecret } from '../../api/redact';
import { SECRET_HEADER } from '../env-secrets';
import { bool, ConfigError, type ConfigIssue, type Env, parseEnv, present, text, validHostPort } from './env';
import { DEFAULT_TASK_QUEUE, TOML_FIELDS, variableOf, type TemporalConfig, type TemporalSetting } from './temporal';
import { envconfig, profileFields, readConfigFile, type DataSource, type Profile } from './temporal-profile';

// The TEMPORAL_* variables are read by @temporalio/envconfig; these checks only refuse values it would misread.
const TemporalEnv = z.object({
  TEMPORAL_TLS: bool.optional(),
  RUNBOOKS_TASK_QUEUE: text.default(DEFAULT_TASK_QUEUE),
});

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
