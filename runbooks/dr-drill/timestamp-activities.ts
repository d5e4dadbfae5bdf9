import { ApplicationFailure } from '@temporalio/common';
import { join } from 'node:path';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { stampFiles, type StampTarget } from '../../runtime/evidence-stamps';
import { FailureType } from '../../contracts';

/** The timestamps a drill's report still lacks when it was written: the authority could not be asked then. */
export interface PendingTimestamps {
  targets: StampTarget[];
  /** Why the first had no token. */
  error: string;
  /** The seal's time: a token is worth asking for only within the tolerance after it (docs/security.md). */
  sealedAt: string;
}

/** What became of a report's timestamps when it was written: the files that got a token, and what is still missing. */
export interface ReportTimestamps {
  added: string[];
  pending?: PendingTimestamps;
}

export function timestampActivities({
  outputDir,
  timestampAuthority,
}: Pick<ActivityDeps, 'outputDir' | 'timestampAuthority'>) {
  return {
    /**
     * Adds the tokens a report's seal and attestations lack, over the digests recorded when it was sealed. Fails,
     * retryable, while the authority cannot be asked, so that the retry policy asks again later.
     */
    async addEvidenceTimestamps(input: { targets: StampTarget[] }): Promise<{ stamped: string[] }> {
      if (!timestampAuthority) {
        throw ApplicationFailure.create({
          type: FailureType.InvalidInput,
          nonRetryable: true,
          message: 'RUNBOOKS_TSA_URL is no longer set on this worker: the evidence stays without its timestamps',
        });
      }
      const outcome = await stampFiles(join(outputDir, 'drill-reports'), input.targets, timestampAuthority);
      if (outcome.pending.length > 0) {
        throw ApplicationFailure.create({
          type: FailureType.TimestampUnavailable,
          message: `${outcome.pending.length} of ${input.targets.length} timestamps still missing: ${outcome.error}`,
        });
      }
      return { stamped: outcome.stamped };
    },
  };
}
