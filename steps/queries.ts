import { activityInfo, sleep } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { RunQueryInput } from '../api';
import { FailureType } from '../contracts';
import type { ActivityDeps } from '../runtime/activity-deps';
import { calling } from '../runtime/failures';
import { checkpoint } from '../runtime/heartbeat';

const POLL_INTERVAL_MS = 1_000;

export interface QueryOutcome {
  queryId: string;
  status: string;
  runningTimeMs?: number;
  outputLocations: string[];
}

export function queryActivities({ client }: ActivityDeps) {
  return {
    /** Starts a query. Queries only read, so a retry that starts a second one does no harm. */
    async startQuery(input: { snapshotId: string; query: RunQueryInput }): Promise<string> {
      return calling(activityInfo().attempt, () => client.runQuery(input.snapshotId, input.query));
    },

    /**
     * Polls a query inside one heartbeating activity: queries take seconds, so polling from the workflow would fill
     * its history. FAILED and CANCELED end it with a typed failure carrying the service's message.
     */
    async waitForQuery(queryId: string): Promise<QueryOutcome> {
      const attempt = activityInfo().attempt;
      for (;;) {
        const status = await calling(attempt, () => client.getQueryStatus(queryId));
        checkpoint({ status: status.status, runningTimeMs: status.runningTimeMs });
        if (status.status === 'COMPLETED') {
          return {
            queryId,
            status: status.status,
            runningTimeMs: status.runningTimeMs,
            outputLocations: status.outputLocations ?? [],
          };
        }
        if (status.status === 'FAILED' || status.status === 'CANCELED') {
          throw ApplicationFailure.create({
            type: FailureType.QueryFailed,
            message: `query ${status.status.toLowerCase()}: ${status.errorMessage ?? 'no message from the service'}`,
            nonRetryable: true,
            details: [{ status: status.status, errorMessage: status.errorMessage ?? null }],
          });
        }
        await sleep(POLL_INTERVAL_MS);
      }
    },

    /** Counts the rows of a completed query (for drill checks). Only the count enters history, never a row. */
    async countQueryRows(queryId: string): Promise<{ rows: number }> {
      let rows = 0;
      await calling(activityInfo().attempt, async () => {
        for await (const page of client.queryResultPages(queryId, { pageSize: 1000 })) {
          rows += page.records.length;
          checkpoint({ rows });
        }
      });
      return { rows };
    },
  };
}
