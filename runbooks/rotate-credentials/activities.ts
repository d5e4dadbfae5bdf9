import { activityInfo } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../../contracts';
import { CredentialsLostError } from '../../runtime/credentials-file';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { calling } from '../../runtime/failures';

export interface RotationResult {
  clientId: string;
  /** Where the new secret was written; the secret itself never leaves the worker. */
  credentialsFile: string;
  verified: boolean;
}

export function credentialActivities({ client, credentials }: ActivityDeps) {
  return {
    /**
     * Rotates the worker's own secret, stores it, proves a token can be had with it and makes the running token
     * provider use it. One activity, so the new secret is never returned to the workflow. Safe to retry: the file
     * holds a token from before the rotation, and a retry after a lost answer or a failed write rotates again with it.
     */
    async rotateOwnCredentials(): Promise<RotationResult> {
      if (!credentials) {
        throw ApplicationFailure.create({
          type: FailureType.InvalidInput,
          nonRetryable: true,
          message: 'the worker has no credentials file (BACKUP_CREDENTIALS_FILE), so a new secret could not be kept',
        });
      }
      const info = activityInfo();
      const run = info.workflowExecution;
      const rotationId = [run?.workflowId, run?.runId, info.activityId].join('/');
      try {
        await calling(info.attempt, () => credentials.rotate(rotationId));
      } catch (err) {
        if (!(err instanceof CredentialsLostError)) throw err;
        throw ApplicationFailure.create({ type: FailureType.NotFound, nonRetryable: true, message: err.message });
      }
      const { clientId, clientSecret } = await credentials.read();
      // Drop the cached token, so that this worker proves the new secret on its next call.
      client.tokens.setCredentials({ clientId, clientSecret });
      return { clientId, credentialsFile: credentials.path, verified: true };
    },
  };
}
