import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ApprovalGatedRestoreInput } from '../runbooks/approval-gated-restore/workflow';
import { CostExportInput } from '../runbooks/cost-export/workflow';
import { DrDrillInput } from '../runbooks/dr-drill/workflow';
import { OffboardSourceAccountInput } from '../runbooks/offboard-source-account/workflow';
import { QueryExportInput } from '../runbooks/query-export/workflow';
import { RotateCredentialsInput } from '../runbooks/rotate-credentials/workflow';
import { issueField, issueMessage, issuesInOrder } from '../runtime/input-rules';
import { costWindow } from '../runbooks/cost-export/windows';
import { UsageError } from './errors';

/**
 * The runbooks the CLI can start: the workflow's input schema (the same one the workflow checks) and its
 * deterministic workflow ID. A deterministic ID makes a second start of the same work a conflict rather than a
 * duplicate run: Temporal refuses a second running workflow with the same ID.
 */
interface RunbookSpec<S extends z.ZodType> {
  schema: S;
  /** Whether the workflow takes an argument at all. */
  takesInput: boolean;
  defaultId(input: z.output<S>, now: Date): string;
}

const day = (now: Date) => now.toISOString().slice(0, 10);

/** A short, stable hash: enough to tell two queries on one snapshot apart in an ID. */
export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 10);
}

function spec<S extends z.ZodType>(s: RunbookSpec<S>): RunbookSpec<S> {
  return s;
}

export const RUNBOOKS = {
  approvalGatedRestore: spec({
    schema: ApprovalGatedRestoreInput,
    takesInput: true,
    defaultId: (input) => `restore-${input.resourceId}-${input.snapshotId}`,
  }),
  drDrill: spec({
    schema: DrDrillInput,
    takesInput: true,
    defaultId: (input, now) => `drill-${input.name}-${day(now)}`,
  }),
  queryExport: spec({
    schema: QueryExportInput,
    takesInput: true,
    defaultId: (input) =>
      `query-export-${input.snapshotId}-${shortHash(`${input.query.databaseName}\n${input.query.query.trim()}`)}`,
  }),
  costExport: spec({
    schema: CostExportInput,
    takesInput: true,
    // The workflow computes the same window from its start time; both use UTC.
    defaultId: (input, now) => `cost-export-${costWindow(input.window, now).label}`,
  }),
  rotateCredentials: spec({
    schema: RotateCredentialsInput,
    takesInput: false,
    defaultId: (_input, now) => `rotate-credentials-${day(now)}`,
  }),
  offboardSourceAccount: spec({
    schema: OffboardSourceAccountInput,
    takesInput: true,
    defaultId: (input) => `offboard-${input.accountId}`,
  }),
} as const;

export type RunbookName = keyof typeof RUNBOOKS;
export const RUNBOOK_NAMES = Object.keys(RUNBOOKS) as RunbookName[];

export function isRunbookName(name: string): name is RunbookName {
  return Object.hasOwn(RUNBOOKS, name);
}

export function runbookName(name: string | undefined, flag = '<runbook>'): RunbookName {
  if (name && isRunbookName(name)) return name;
  throw new UsageError(`${flag} must be one of ${RUNBOOK_NAMES.join(', ')}${name ? `, not '${name}'` : ''}`);
}

export interface ValidatedInput {
  /** What the workflow is started with: the input as given (the workflow applies the defaults itself). */
  args: unknown[];
  workflowId: string;
}

/**
 * Checks a runbook's input with the workflow's own schema before anything is started, and derives the default
 * workflow ID from it. Every problem is listed, each with the path of its field.
 */
export function validateRunbookInput(runbook: RunbookName, raw: unknown, now: Date = new Date()): ValidatedInput {
  const entry: RunbookSpec<z.ZodType> = RUNBOOKS[runbook];
  const result = entry.schema.safeParse(raw);
  if (!result.success) {
    const lines = issuesInOrder(result.error.issues).map((issue) => {
      const field = issueField(issue);
      return `  ${field}: ${issueMessage(issue)}`;
    });
    throw new UsageError(`invalid input for ${runbook}; nothing was started:\n${lines.join('\n')}`);
  }
  return {
    args: entry.takesInput ? [raw] : [],
    workflowId: entry.defaultId(result.data, now),
  };
}
