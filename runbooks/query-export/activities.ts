import { csvRecord, csvRecordsBuffer } from '../../runtime/csv';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { exportServicePages, type ExportSummary } from '../../runtime/export-file';
import { QUERY_EXPORT_PAGE_SIZE } from './contract';

export function queryExportActivities({ client, outputDir }: ActivityDeps) {
  return {
    /** Writes every result page of a completed query to `query-exports/<fileName>` as CSV. */
    async exportQueryResults(input: { queryId: string; fileName: string; pageSize?: number }): Promise<ExportSummary> {
      return exportServicePages(
        { outputDir, folder: 'query-exports', fileName: input.fileName },
        (pageToken, tokenAhead) =>
          client.getQueryResultsPage(
            input.queryId,
            { pageToken, pageSize: input.pageSize ?? QUERY_EXPORT_PAGE_SIZE },
            tokenAhead,
          ),
        (page) => ({
          header: csvRecord(page.columns),
          bytes: csvRecordsBuffer(page.records),
          rows: page.records.length,
          nextToken: page.nextToken,
        }),
      );
    },
  };
}
