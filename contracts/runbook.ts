import type { z } from 'zod';

/** What a runbook's default workflow ID may use besides its input: the start time and a short stable hash. */
export interface IdContext {
  now: Date;
  hash: (text: string) => string;
}

/**
 * A runbook as the CLI, the worker and schedules see it: its workflow's name, the input schema the workflow itself
 * checks, and its deterministic workflow ID. A deterministic ID makes a second start of the same work a conflict
 * rather than a duplicate run: Temporal refuses a second running workflow with the same ID.
 */
export interface RunbookContract<S extends z.ZodType = z.ZodType> {
  workflowType: string;
  input: S;
  /** Whether the workflow takes an argument at all. */
  takesInput: boolean;
  defaultId: (input: z.output<S>, context: IdContext) => string;
}

export function defineRunbook<S extends z.ZodType>(contract: RunbookContract<S>): RunbookContract<S> {
  return contract;
}

/** The UTC day of a start, as IDs carry it. */
export const dayOf = (now: Date) => now.toISOString().slice(0, 10);
