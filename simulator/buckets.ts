import type { DeclaredBucket, SimState } from './model';
import { SimError } from './errors';

/** S3-style bucket names: lower-case letters, digits, dots and hyphens. */
export const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,62}$/;

/** The buckets declared for a restore account, or undefined when it accepts any bucket name. */
export function declaredBuckets(state: SimState, restoreAccountId: string): DeclaredBucket[] | undefined {
  const buckets = state.restoreAccountBuckets?.[restoreAccountId];
  return buckets && buckets.length > 0 ? buckets : undefined;
}

/**
 * Checks a destination bucket against the buckets a restore account declares: the bucket must be one
 * of them and, when `vaultRegion` is given (queries), in that region. Without a declaration any name is accepted,
 * since no client of the real service could know a naming rule of ours. A refusal is a 400 naming `field`.
 */
export function checkDestinationBucket(
  state: SimState,
  restoreAccountId: string,
  field: string,
  bucketName: string,
  vaultRegion?: string,
): void {
  const declared = declaredBuckets(state, restoreAccountId);
  if (!declared) return;
  const bucket = declared.find((b) => b.name === bucketName);
  if (!bucket) {
    const names = declared.map((b) => b.name).join(', ');
    throw new SimError(
      400,
      `invalid ${field}: bucket ${bucketName} does not exist in restore account ${restoreAccountId} (it has ${names})`,
    );
  }
  if (vaultRegion !== undefined && bucket.region !== vaultRegion) {
    throw new SimError(
      400,
      `invalid ${field}: bucket ${bucketName} is in ${bucket.region}, but the snapshot's vault is in ${vaultRegion}`,
    );
  }
}
