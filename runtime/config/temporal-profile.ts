import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join } from 'node:path';
import { ConfigError } from './env';
import { TOML_FIELDS, type TemporalSetting } from './temporal';

/** Temporal's TOML file of profiles (TEMPORAL_CONFIG_FILE), as @temporalio/envconfig reads it. */

// Loaded on first use: `runbooks --help` and the codec server never connect.
const requireHere: (id: string) => unknown = createRequire(__filename);
export const envconfig = () => requireHere('@temporalio/envconfig') as typeof import('@temporalio/envconfig');

export type Profile = import('@temporalio/envconfig').ClientConfigProfile;
export type DataSource = import('@temporalio/envconfig').ConfigDataSource;

/** The settings a profile holds, each with its field's name (`*_path` or `*_data` for files). */
export function profileFields(profile: Profile): [TemporalSetting, string][] {
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
export function readConfigFile(e: Record<string, string>): { file: string; data: string } | undefined {
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
