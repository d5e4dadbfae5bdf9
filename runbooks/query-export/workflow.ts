import { workflowInfo } from '@temporalio/workflow';
import { z } from 'zod';
import type { ExportSummary } from '../activities';
import { RunQueryInput } from '../../api/schemas/queries';
import { NonBlank, QueryTarget, QueryText, strictDeep } from '../../runtime/input-rules';
import { heartbeatingCalls, parseInput, RunbookTracker, serviceCalls } from '../../runtime/calls';

export const QueryExportInput = strictDeep(
  z.strictObject({
    snapshotId: NonBlank,
    query: strictDeep(RunQueryInput).extend({ databaseName: NonBlank, query: QueryText, destination: QueryTarget }),
    /** File name under the exports directory; defaults to the workflow ID. */
    fileName: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, dash and underscore only')
      .optional(),
    pageSize: z.number().int().min(1).max(10_000).optional(),
  }),
);
export type QueryExportInput = z.input<typeof QueryExportInput>;

export interface QueryExportResult {
  queryId: string;
  export: ExportSummary;
  outputLocations: string[];
  runningTimeMs?: number;
}

/** Runs a SELECT on a database snapshot and exports every result row to CSV. */
export async function queryExport(raw: QueryExportInput): Promise<QueryExportResult> {
  const input = parseInput(QueryExportInput, raw);
  const tracker = new RunbookTracker('queryExport', { resource: input.snapshotId });

  tracker.phase('starting query');
  const queryId = await serviceCalls.startQuery({ snapshotId: input.snapshotId, query: input.query });

  tracker.phase('waiting for query', { waitingFor: `query ${queryId}` });
  const outcome = await heartbeatingCalls.waitForQuery(queryId);

  tracker.phase('exporting results', { detail: `query ${queryId}` });
  const fileName = input.fileName ?? `${workflowInfo().workflowId}.csv`;
  const summary = await heartbeatingCalls.exportQueryResults({ queryId, fileName, pageSize: input.pageSize });

  tracker.phase('completed', { detail: `${summary.rows} rows to ${summary.path}` });
  return { queryId, export: summary, outputLocations: outcome.outputLocations, runningTimeMs: outcome.runningTimeMs };
}
