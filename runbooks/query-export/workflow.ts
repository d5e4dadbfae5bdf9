import { workflowInfo } from '@temporalio/workflow';
import { heartbeatingCalls, leanHistory, notify, resend, serviceCalls } from '../../runtime/calls';
import { RunbookTracker, parseInput } from '../../runtime/tracker';
import type { Activities } from '../activities';
import { QueryExportInput, type QueryExportResult, queryExportContract, runFileName } from './contract';

const service = serviceCalls<Activities>();
const heartbeating = heartbeatingCalls<Activities>();

/** Runs a SELECT on a database snapshot and exports every result row to CSV. */
export async function queryExport(raw: QueryExportInput): Promise<QueryExportResult> {
  const input = parseInput(QueryExportInput, raw);
  const tracker = new RunbookTracker(queryExportContract, { resource: input.snapshotId });

  tracker.phase('starting query');
  const queryId = await service.startQuery({ snapshotId: input.snapshotId, query: input.query });

  tracker.phase('waiting for query', { ids: { queryId }, waitingFor: `query ${queryId}` });
  const outcome = await heartbeating.waitForQuery(queryId);

  tracker.phase('exporting results', { detail: `query ${queryId}` });
  // A name of this run's own (`runFileName`), or the input's, claimed for this run so that no other run's file is
  // replaced. Decided here, so that every attempt of the export resumes the same file; this workflow never continues
  // as new. Only the activity's input differs from earlier versions: the commands stay as they were, so no patch.
  const fileName = input.fileName ?? runFileName(workflowInfo(), '.csv');
  // The export's activity sends export.done itself (see `leanHistory`).
  const inline = leanHistory();
  const { notified, ...summary } = await heartbeating.exportQueryResults({
    queryId,
    fileName,
    ...(input.fileName === undefined ? {} : { claim: true }),
    pageSize: input.pageSize,
    ...(inline ? { announce: true } : {}),
    ...(input.defangFormulas ? { defangFormulas: true } : {}),
  });

  tracker.phase('completed', { detail: `${summary.rows} rows to ${summary.path}` });
  const { path: file, rows, bytes, sha256 } = summary;
  if (inline) resend(notified);
  else notify({ event: 'export.done', data: { export: 'query', file, rows, bytes, sha256 } });
  return { queryId, export: summary, outputLocations: outcome.outputLocations, runningTimeMs: outcome.runningTimeMs };
}
