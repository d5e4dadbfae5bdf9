// Every example of every command's help, as far as a command line can be checked without a server: each `runbooks …`
// in it names a command of the table, and the command's real parser (operator/args.ts) accepts its options, with fixed
// words and runbook names among those known and as many arguments as the command takes. Every input it gives validates
// against the runbook's schema, and every file it reads exists in the repository or is written first: by the same
// example (`> drill.json`, `--out`) or by the worker, under .data/. test/cli/help-examples-run.test.ts (full tier)
// runs them against a server.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseCommandLine, readInput } from '../../operator/args';
import type { CommandSpec, OptionSpec } from '../../operator/command-spec';
import { COMMAND_TABLE, type CommandPath } from '../../operator/command-table';
import { helpFor } from '../../operator/help';
import { RUNBOOK_NAMES, validateRunbookInput, type RunbookName } from '../../operator/runbooks';
import { everyExample, invocations } from './examples';

const ROOT = resolve(__dirname, '..', '..');

/**
 * Files an example reads that no example writes and the repository does not hold, each for a reason: what the
 * worker writes under its data folder (.data by default), and what an operator provides.
 */
const MADE_ELSEWHERE: [RegExp, string][] = [
  [/^\.data\//, 'the worker writes it (RUNBOOKS_DATA_DIR defaults to .data)'],
  [/^\/run\/secrets\//, 'a secret the operator mounts'],
  [/^evidence-[\w-]+\.tar\.gz$/, "a pack: 'runbooks evidence pack' writes it, as its example does"],
  [/^[\w-]+-check\.json$/, 'a clean-point check: the operator writes the queries for their own database'],
  [/^[\w-]+-validation\.json$/, 'a clean-point validation: the operator names where each point is restored'],
];

/** The command path an argv names (`schedule create`), and the words after it. */
function commandOf(argv: string[]): { path: string; spec: CommandSpec; rest: string[] } {
  let specs: readonly CommandSpec[] = COMMAND_TABLE;
  let spec: CommandSpec | undefined;
  const names: string[] = [];
  let rest = argv;
  for (;;) {
    const [name, ...more] = rest;
    const next = specs.find((s) => s.name === name);
    if (!next) break;
    spec = next;
    names.push(next.name);
    rest = more;
    if (!next.subcommands) break;
    specs = next.subcommands;
  }
  if (!spec) throw new Error(`no command '${argv[0] ?? ''}'`);
  return { path: names.join(' '), spec, rest };
}

const EXAMPLES = everyExample();

test('there are examples to check', () => {
  expect(EXAMPLES.length).toBeGreaterThan(40);
});

describe.each(EXAMPLES)('%s: %s', (_, example) => {
  test('runs as printed: known commands and options, valid inputs, files that exist', () => {
    const lines = invocations(example);
    expect(lines.length).toBeGreaterThan(0);
    const written = new Set<string>();
    for (const { argv, writes } of lines) {
      const { path, spec, rest } = commandOf(argv);
      // A group: its argument is a subcommand, which commandOf has taken.
      expect({ path, group: spec.subcommands !== undefined }).toEqual({ path, group: false });
      // `evidence key show`: the table declares the words as its argument.
      const { values, positionals } = parseCommandLine(rest, helpFor(path as CommandPath));
      expect(positionals).toHaveLength(spec.argument === undefined ? 0 : 1);
      if (Array.isArray(spec.argument)) expect(spec.argument).toContain(positionals[0]);
      if (spec.argument === 'runbook') expect(RUNBOOK_NAMES).toContain(positionals[0]);
      const given: Record<string, unknown> = values;
      for (const option of spec.options ?? []) {
        for (const value of valuesOf(given[option.name])) checkValue(option, value, written);
      }
      const runbook = typeof given.runbook === 'string' ? given.runbook : positionals[0];
      if (typeof given.input === 'string' && !written.has(given.input)) {
        validateRunbookInput(runbook as RunbookName, readInput(inputPath(given.input)));
      }
      if (typeof given.out === 'string') written.add(given.out);
      if (writes !== undefined) written.add(writes);
    }
  });
});

const valuesOf = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v) => typeof v === 'string') : [];

/** A file path as given is relative to where the command runs: the repository. */
const inputPath = (value: string) => (/^\s*[{["]/.test(value) ? value : join(ROOT, value));

function checkValue(option: OptionSpec, value: string, written: Set<string>): void {
  if (option.value === undefined) return;
  if (Array.isArray(option.value)) expect(option.value).toContain(value);
  if (option.value === 'runbook') expect(RUNBOOK_NAMES).toContain(value);
  // Inline JSON, or a file written for the output, is not a file to read.
  const reads = option.value === 'file' && option.name !== 'out' && !/^\s*[{["-]/.test(value);
  if (!reads || written.has(value)) return;
  if (MADE_ELSEWHERE.some(([pattern]) => pattern.test(value))) return;
  expect({ file: value, exists: existsSync(join(ROOT, value)) }).toEqual({ file: value, exists: true });
  // A file in the repository must be readable as what it is given as.
  expect(readFileSync(join(ROOT, value), 'utf8').length).toBeGreaterThan(0);
}
