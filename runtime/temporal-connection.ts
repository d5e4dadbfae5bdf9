import { toClientOptions, type ClientConfigTLS, type ClientConnectConfig } from '@temporalio/envconfig';
import { registerSecret } from '../api/redact';
import { ConfigError, temporalSettingName, type TemporalConfig, type TemporalSetting } from './config';

/** What both `NativeConnection.connect` (worker) and `Connection.connect` (client) take. */
export type TemporalConnectionOptions = ClientConnectConfig['connectionOptions'] & { address: string };

/**
 * The connection options of Temporal's environment configuration: envconfig reads the TLS files; one that cannot be
 * read is a ConfigError naming its variable or profile field.
 */
export function temporalConnectionOptions(temporal: TemporalConfig, address: string): TemporalConnectionOptions {
  const { tls } = temporal;
  const source = (path?: string, data?: string) =>
    path !== undefined ? { path } : data !== undefined ? { data } : undefined;
  const files: [TemporalSetting, string | undefined][] = tls
    ? [
        ['clientCert', tls.clientCertPath],
        ['clientKey', tls.clientKeyPath],
        ['serverCaCert', tls.serverCaCertPath],
      ]
    : [];
  const tlsConfig: ClientConfigTLS = tls
    ? {
        serverName: tls.serverName,
        clientCert: source(tls.clientCertPath, tls.clientCertData),
        clientKey: source(tls.clientKeyPath, tls.clientKeyData),
        serverCACert: source(tls.serverCaCertPath, tls.serverCaCertData),
      }
    : { disabled: true };
  let options: ClientConnectConfig;
  try {
    options = toClientOptions({ address, apiKey: temporal.apiKey, tls: tlsConfig, grpcMeta: temporal.grpcMeta });
  } catch (err) {
    const { path, code } = err as NodeJS.ErrnoException;
    const setting = files.find(([, file]) => file !== undefined && file === path)?.[0];
    if (!setting) throw err;
    throw new ConfigError([
      { variable: temporalSettingName(temporal, setting), message: `cannot read ${path}: ${code ?? 'unreadable'}` },
    ]);
  }
  // A key read from its file is as secret as one given as data (which config/temporal-load.ts registered).
  const tlsOptions = options.connectionOptions.tls;
  if (tlsOptions && typeof tlsOptions === 'object' && tlsOptions.clientCertPair) {
    registerSecret(Buffer.from(tlsOptions.clientCertPair.key).toString('utf8'));
  }
  // Unset options stay absent: the SDK's defaults must not be overwritten with undefined.
  const given = Object.entries(options.connectionOptions).filter(([, v]) => v !== undefined);
  return { ...(Object.fromEntries(given) as ClientConnectConfig['connectionOptions']), address };
}
