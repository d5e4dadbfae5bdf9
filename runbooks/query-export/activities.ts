import { csvRecord } from '../../runtime/csv';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { exportServicePages, type ExportSummary } from '../../runtime/export-file';

export function queryExportActivities({ client, outputDir }: ActivityDeps) {
  return {
    /** Writes every result page of a completed query to `query-exports/<fileName>` as CSV. */
    async exportQueryResults(input: { queryId: string; fileName: string; pageSize?: number }): Promise<ExportSummary> {
      return exportServicePages(
        { outputDir, folder: 'query-exports', fileName: input.fileName },
        (pageToken) => client.getQueryResultsPage(input.queryId, { pageToken, pageSize: input.pageSize }),
        (page) => ({
          header: csvRecord(page.columns),
          records: page.records.map((r) => csvRecord(r)),
          nextToken: page.nextToken,
        }),
      );
    },
  };
}
