import { activityInfo } from '@temporalio/activity';
import { csvRecord } from '../../runtime/csv';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { exportPages, exportPath, type ExportSummary } from '../../runtime/export-file';
import { calling } from '../../runtime/failures';

export function queryExportActivities({ client, outputDir }: ActivityDeps) {
  return {
    /** Writes every result page of a completed query to `query-exports/<fileName>` as CSV. */
    async exportQueryResults(input: { queryId: string; fileName: string; pageSize?: number }): Promise<ExportSummary> {
      const attempt = activityInfo().attempt;
      const path = exportPath(outputDir, 'query-exports', input.fileName);
      return exportPages(path, async (pageToken) => {
        const page = await calling(attempt, () =>
          client.getQueryResultsPage(input.queryId, { pageToken, pageSize: input.pageSize }),
        );
        return {
          header: csvRecord(page.columns),
          records: page.records.map((r) => csvRecord(r)),
          nextToken: page.nextToken,
        };
      });
    },
  };
}
