import type { Activities } from '../activities';
import type { RotationResult } from './activities';
import { retriedCalls } from '../../runtime/calls';
import { parseInput, RunbookTracker } from '../../runtime/tracker';
import { RotateCredentialsInput, rotateCredentialsContract } from './contract';

// Retried: the credentials file holds a token from before the rotation (valid for up to 12 h), so a retry after a
// lost answer or a failed write rotates again with it. The retries stop well within those 12 hours.
const rotation = retriedCalls<Activities>('2 minutes', 20);

/**
 * Rotates the worker's own API secret: hold a token, rotate, store the new secret (0600, atomically), prove it works,
 * and switch the running worker to it. The secret stays inside the activity; history only sees the client ID and the
 * file's path.
 */
export async function rotateCredentials(input?: unknown): Promise<RotationResult> {
  // It always rotates the worker's own secret: an argument (another client ID?) must not look obeyed.
  parseInput(RotateCredentialsInput, input);
  const tracker = new RunbookTracker(rotateCredentialsContract);
  tracker.phase('rotating');
  const result = await rotation.rotateOwnCredentials();
  tracker.phase('completed', { detail: `new secret stored in ${result.credentialsFile}` });
  return result;
}
