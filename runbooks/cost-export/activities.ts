import type { CostDataInput, CostDataRecord } from '../../api';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { csvRecord } from '../../runtime/csv';
import { exportPath, exportServicePages, type ExportSummary } from '../../runtime/export-file';
import type { Notified } from '../../contracts';
import { exportDone } from '../../steps/notifications';
import { FOCUS_COLUMNS, focusRows, type FocusContext } from './focus';
import { FocusNames } from './focus-names';
import { presentExport, type PresentExport } from './written-once';

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

export function costExportActivities({ client, outputDir, webhooks }: ActivityDeps) {
  async function writeCostData(input: {
    request: CostDataInput;
    fileName: string;
    pageSize?: number;
    format?: 'focus';
  }): Promise<ExportSummary> {
    const request = (pageToken: string | undefined) =>
      client.getCostDataPage(input.request, { pageToken, pageSize: input.pageSize });
    const file = { outputDir, folder: 'cost-exports', fileName: input.fileName };
    if (input.format !== 'focus') {
      return exportServicePages(file, request, (page) => ({
        header: csvRecord(COST_COLUMNS),
        records: page.records.flatMap(costRows),
        nextToken: page.nextToken ?? null,
      }));
    }
    const names = new FocusNames(client);
    const focus: FocusContext = {
      billingAccountId: client.projectId,
      timeFrame: input.request.timeFrame,
      resourceName: names.resourceName,
      subAccountName: names.subAccountName,
    };
    return exportServicePages(
      file,
      // Inside the typed-failure wrapper with the page itself: a failed lookup fails the attempt like the page would.
      async (pageToken) => {
        const page = await request(pageToken);
        await names.learn(page.records);
        return page;
      },
      (page) => ({
        header: csvRecord(FOCUS_COLUMNS),
        records: page.records.flatMap((r) => focusRows(r, focus)),
        nextToken: page.nextToken ?? null,
      }),
    );
  }

  return {
    /**
     * Writes every cost record of a window to `cost-exports/<fileName>`, one row per record and metering dimension:
     * in the project's columns, or with `format: 'focus'` in FinOps FOCUS columns.
     */
    async exportCostData(input: {
      request: CostDataInput;
      fileName: string;
      pageSize?: number;
      /** Absent in runs started before the FOCUS format existed: they wrote the project's columns. */
      format?: 'focus';
      /** Sends export.done once written (`lean-history`). */
      announce?: boolean;
      /**
       * A scheduled run's: a file already under the name is left as it is, and the summary says it was present (no
       * export.done: nothing new was exported). Absent: the file is written again, atomically.
       */
      writeOnce?: boolean;
    }): Promise<(ExportSummary | PresentExport) & Notified> {
      const present = input.writeOnce
        ? await presentExport(exportPath(outputDir, 'cost-exports', input.fileName))
        : undefined;
      if (present && 'alreadyPresent' in present) return present;
      // A file this run's earlier attempt finished is its own: it is announced like one written now.
      const summary = present ?? (await writeCostData(input));
      return input.announce ? { ...summary, notified: await exportDone(webhooks, 'cost', summary) } : summary;
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
