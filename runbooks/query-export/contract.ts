import { z } from 'zod';
import { RunQueryInput } from '../../api/schemas/queries';
import { defineRunbook } from '../../contracts/runbook';
import type { ExportSummary } from '../../runtime/export-file';
import { NonBlank, QueryTarget, QueryText, runbookInput, strictDeep } from '../../runtime/input-rules';

// The workflow names the file of a run without `fileName` (pure, no Node modules); it reaches it through this contract.
export { runFileName } from './run-file';

/**
 * Rows per results page, by default and at most: the largest page the simulated service serves (the service
 * states no maximum). Fewer pages mean fewer round trips; the bound keeps a page, and so the worker's memory, small.
 */
export const QUERY_EXPORT_PAGE_SIZE = 10_000;

export const QueryExportInput = runbookInput(
  z.strictObject({
    snapshotId: NonBlank,
    query: strictDeep(RunQueryInput).extend({ databaseName: NonBlank, query: QueryText, destination: QueryTarget }),
    /**
     * File name under the exports directory; by default `<workflowId>--<runId>.csv`, the run's own. A name given here
     * is claimed for the run: a file another run wrote under it is refused (CONFLICT), never replaced.
     */
    fileName: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, dash and underscore only')
      .optional(),
    pageSize: z.number().int().min(1).max(QUERY_EXPORT_PAGE_SIZE).optional(),
    /** Prefix cells a spreadsheet would run as formulas with `'` (runtime/csv.ts); unset: the data stays exact. */
    defangFormulas: z.boolean().optional(),
  }),
);
export type QueryExportInput = z.input<typeof QueryExportInput>;

export interface QueryExportResult {
  queryId: string;
  export: ExportSummary;
  outputLocations: string[];
  runningTimeMs?: number;
}

export const queryExportContract = defineRunbook({
  workflowType: 'queryExport',
  input: QueryExportInput,
  takesInput: true,
  // The hash tells two queries on one snapshot apart.
  defaultId: (input, { hash }) =>
    `query-export-${input.snapshotId}-${hash(`${input.query.databaseName}\n${input.query.query.trim()}`)}`,
  phases: ['starting query', 'waiting for query', 'exporting results'],
  // The same query on a schedule writes the same kind of file; a second while one runs would only compete with it.
  schedule: { overlap: 'skip', catchupWindow: '1h', jitter: '5m' },
  permissions: [{ permission: 'databases.query', for: 'run the query, read its status and results' }],
  example: {
    snapshotId: 'snap-0001',
    query: {
      databaseName: 'shopdb',
      query: 'SELECT id, total FROM orders',
      restoreAccountId: 'restore-acct-1',
      destination: { amazonBucket: { bucketName: 'query-results-pa-east-1' } },
    },
    fileName: 'orders.csv',
    defangFormulas: true,
  },
});
