import { createHash } from 'node:crypto';
import { activityInfo, sleep } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { NotFoundError } from '../../api';
import { FailureType } from '../../contracts';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { calling } from '../../runtime/failures';
import { checkpoint } from '../../runtime/heartbeat';
import { capturedAt, newestFirst, snapshotsInWindow } from '../../steps/snapshot-window';
import { canonicalCheck, meetsExpectation, type CleanCheck } from './check';
import type { CheckedQuery, RestoreValidation } from './contract';
import { resumeFrom } from './progress';

const POLL_INTERVAL_MS = 1_000;
/** Longer than a query's first value is worth keeping as evidence: a check should select a count or a checksum. */
const MAX_VALUE_LENGTH = 200;

export interface Candidate {
  snapshotId: string;
  pointInTime: string;
}

export interface SearchedResource {
  resourceName: string;
  resourceType: string;
}

export function cleanPointActivities({ client }: Pick<ActivityDeps, 'client'>) {
  /**
   * Runs one query of the check on a snapshot: its row count and first value, and whether it met its expectation.
   * `resumed` is the ID of the query an earlier attempt started, polled instead of starting it again; `started` is told
   * the ID of each query this attempt starts, before its first read.
   */
  async function runCheckQuery(
    snapshotId: string,
    check: CleanCheck,
    query: CleanCheck['queries'][number],
    restoreAccountId: string,
    resumed: string | undefined,
    started: (queryId: string) => void,
  ): Promise<CheckedQuery> {
    const attempt = activityInfo().attempt;
    const start = async () => {
      const id = await calling(attempt, () =>
        client.runQuery(snapshotId, {
          databaseName: check.databaseName,
          query: query.sql,
          restoreAccountId,
          destination: check.destination,
        }),
      );
      started(id);
      return id;
    };
    let queryId = resumed ?? (await start());
    let unconfirmed = resumed !== undefined;
    for (;;) {
      const status = await calling(attempt, async () => {
        try {
          return await client.getQueryStatus(queryId);
        } catch (err) {
          // A checkpointed query the service no longer knows (dropped since, or a retry long after) has no answer to
          // read; the check's queries only read, so it is started again. A 404 for a query known here stays an error.
          if (unconfirmed && err instanceof NotFoundError) return undefined;
          throw err;
        }
      });
      if (status === undefined) {
        queryId = await start();
        unconfirmed = false;
        continue;
      }
      unconfirmed = false;
      if (status.status === 'COMPLETED') break;
      if (status.status === 'FAILED' || status.status === 'CANCELED') {
        // Not a verdict on the data: a check that cannot run says nothing about the point, so the search stops.
        throw ApplicationFailure.create({
          type: FailureType.QueryFailed,
          nonRetryable: true,
          message:
            `check '${check.name}', query '${query.name}' on snapshot ${snapshotId}: ` +
            `${status.status.toLowerCase()}: ${status.errorMessage ?? 'no message from the service'}`,
        });
      }
      await sleep(POLL_INTERVAL_MS);
    }
    let rows = 0;
    let firstValue: string | undefined;
    await calling(attempt, async () => {
      rows = 0;
      for await (const page of client.queryResultPages(queryId, { pageSize: 1000 })) {
        if (rows === 0) firstValue = page.records[0]?.[0];
        rows += page.records.length;
      }
    });
    const outcome = { rows, ...(firstValue === undefined ? {} : { firstValue }) };
    const kept = firstValue === undefined ? {} : { firstValue: firstValue.slice(0, MAX_VALUE_LENGTH) };
    return {
      name: query.name,
      queryId,
      rows,
      ...kept,
      expect: query.expect,
      met: meetsExpectation(query.expect, outcome),
    };
  }

  return {
    /**
     * The points a search may probe: the resource's snapshots in the window, newest first, and the sha256 of the
     * check's canonical text, which the result names as what "clean" was judged by.
     */
    async cleanPointCandidates(input: {
      resourceId: string;
      windowDays: number;
      before: string;
      check: CleanCheck | RestoreValidation;
    }): Promise<{ candidates: Candidate[]; checkSha256: string; resource: SearchedResource }> {
      const attempt = activityInfo().attempt;
      // Its name and type go to a validator with each restore it is asked to judge.
      const { resourceName, resourceType } = await calling(attempt, () => client.getResource(input.resourceId));
      const snapshots = await calling(attempt, async () => {
        const found = [];
        for await (const s of snapshotsInWindow(client, input)) found.push(s);
        return found.sort(newestFirst);
      });
      return {
        candidates: snapshots.map((s) => ({ snapshotId: s.id, pointInTime: capturedAt(s) })),
        checkSha256: createHash('sha256').update(canonicalCheck(input.check)).digest('hex'),
        resource: { resourceName, resourceType },
      };
    },

    /**
     * Runs the check's queries on one snapshot, one after the other, and says whether every one met its expectation.
     * Each answer is checkpointed, and so is each query's ID once the service has started it: a retry (a worker killed
     * mid-check, a throttled or failed read) resumes after the last answered query, polling the one started if any,
     * instead of running a query again.
     */
    async checkRecoveryPoint(input: {
      snapshotId: string;
      check: CleanCheck;
      restoreAccountId: string;
    }): Promise<{ verdict: 'pass' | 'fail'; queries: CheckedQuery[] }> {
      const names = input.check.queries.map((q) => q.name);
      const { answered, running } = resumeFrom(activityInfo().heartbeatDetails, names);
      let resumed = running?.queryId;
      for (const query of input.check.queries.slice(answered.length)) {
        const index = answered.length;
        const started = (queryId: string) =>
          checkpoint({ answered: [...answered], running: { index, name: query.name, queryId } });
        answered.push(
          await runCheckQuery(input.snapshotId, input.check, query, input.restoreAccountId, resumed, started),
        );
        resumed = undefined;
        checkpoint({ answered });
      }
      return { verdict: answered.every((q) => q.met) ? 'pass' : 'fail', queries: answered };
    },
  };
}

export type CleanPointActivities = ReturnType<typeof cleanPointActivities>;
