import { activityInfo } from '@temporalio/activity';
import type { CostDataInput, CostDataRecord } from '../../api';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { csvRecord } from '../../runtime/csv';
import { exportPages, exportPath, type ExportSummary } from '../../runtime/export-file';
import { calling } from '../../runtime/failures';

export const COST_COLUMNS = [
  'periodStart',
  'periodEnd',
  'meteringDimension',
  'costAmount',
  'costUnit',
  'usageAmount',
  'usageUnit',
  'resourceCount',
  'cloudProvider',
  'resourceType',
  'resourceId',
  'sourceAccountProviderId',
] as const;

export function costExportActivities({ client, outputDir }: ActivityDeps) {
  return {
    /** Writes every cost record of a window to `cost-exports/<fileName>`, one row per record and metering dimension. */
    async exportCostData(input: {
      request: CostDataInput;
      fileName: string;
      pageSize?: number;
    }): Promise<ExportSummary> {
      const attempt = activityInfo().attempt;
      const path = exportPath(outputDir, 'cost-exports', input.fileName);
      return exportPages(path, async (pageToken) => {
        const page = await calling(attempt, () =>
          client.getCostDataPage(input.request, { pageToken, pageSize: input.pageSize }),
        );
        return {
          header: csvRecord(COST_COLUMNS),
          records: page.records.flatMap(costRows),
          nextToken: page.nextToken ?? null,
        };
      });
    },
  };
}

/** One CSV row per metering dimension of a record, in COST_COLUMNS. */
export function costRows(record: CostDataRecord): string[] {
  const d = record.dimensions ?? {};
  return record.costs.map((c) =>
    csvRecord([
      record.recordTimeFrame.startTime,
      record.recordTimeFrame.endTime,
      c.meteringDimension,
      c.cost.amount,
      c.cost.unit,
      c.usage.amount,
      c.usage.unit,
      record.resourceCount,
      d.cloudProvider,
      d.resourceType,
      d.resourceId,
      d.sourceAccountProviderId,
    ]),
  );
}
