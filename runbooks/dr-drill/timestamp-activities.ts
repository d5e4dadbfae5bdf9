import { ApplicationFailure } from '@temporalio/common';
import { join } from 'node:path';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { stampFiles, STAMPED_FOLDERS, type StampedFolder, type StampTarget } from '../../runtime/evidence-stamps';
import { FailureType } from '../../contracts';

export type { PendingTimestamps, ReportTimestamps } from '../../runtime/evidence-stamps';

export function timestampActivities({
  outputDir,
  timestampAuthority,
}: Pick<ActivityDeps, 'outputDir' | 'timestampAuthority'>) {
  return {
    /**
     * Adds the tokens a report's seal and attestations lack, over the digests recorded when it was sealed. Fails,
     * retryable, while the authority cannot be asked, so that the retry policy asks again later.
     */
    async addEvidenceTimestamps(input: {
      targets: StampTarget[];
      /** The report's folder when not drill-reports/: a recovery plan's plan-reports/. */
      folder?: StampedFolder;
    }): Promise<{ stamped: string[] }> {
      const folder = input.folder ?? 'drill-reports';
      if (!STAMPED_FOLDERS.includes(folder)) {
        throw ApplicationFailure.create({
          type: FailureType.InvalidInput,
          nonRetryable: true,
          message: `no reports folder ${JSON.stringify(folder)}: timestamps are added in ${STAMPED_FOLDERS.join(' or ')}`,
        });
      }
      if (!timestampAuthority) {
        throw ApplicationFailure.create({
          type: FailureType.InvalidInput,
          nonRetryable: true,
          message: 'RUNBOOKS_TSA_URL is no longer set on this worker: the evidence stays without its timestamps',
        });
      }
      const outcome = await stampFiles(join(outputDir, folder), input.targets, timestampAuthority);
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
