import type { Logger } from 'pino';
import { registerSecret, type Credentials } from '../api';
import { CredentialsFileError, readCredentialsFile, writeCredentialsFile } from '../runtime/credentials-file';
import { allowSharedKeyFiles, ConfigError, type ServiceConfig } from '../runtime/config';
import { keyFileProblem } from '../runtime/key-file-permissions';

export interface ResolvedCredentials {
  credentials: Credentials;
  /** The file rotations write to, when there is one. */
  credentialsFile?: string;
}

const fail = (variable: string, message: string) => new ConfigError([{ variable, message }]);

/**
 * The service credentials of a remote configuration. With BACKUP_CREDENTIALS_FILE the file wins, because rotations
 * update it while the environment stays as it was; when the file does not exist yet, BACKUP_CLIENT_ID and
 * BACKUP_CLIENT_SECRET seed it. A file that the group or others can read is refused (runtime/key-file-permissions.ts).
 */
export async function resolveCredentials(
  service: Extract<ServiceConfig, { mode: 'remote' }>,
  log: Logger,
  allowShared = allowSharedKeyFiles(),
): Promise<ResolvedCredentials> {
  const file = service.credentialsFile;
  if (!file) {
    // loadServiceConfig guarantees both when there is no file.
    const credentials = { clientId: service.clientId ?? '', clientSecret: service.clientSecret ?? '' };
    registerSecret(credentials.clientSecret);
    return { credentials };
  }
  registerSecret(service.clientSecret);
  const shared = keyFileProblem(file, allowShared);
  if (shared) throw fail('BACKUP_CREDENTIALS_FILE', shared);
  // One read: a missing file is seeded from the environment, a bad one is a configuration error.
  const stored = await readCredentialsFile(file).catch((err: unknown) => {
    if (err instanceof CredentialsFileError) throw fail('BACKUP_CREDENTIALS_FILE', err.message);
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT')
      throw fail('BACKUP_CREDENTIALS_FILE', `cannot read ${file}: ${code ?? (err as Error).message}`);
    return undefined;
  });
  if (stored === undefined) {
    if (!service.clientId || !service.clientSecret) {
      throw fail(
        'BACKUP_CREDENTIALS_FILE',
        `${file} does not exist; create it ({"clientId", "clientSecret"}, mode 0600) or set BACKUP_CLIENT_ID and BACKUP_CLIENT_SECRET to seed it`,
      );
    }
    const credentials = { clientId: service.clientId, clientSecret: service.clientSecret };
    await writeCredentialsFile(file, credentials);
    log.info({ credentialsFile: file }, 'credentials file created from BACKUP_CLIENT_ID and BACKUP_CLIENT_SECRET');
    return { credentials, credentialsFile: file };
  }

  const credentials = { clientId: stored.clientId, clientSecret: stored.clientSecret };
  if (stored.pendingRotation) {
    // The token provider finishes it if the file's secret is refused; the rotation's retry finishes it otherwise.
    log.warn({ credentialsFile: file }, 'the credentials file holds an interrupted rotation; it will be finished');
  }
  if (service.clientId && service.clientId !== credentials.clientId) {
    throw fail('BACKUP_CLIENT_ID', `is ${service.clientId}, but ${file} holds credentials of ${credentials.clientId}`);
  }
  if (service.clientSecret && service.clientSecret !== credentials.clientSecret) {
    log.warn({ credentialsFile: file }, 'BACKUP_CLIENT_SECRET differs from the credentials file; using the file');
  }
  return { credentials, credentialsFile: file };
}
