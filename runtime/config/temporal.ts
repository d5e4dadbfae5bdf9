import { mdCode, type SettingDoc } from './env';

/**
 * The Temporal connection: its settings, their names (a variable, or a field of a TOML profile), and their docs.
 * temporal-load.ts reads them (through @temporalio/envconfig), temporal-profile.ts reads the TOML file.
 */

export const DEFAULT_TASK_QUEUE = 'backup-runbooks';

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
export function variableOf(setting: TemporalSetting, isData: boolean): string {
  if (!FILE_SETTINGS.includes(setting)) return VARIABLES[setting];
  return `${VARIABLES[setting]}${isData ? '_DATA' : '_PATH'}`;
}

export const TOML_FIELDS: Record<TemporalSetting, string> = {
  address: 'address',
  namespace: 'namespace',
  apiKey: 'api_key',
  tls: 'tls.disabled',
  serverName: 'tls.server_name',
  clientCert: 'tls.client_cert',
  clientKey: 'tls.client_key',
  serverCaCert: 'tls.server_ca_cert',
};

/** The name of a setting in messages: its profile field when it came from the TOML file, else its variable. */
export function temporalSettingName(temporal: TemporalConfig, setting: TemporalSetting): string {
  const tls = temporal.tls || {};
  const data = { clientCert: tls.clientCertData, clientKey: tls.clientKeyData, serverCaCert: tls.serverCaCertData };
  const isData = setting in data && data[setting as keyof typeof data] !== undefined;
  return temporal.profile?.fields[setting] ?? variableOf(setting, isData);
}

const none = 'none';

/** docs/configuration.md, "Temporal connection". */
export const TEMPORAL_SETTINGS: readonly SettingDoc[] = [
  {
    name: 'TEMPORAL_CONFIG_FILE',
    default: '`~/.config/temporalio/temporal.toml` if any',
    meaning:
      'The TOML file of profiles, as the `temporal` CLI writes it. A file named here must exist. The default follows ' +
      '`XDG_CONFIG_HOME` (macOS, Windows: theirs)',
  },
  {
    name: 'TEMPORAL_PROFILE',
    default: mdCode('default'),
    meaning: 'The profile to use; one that is not in the file is an error',
  },
  {
    name: 'TEMPORAL_ADDRESS',
    default: 'unset: an embedded dev server on 127.0.0.1',
    meaning:
      "`host:port` of the Temporal frontend. Unset, the worker starts the Temporal CLI's dev server and writes its " +
      'address where the CLI finds it',
  },
  { name: 'TEMPORAL_NAMESPACE', default: mdCode('default'), meaning: 'The namespace of the runbooks' },
  { name: 'TEMPORAL_API_KEY', default: none, meaning: 'An API key (Temporal Cloud); implies TLS' },
  {
    name: 'TEMPORAL_TLS',
    default: 'on with any TLS setting or an API key',
    meaning: '`true` or `false`; `false` turns TLS off',
  },
  {
    name: 'TEMPORAL_TLS_CLIENT_CERT_PATH',
    default: none,
    meaning: 'The mTLS client certificate (PEM file); it needs its key',
  },
  {
    name: 'TEMPORAL_TLS_CLIENT_KEY_PATH',
    default: none,
    meaning: "The mTLS client certificate's key (PEM file); it needs its certificate",
  },
  { name: 'TEMPORAL_TLS_CLIENT_CERT_DATA', default: none, meaning: 'The client certificate as PEM text' },
  { name: 'TEMPORAL_TLS_CLIENT_KEY_DATA', default: none, meaning: "The client certificate's key as PEM text" },
  {
    name: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
    default: "the system's roots",
    meaning: "The CA that signed the server's certificate (PEM file)",
  },
  { name: 'TEMPORAL_TLS_SERVER_CA_CERT_DATA', default: "the system's roots", meaning: 'The same as PEM text' },
  { name: 'TEMPORAL_TLS_SERVER_NAME', default: "the address's host", meaning: 'The server name to verify (SNI)' },
  {
    name: 'TEMPORAL_GRPC_META_<NAME>',
    default: none,
    meaning:
      'Sends the gRPC header `<name>` (underscores become dashes); headers named like credentials are redacted from ' +
      'logs',
  },
  {
    name: 'RUNBOOKS_TASK_QUEUE',
    default: mdCode(DEFAULT_TASK_QUEUE),
    meaning: 'The task queue the worker polls and the CLI starts runbooks on',
  },
];
