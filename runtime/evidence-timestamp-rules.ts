/**
 * How far a timestamp token's time may be from its seal's (runtime/evidence-timestamp.ts), in a file of its own so
 * that workflow code can read it too. A token dates a seal only if it came soon after it: a token a month later
 * would let a key holder seal "last March" today and have it dated. A day allows a retry through an authority's
 * outage; the few minutes before allow for the worker's clock being ahead of the authority's.
 */
export const TIMESTAMP_TOLERANCE_MS = 24 * 3600 * 1000;
export const TIMESTAMP_CLOCK_SKEW_MS = 5 * 60 * 1000;

/** Why a token's time disagrees with its seal's, or undefined when it agrees. */
export function timestampDisagreement(sealedAt: string, genTime: Date): string | undefined {
  const sealed = Date.parse(sealedAt);
  const gap = genTime.getTime() - sealed;
  if (gap < -TIMESTAMP_CLOCK_SKEW_MS) {
    return `the token's time ${genTime.toISOString()} is before the seal's ${sealedAt} by more than 5 minutes`;
  }
  if (gap > TIMESTAMP_TOLERANCE_MS) {
    return `the token's time ${genTime.toISOString()} is more than 24 hours after the seal's ${sealedAt}`;
  }
  return undefined;
}
