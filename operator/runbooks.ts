import { createHash } from 'node:crypto';
import type { RunbookContract } from '../contracts/runbook';
import { isRunbookName, RUNBOOK_NAMES, RUNBOOKS, type RunbookName } from '../runbooks/registry';
import { explainIssue, issuesInOrder } from '../api/validate';
import { closest, unknownValuesIn } from '../runtime/input-rules';
import { unknownName } from './args';
import { UsageError } from './errors';
import { withoutSchemaKey } from './input-schemas';

export { RUNBOOK_NAMES, RUNBOOKS, type RunbookName };

/** A short, stable hash: enough to tell two queries on one snapshot apart in an ID. */
export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 10);
}

/** A runbook's name; a misspelled one is answered with the closest (`drdrill`: did you mean 'drDrill'?). */
export function runbookName(name: string | undefined, flag = '<runbook>'): RunbookName {
  if (name && isRunbookName(name)) return name;
  if (name && closest(name, RUNBOOK_NAMES)) throw unknownName('runbook', name, RUNBOOK_NAMES);
  throw new UsageError(`${flag} must be one of ${RUNBOOK_NAMES.join(', ')}${name ? `, not '${name}'` : ''}`);
}

export interface ValidatedInput {
  /** What the workflow is started with: the input as given (the workflow applies the defaults itself). */
  args: unknown[];
  workflowId: string;
}

/**
 * Checks a runbook's input with the workflow's own schema before anything is started, and derives the default
 * workflow ID from it. Every problem is listed, each with the path of its field. A top-level `$schema` is dropped.
 */
export function validateRunbookInput(runbook: RunbookName, given: unknown, now: Date = new Date()): ValidatedInput {
  const contract: RunbookContract = RUNBOOKS[runbook];
  // An input file copied from examples/ names its schema for editors; the runbook's strict schema would refuse it.
  const raw = withoutSchemaKey(given);
  const result = contract.input.safeParse(raw);
  if (!result.success) {
    const lines = issuesInOrder(result.error.issues).map((issue) => `  ${explainIssue(issue, raw)}`);
    throw new UsageError(
      `invalid input for ${runbook}; nothing was started:\n${lines.join('\n')}\n` +
        `see: runbooks inputs ${runbook} (its JSON Schema) or runbooks inputs ${runbook} --example`,
    );
  }
  // Taken on the input's word (allowUnknownValues): said, so that a typo let through is seen.
  for (const value of unknownValuesIn(contract.input, raw)) console.error(`warning: ${value}, taken as given`);
  return {
    args: contract.takesInput ? [raw] : [],
    workflowId: contract.defaultId(result.data, { now, hash: shortHash }),
  };
}

/** A runbook's example input (its contract's `example`) as plain fields; none when it takes no input. */
export function exampleInput(runbook: RunbookName): Record<string, unknown> | undefined {
  const example = RUNBOOKS[runbook].example;
  return example === undefined ? undefined : { ...example };
}

/** The names of a runbook's further examples (its contract's `examples`), in the contract's order. */
export function exampleNames(runbook: RunbookName): string[] {
  return Object.keys(RUNBOOKS[runbook].examples ?? {});
}

/** One of a runbook's further examples by name; an unknown name is a usage error naming the known ones. */
export function namedExample(runbook: RunbookName, name: string): Record<string, unknown> {
  const examples = RUNBOOKS[runbook].examples;
  const example = examples && Object.hasOwn(examples, name) ? examples[name] : undefined;
  if (example !== undefined) return { ...example };
  const known = exampleNames(runbook);
  const why = !RUNBOOKS[runbook].takesInput
    ? `${runbook} takes no input`
    : known.length === 0
      ? `${runbook} has only its default example (runbooks inputs ${runbook} --example)`
      : `${runbook}'s examples are ${known.join(', ')}, besides the default one (--example alone)`;
  throw new UsageError(`unknown example '${name}': ${why}`);
}
