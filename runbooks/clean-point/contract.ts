import { z } from 'zod';
import { TimestampInput } from '../../api/schemas/common';
import { dayOf, defineRunbook } from '../../contracts/runbook';
import { NonBlank, RestoreTarget, runbookInput, RestoreKind, RestoredFiles } from '../../runtime/input-rules';
import { CleanCheck } from './check';

/** The window a search looks back over, in days: a year at most (a daily snapshot a day is 366 candidates). */
export const MAX_WINDOW_DAYS = 366;

/** The most restores a search by restore and validation may make: each one is a restore job and a person's look. */
export const MAX_RESTORES = 20;

/**
 * The check for a resource the query call cannot reach: each probed snapshot is restored to `destination` and a
 * validator is asked for a verdict (drill.validation.requested; `runbooks drill validate` answers), as a drill's
 * validation is. At most `maxRestores` restores; by default as many as the bisection may need.
 */
export const RestoreValidation = z.strictObject({
  /** What the validator judges; shown in reports as "clean as of <name>". */
  name: NonBlank,
  restoreKind: RestoreKind,
  destination: RestoreTarget,
  files: RestoredFiles,
  /** How long each verdict is waited for: a point without one stops the search (nothing is guessed). */
  windowHours: z.number().int().min(1).max(168),
  /** The name of a configured webhook target that gets `drill.validation.requested`; unset: every target. */
  notify: NonBlank.optional(),
  maxRestores: z.number().int().min(1).max(MAX_RESTORES).optional(),
});
export type RestoreValidation = z.output<typeof RestoreValidation>;

export const CleanPointInput = runbookInput(
  z
    .strictObject({
      resourceId: NonBlank,
      /** The check each probed snapshot must pass: SQL queries with expectations, run through the query call. */
      check: CleanCheck.optional(),
      /** Or, for a resource the query call cannot reach: restore each probed snapshot and have it validated. */
      validation: RestoreValidation.optional(),
      /** The restore account the query calls (or the restores) run under. */
      restoreAccountId: NonBlank,
      windowDays: z.number().int().min(1).max(MAX_WINDOW_DAYS).default(30),
      /** The window ends here; by default when the search starts. */
      before: TimestampInput.optional(),
    })
    .refine((i) => (i.check === undefined) !== (i.validation === undefined), {
      message: 'give a check (queries on each snapshot) or a validation (a restore of each), one of them',
      path: ['check'],
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
  /** By a check: its queries' answers. Empty by a validation. */
  queries: CheckedQuery[];
  /** By a validation: the restore job, and the verdict's message and time. */
  validation?: { restoreJobId: string; answeredAt: string; message?: string };
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
  /**
   * The check's (or the validation's) name and the sha256 of its canonical text (`canonicalCheck`): what "clean" was
   * judged by. `by`: queries on the snapshots, or restores validated outside.
   */
  check: { name: string; sha256: string; by?: 'queries' | 'restores' };
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
  /** By a validation: restores made, the budget, and what a scan from the newest or the bisection may need. */
  restores?: { run: number; budget: number; linearScan: number; bound: number };
  /**
   * Why the search ended before it was done (the restore budget spent, a restore that failed, no verdict in time),
   * with `bracket`: what is known of where the last clean point lies. No point is then called the last clean one.
   */
  stopped?: { reason: string; bracket: SearchBracket };
}

/** What a stopped search knows: the last clean point is older than `oldestFailed` and no older than `newestPassed`. */
export interface SearchBracket {
  oldestFailed?: { snapshotId: string; index: number };
  newestPassed?: { snapshotId: string; index: number };
}

export const cleanPointContract = defineRunbook({
  workflowType: 'cleanPoint',
  input: CleanPointInput,
  takesInput: true,
  defaultId: (input, { now, hash }) =>
    `clean-point-${input.resourceId}-${hash(JSON.stringify(input.check ?? input.validation))}-${dayOf(now)}`,
  phases: ['listing recovery points', 'checking recovery points', 'restoring and validating points'],
  // A second search while one runs would only repeat its queries (or its restores).
  schedule: { overlap: 'skip', catchupWindow: '1h', jitter: '5m' },
  permissions: [
    { permission: 'inventory.view', for: "the resource's snapshots" },
    { permission: 'databases.query', for: "run the check's queries on each snapshot probed", when: 'check' },
    { permission: 'jobs.view', for: 'follow the restores', when: 'validation' },
    { permission: 'files.restore', for: 'restore-files of each point probed', when: "validation.restoreKind 'files'" },
    {
      permission: 'resources.restore',
      for: 'restore-bucket of each point probed',
      when: "validation.restoreKind 'bucket'",
    },
    {
      permission: 'mpa_requests.manage',
      for: 'withdraw a restore that needs approval',
      when: "validation.restoreKind 'bucket'",
    },
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
