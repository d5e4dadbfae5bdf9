import type { RunbookName } from '../runbooks/registry';

/**
 * One valid input per runbook that takes one, written by hand: what `runbooks inputs <runbook> --example` prints and
 * what examples/<runbook>.json holds. A test checks each against the runbook's zod input and its JSON Schema.
 * The IDs are placeholders: replace them with the service's own (or use `--discover` for a drill).
 */
export const INPUT_EXAMPLES: Readonly<Partial<Record<RunbookName, Readonly<Record<string, unknown>>>>> = {
  approvalGatedRestore: {
    resourceId: 'res-0001',
    snapshotId: 'snap-0001',
    kind: 'files',
    restoreAccountId: 'restore-acct-1',
    destination: { amazonBucket: { bucketName: 'restores-pa-east-1', prefix: 'approved/' } },
    files: [{ path: '/data/orders', isDirectory: true }],
    comment: 'Restore the orders directory after the 2026-11-20 incident',
  },
  drDrill: {
    name: 'weekly-drill',
    resources: { ids: ['res-0001', 'res-0002'] },
    vaultId: 'vault-1',
    restoreAccountId: 'restore-acct-1',
    destination: { amazonBucket: { bucketName: 'drills-pa-east-1' } },
    restoreKind: 'files',
    targets: { rpoSeconds: 86400, rtoSeconds: 3600 },
    recoveryPoint: { select: 'latest', windowDays: 30 },
    retentionDays: 7,
    parallelism: 3,
  },
  queryExport: {
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
  costExport: {
    window: 'previous-month',
    options: { costUnit: 'USD', granularity: 'DAILY', groupBy: 'RESOURCE', topN: 10 },
    format: 'project',
  },
  offboardSourceAccount: { accountId: 'acct-0001' },
  postureReport: {
    maxSnapshotAgeHours: 24,
    filters: { environment: { in: ['PROD'] } },
    protectedStatuses: ['PROTECTED'],
    pageSize: 100,
  },
};
