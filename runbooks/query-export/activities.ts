import { csvRecord, csvRecordsBuffer } from '../../runtime/csv';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { exportPath, exportServicePages, type ExportSummary } from '../../runtime/export-file';
import { QUERY_EXPORT_PAGE_SIZE } from './contract';
import { claimExportFile } from './file-owner';
import type { Notified } from '../../contracts';
import { exportDone } from '../../steps/notifications';

const FOLDER = 'query-exports';

export function queryExportActivities({ client, outputDir, webhooks }: ActivityDeps) {
  return {
    /** Writes every result page of a completed query to `query-exports/<fileName>` as CSV; `announce`: export.done. */
    async exportQueryResults(input: {
      queryId: string;
      fileName: string;
      pageSize?: number;
      announce?: boolean;
      defangFormulas?: boolean;
      /**
       * The name came from the runbook's input: it is claimed for this run first, and a file another run wrote there
       * is refused, not replaced (`claimExportFile`). Absent: a name of the run's own, or a run from before claims.
       */
      claim?: boolean;
    }): Promise<ExportSummary & Notified> {
      if (input.claim) await claimExportFile(exportPath(outputDir, FOLDER, input.fileName));
      const csv = { exact: input.defangFormulas !== true };
      const summary = await exportServicePages(
        { outputDir, folder: FOLDER, fileName: input.fileName },
        (pageToken, tokenAhead) =>
          client.getQueryResultsPage(
            input.queryId,
            { pageToken, pageSize: input.pageSize ?? QUERY_EXPORT_PAGE_SIZE },
            tokenAhead,
          ),
        (page) => ({
          header: csvRecord(page.columns, csv),
          bytes: csvRecordsBuffer(page.records, csv),
          rows: page.records.length,
          nextToken: page.nextToken,
        }),
      );
      return input.announce ? { ...summary, notified: await exportDone(webhooks, 'query', summary) } : summary;
    },
  };
}
