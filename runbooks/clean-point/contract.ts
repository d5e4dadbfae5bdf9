import { z } from 'zod';
import { TimestampInput } from '../../api/schemas/common';
import { defineRunbook } from '../../contracts/runbook';
import { NonBlank, runbookInput } from '../../runtime/input-rules';
import { CleanCheck } from './check';

/** The window a search looks back over, in days: a year at most (a daily snapshot a day is 366 candidates). */
export const MAX_WINDOW_DAYS = 366;

export const CleanPointInput = runbookInput(
  z.strictObject({
    resourceId: NonBlank,
    /** The check each probed snapshot must pass: SQL queries with expectations, run through the query call. */
    check: CleanCheck,
    /** The restore account the query call runs under. */
    restoreAccountId: NonBlank,
    windowDays: z.number().int().min(1).max(MAX_WINDOW_DAYS).default(30),
    /** The window ends here; by default when the search starts. */
    before: TimestampInput.optional(),
  }),
);
export type CleanPointInput = z.input<typeof CleanPointInput>;

/** One query of the check, as it ran on one snapshot. `firstValue`: the first column of the first row, if any. */
export interface CheckedQuery {
  name: string;
  queryId: string;
  rows: number;
  firstValue?: string | number | null;
  expect: string;
  met: boolean;
}

/** A snapshot the search checked, in the order it checked them. `index`: 0 is the newest of the window. */
export interface ExaminedPoint {
  index: number;
  snapshotId: string;
  pointInTime: string;
  verdict: 'pass' | 'fail';
  queries: CheckedQuery[];
}

export interface CleanPoint {
  snapshotId: string;
  pointInTime: string;
  index: number;
  /** How far it is behind the newest point of the window: points, and seconds of data. */
  behindNewest: { points: number; seconds: number };
}

export interface CleanPointResult {
  resourceId: string;
  /** The check's name and the sha256 of its canonical text (`canonicalCheck`): what "clean" was judged by. */
  check: { name: string; sha256: string };
  window: { days: number; before: string; candidates: number };
  /** The newest point that passed, its newer neighbour having failed; null when none in the window passed. */
  clean: CleanPoint | null;
  /** Never just "clean": "clean as of <check>", or that no point of the window is. */
  verdict: string;
  examined: ExaminedPoint[];
  /** A pass newer than a fail among the points checked: corruption that went away, or a check that is not monotone. */
  nonMonotone: { passed: string; failedOlder: string }[];
  /** Queries run: one per query of the check per point examined; and what a scan from the newest would have run. */
  queries: { run: number; linearScan: number; bound: number };
}

export const cleanPointContract = defineRunbook({
  workflowType: 'cleanPoint',
  input: CleanPointInput,
  takesInput: true,
  defaultId: (input, { now, hash }) =>
    `clean-point-${input.resourceId}-${hash(JSON.stringify(input.check))}-${now.toISOString().slice(0, 10)}`,
  phases: ['listing recovery points', 'checking recovery points'],
  // A search finds and restores nothing; a second one while one runs would only repeat its queries.
  schedule: { overlap: 'skip', catchupWindow: '1h', jitter: '5m' },
  permissions: [
    { permission: 'inventory.view', for: "the resource's snapshots" },
    { permission: 'databases.query', for: "run the check's queries on each snapshot probed" },
  ],
  example: {
    resourceId: 'res-0001',
    restoreAccountId: 'restore-acct-1',
    windowDays: 30,
    check: {
      name: 'orders intact',
      databaseName: 'shopdb',
      destination: { amazonBucket: { bucketName: 'query-results-pa-east-1' } },
      queries: [
        { name: 'orders present', sql: 'SELECT id FROM orders', expect: 'rows >= 1000' },
        {
          name: 'no encrypted emails',
          sql: "SELECT count(*) FROM customers WHERE email LIKE 'ENC:%'",
          expect: 'value = 0',
        },
      ],
    },
  },
});
