import { csvRecord } from '../../runtime/csv';
import { COST_COLUMNS, costRows } from '../../runbooks/cost-export/activities';
import type { BackupServiceClient, CostDataInput } from '../../api';

/**
 * What an export should hold, read again from the service with other page sizes than the runbooks use, so that a
 * paging mistake on either side shows as a difference.
 */
export async function expectedQueryCsv(service: BackupServiceClient, queryId: string): Promise<string> {
  let text = '';
  let first = true;
  for await (const page of service.queryResultPages(queryId, { pageSize: 3_000 })) {
    // Query exports keep their data exact.
    if (first) text += csvRecord(page.columns, { exact: true });
    first = false;
    for (const record of page.records) text += csvRecord(record, { exact: true });
  }
  return text;
}

/**
 * One row per record and metering dimension, mapped as the export maps them: what this checks is paging, resumes and
 * renames (no row lost or written twice), not the mapping, which the e2e suite checks against the service.
 */
export async function expectedCostCsv(service: BackupServiceClient, request: CostDataInput): Promise<string> {
  let text = csvRecord(COST_COLUMNS);
  for await (const page of service.costDataPages(request, { pageSize: 500 })) {
    for (const record of page.records) text += costRows(record).join('');
  }
  return text;
}
