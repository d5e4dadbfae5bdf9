import type { RotationResult } from '../activities/credentials';
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { z } from 'zod';
import { parseInput, RunbookTracker, typedCalls } from './runbook';

// One attempt: a retried rotation could strand a secret that was issued but never stored.
const rotation = typedCalls(
  proxyActivities<Activities>({ startToCloseTimeout: '2 minutes', retry: { maximumAttempts: 1 } }),
);

export const RotateCredentialsInput = z.undefined({ error: 'rotateCredentials takes no input' });

/**
 * Rotates the worker's own API secret: rotate, store it (0600, atomically), prove it works, and switch the running
 * worker to it. The secret stays inside the activity; history only sees the client ID and the file's path.
 */
export async function rotateCredentials(input?: unknown): Promise<RotationResult> {
  // It always rotates the worker's own secret: an argument (another client ID?) must not look obeyed.
  parseInput(RotateCredentialsInput, input);
  const tracker = new RunbookTracker('rotateCredentials');
  tracker.phase('rotating');
  const result = await rotation.rotateOwnCredentials();
  tracker.phase('completed', { detail: `new secret stored in ${result.credentialsFile}` });
  return result;
}
