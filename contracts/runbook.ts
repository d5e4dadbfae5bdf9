import type { z } from 'zod';

/** What a runbook's default workflow ID may use besides its input: the start time and a short stable hash. */
export interface IdContext {
  now: Date;
  hash: (text: string) => string;
}

/** How a schedule treats a run due while the previous one still runs: Temporal's overlap policies, as `--overlap` says. */
export const OVERLAP_NAMES = [
  'skip',
  'buffer-one',
  'buffer-all',
  'cancel-other',
  'terminate-other',
  'allow-all',
] as const;
export type OverlapName = (typeof OVERLAP_NAMES)[number];

/** What `runbooks schedule create` applies to a runbook unless told otherwise (docs/operations/schedules.md). */
export interface SchedulePolicies {
  overlap: OverlapName;
  /** How late a run that was due during an outage may still start; later than that, it is missed. */
  catchupWindow: string;
  /** Each run starts up to this much after its time, so that schedules set to one minute do not burst together. */
  jitter: string;
}

/** The service's permission types a runbook's calls can need (docs/service-interface.md §7). */
export type PermissionType =
  | 'inventory.view'
  | 'jobs.view'
  | 'snapshots.take_or_convert'
  | 'resources.restore'
  | 'files.restore'
  | 'databases.query'
  | 'source_accounts.manage'
  | 'api_credentials.rotate_secret'
  | 'cost_explorer.view'
  | 'mpa_requests.manage';

/** A permission a runbook needs, as `runbooks doctor` checks it. */
export interface PermissionNeed {
  permission: PermissionType;
  /** The calls that need it, for the detail. */
  for: string;
  /** Needed only with this input; lacking it is then a warning, not a failure. */
  when?: string;
}

/**
 * A runbook as the CLI, the worker and schedules see it: its workflow's name, the input schema the workflow itself
 * checks, and its deterministic workflow ID. A deterministic ID makes a second start of the same work a conflict
 * rather than a duplicate run: Temporal refuses a second running workflow with the same ID. Everything the rest of
 * the product needs to know of a runbook is here, so that adding one is its folder and a line in runbooks/registry.ts.
 */
export interface RunbookContract<S extends z.ZodType = z.ZodType, P extends string = string> {
  workflowType: string;
  input: S;
  /** Whether the workflow takes an argument at all. */
  takesInput: boolean;
  defaultId: (input: z.output<S>, context: IdContext) => string;
  /**
   * A valid input, written by hand, when it takes one: what `runbooks inputs <name> --example` prints and
   * examples/<name>.json holds (`npm run schemas`). Its IDs are placeholders for the service's own.
   */
  example?: z.input<S>;
  /**
   * Further valid inputs, by a name of lowercase words and dashes, for uses the default example does not show:
   * `runbooks inputs <name> --example <example>` prints one, and examples/<name>.<example>.json holds it.
   */
  examples?: Readonly<Record<string, z.input<S>>>;
  /** The phases its status query reports between `starting` and `completed`, in the order it passes through them. */
  phases: readonly P[];
  schedule: SchedulePolicies;
  /** What its activities' service calls need, for `runbooks doctor`. Keep in step with the calls. */
  permissions: readonly PermissionNeed[];
}

export function defineRunbook<S extends z.ZodType, const P extends string>(
  contract: RunbookContract<S, P>,
): RunbookContract<S, P> {
  return contract;
}

/** The UTC day of a start, as IDs carry it. */
export const dayOf = (now: Date) => now.toISOString().slice(0, 10);
