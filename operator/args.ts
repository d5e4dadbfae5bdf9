import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { CommandSpec, OptionSpec, OptionValues } from './command-spec';
import type { CommandPath } from './command-table';
import { unsafeCharacter } from '../runtime/evidence-names';
import { HelpRequested, UsageError } from './errors';
import { helpFor, type CommandHelp, type Help } from './help';

type ParseArgsOptions = NonNullable<ParseArgsConfig['options']>;

// The closest-match function of the input rules, which load zod and the API's schemas: only on a typo's path.
const requireHere: (id: string) => unknown = createRequire(__filename);
const closest = (name: string, known: readonly string[]) =>
  (requireHere('../runtime/input-rules') as typeof import('../runtime/input-rules')).closest(name, known);

const asksForHelp = (argv: readonly string[]) => {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
};

/** An option as `parseArgs` takes it; a key it is given must hold a value, so absent ones are left out. */
function parseArgsOption(option: OptionSpec): ParseArgsOptions[string] {
  const short = option.short === undefined ? {} : { short: option.short };
  // An absent flag reads false, as OptionValues types it.
  if (option.value === undefined) return { type: 'boolean', default: false, ...short };
  return {
    type: 'string',
    ...short,
    ...(option.multiple ? { multiple: true } : {}),
    ...(option.default === undefined ? {} : { default: option.default }),
  };
}

/**
 * A command line parsed by the options the command table gives the command (its help's spec): `parseArgs` in strict
 * mode, with its errors turned into usage errors that show the command's usage. `--help` is every command's option,
 * so it is answered here, before anything the command would check.
 */
export function parseCommandLine<S extends CommandSpec>(
  argv: string[],
  help: CommandHelp<S>,
): { values: OptionValues<S>; positionals: string[] } {
  if (asksForHelp(argv)) throw new HelpRequested(help.text);
  const options = Object.fromEntries((help.spec.options ?? []).map((o) => [o.name, parseArgsOption(o)]));
  unknownOption(argv, options, help);
  try {
    const { values, positionals } = parseArgs({ args: argv, options, strict: true, allowPositionals: true });
    // parseArgsOption gives each option the type OptionValues reads from the same spec.
    return { values: values as OptionValues<S>, positionals };
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n${help.usage}`);
  }
}

/**
 * The first option the command does not know, as one line with the closest known one: `parseArgs`'s own text is
 * about positionals starting with '-', and help in full would bury the typo.
 */
function unknownOption(argv: string[], options: ParseArgsOptions, help: CommandHelp): void {
  const { tokens } = parseArgs({ args: argv, options, strict: false, allowPositionals: true, tokens: true });
  const known = (help.spec.options ?? []).filter((o) => !o.hidden);
  for (const token of tokens) {
    if (token.kind !== 'option' || Object.hasOwn(options, token.name)) continue;
    const names = [...known.map((o) => `--${o.name}`), '--help'];
    const guess = closest(token.rawName, names);
    const hint = guess ? `did you mean '${guess}'?` : `see 'runbooks ${help.path} --help'`;
    throw new UsageError(`unknown option '${token.rawName}' for '${help.path}': ${hint}`);
  }
}

/** One line for an unknown name (a command, a runbook): the closest known one, else every one. */
export function unknownName(what: string, name: string, known: readonly string[]): UsageError {
  const guess = closest(name, known);
  return new UsageError(
    `unknown ${what} '${name}': ${guess ? `did you mean '${guess}'?` : `one of ${known.join(', ')}`}`,
  );
}

/** The positional arguments a command requires, by name, or a usage error naming the first one missing. */
export function positionals(values: string[], names: readonly string[], help: Help): string[] {
  const missing = names[values.length];
  if (missing !== undefined) throw new UsageError(`missing <${missing}>\n${help.usage}`);
  if (values.length > names.length) {
    throw new UsageError(`unexpected argument '${values[names.length] ?? ''}'\n${help.usage}`);
  }
  return values;
}

/**
 * `--input` (or `flag`) is inline JSON (it starts with `{`, `[` or `"`) or the path of a JSON file; `-` reads
 * standard input. A file holding bad JSON is named in the error.
 */
export function readInput(value: string, flag = '--input'): unknown {
  const trimmed = value.trim();
  if (trimmed === '') throw new UsageError(`${flag} is empty: give inline JSON, a JSON file or - for standard input`);
  const inline = /^[{["]/.test(trimmed);
  let text: string;
  let source: string;
  if (inline) {
    text = trimmed;
    source = flag;
  } else {
    source = trimmed === '-' ? 'standard input' : trimmed;
    try {
      text = readFileSync(trimmed === '-' ? 0 : trimmed, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new UsageError(`${flag} ${trimmed}: not inline JSON, and the file cannot be read (${code})`);
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new UsageError(`${source} is not valid JSON: ${(err as Error).message}`);
  }
}

/** Temporal's default limit on workflow and schedule IDs. */
const MAX_ID_LENGTH = 1000;

/** A workflow or schedule ID: not blank, no control characters, within Temporal's length limit. */
export function idArgument(value: string, what: string, { usage }: Help): string {
  if (!/\S/.test(value)) throw new UsageError(`${what} must not be blank\n${usage}`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new UsageError(`${what} must not hold control characters\n${usage}`);
  if (value.length > MAX_ID_LENGTH) {
    throw new UsageError(`${what} is ${value.length} characters long; at most ${MAX_ID_LENGTH}\n${usage}`);
  }
  return value;
}

/**
 * The ID of a run or schedule about to be created: `idArgument`, and nothing that would make a hidden or misleading
 * report file name (runtime/evidence-names.ts). A leading dot, or one after a `/` (some runbooks name files after
 * the ID's last part), would hide the report from listings; control and bidirectional characters would make its name
 * read other than it is. Existing IDs stay accepted by the commands that only look runs up.
 */
export function newIdArgument(value: string, what: string, help: Help): string {
  const id = idArgument(value, what, help);
  const unsafe = unsafeCharacter(id);
  if (unsafe !== undefined)
    throw new UsageError(`${what} ${unsafe}: it would be part of report file names\n${help.usage}`);
  if (/(^|\/)\./.test(id)) {
    throw new UsageError(
      `${what} must not start with '.' (nor have '.' after a '/'): its report files would be hidden\n${help.usage}`,
    );
  }
  return id;
}

/** A whole number in [min, max], written in plain digits (no `1e3`, `0x10` or `2.0`). */
export function wholeNumber(value: string, flag: string, min: number, max: number, { usage }: Help): number {
  const n = /^\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!(n >= min && n <= max)) {
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, not '${value}'\n${usage}`);
  }
  return n;
}

/** A command group's answer to `--help`, to no subcommand and to an unknown one: the group's help. */
export function otherSubcommand(sub: string | undefined, group: CommandPath): void {
  const help = helpFor(group);
  const spec: CommandSpec = help.spec;
  if (sub !== undefined && asksForHelp([sub])) throw new HelpRequested(help.text);
  if (sub === undefined) throw new UsageError(help.text);
  throw unknownName(
    `${group} command`,
    sub,
    (spec.subcommands ?? []).map((c) => c.name),
  );
}
