import { activityInfo } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { randomBytes } from 'node:crypto';
import { chmod, open, rename } from 'node:fs/promises';
import { requestToken, type HttpTransport } from '../api';
import { FailureType } from '../workflows/shared';
import type { ActivityDeps } from './deps';
import { calling } from './failures';

export interface RotationResult {
  clientId: string;
  /** Where the new secret was written; the secret itself never leaves the worker. */
  credentialsFile: string;
  verified: boolean;
}

export interface CredentialsFile {
  clientId: string;
  clientSecret: string;
}

/** Writes credentials atomically with mode 0600: a crash leaves either the old file or the new one. */
export async function writeCredentialsFile(path: string, credentials: CredentialsFile): Promise<void> {
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  const file = await open(tmp, 'wx', 0o600);
  try {
    await file.writeFile(JSON.stringify(credentials, null, 2) + '\n');
    await file.sync();
  } finally {
    await file.close();
  }
  await chmod(tmp, 0o600);
  await rename(tmp, path);
}

export function credentialActivities({ client, credentialsFile }: ActivityDeps, transport: () => HttpTransport) {
  return {
    /**
     * Rotates the worker's own secret, stores it, proves a token can be had with it and hands it to the running
     * token provider. One activity, so the new secret is never returned to the workflow. Not retried: a second
     * rotation would orphan the first secret.
     */
    async rotateOwnCredentials(): Promise<RotationResult> {
      if (!credentialsFile) {
        throw ApplicationFailure.create({
          type: FailureType.InvalidInput,
          nonRetryable: true,
          message: 'the worker has no credentials file (BACKUP_CREDENTIALS_FILE), so a new secret could not be kept',
        });
      }
      const attempt = activityInfo().attempt;
      const rotated = await calling(attempt, () => client.rotateCurrentCredentials());
      await writeCredentialsFile(credentialsFile, { clientId: rotated.clientId, clientSecret: rotated.clientSecret });
      await calling(attempt, () => requestToken(transport(), rotated));
      client.tokens.setCredentials({ clientId: rotated.clientId, clientSecret: rotated.clientSecret });
      return { clientId: rotated.clientId, credentialsFile, verified: true };
    },
  };
}
