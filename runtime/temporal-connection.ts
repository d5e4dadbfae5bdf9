import { readFileSync } from 'node:fs';
import { ConfigError, type TemporalConfig } from './config';

/** What both `NativeConnection.connect` (worker) and `Connection.connect` (client) take. */
export interface TemporalConnectionOptions {
  address: string;
  tls?: {
    serverNameOverride?: string;
    serverRootCACertificate?: Uint8Array;
    clientCertPair?: { crt: Uint8Array; key: Uint8Array };
  };
  apiKey?: string;
}

function readPem(path: string, variable: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ConfigError([{ variable, message: `cannot read ${path}: ${code}` }]);
  }
}

/** Reads the TLS files named by the configuration; a file that cannot be read is a ConfigError naming its variable. */
export function temporalConnectionOptions(temporal: TemporalConfig, address: string): TemporalConnectionOptions {
  const { tls } = temporal;
  const options: TemporalConnectionOptions = { address };
  if (tls) {
    options.tls = {
      serverNameOverride: tls.serverName,
      serverRootCACertificate: tls.serverCaCertPath
        ? readPem(tls.serverCaCertPath, 'TEMPORAL_TLS_SERVER_CA_CERT_PATH')
        : undefined,
      clientCertPair:
        tls.clientCertPath && tls.clientKeyPath
          ? {
              crt: readPem(tls.clientCertPath, 'TEMPORAL_TLS_CLIENT_CERT_PATH'),
              key: readPem(tls.clientKeyPath, 'TEMPORAL_TLS_CLIENT_KEY_PATH'),
            }
          : undefined,
    };
  }
  if (temporal.apiKey) options.apiKey = temporal.apiKey;
  return options;
}
