import type { CommandSpec, OptionSpec } from './command-spec';
import { COMMAND_TABLE, commandSpec, type CommandPath, type CommandSpecAt } from './command-table';

/** A command's help: the usage line that usage errors repeat, and the whole text that `--help` prints. */
export interface Help {
  usage: string;
  text: string;
}

/** The help of a command, with the spec it is made from: what operator/args.ts parses its command line by. */
export interface CommandHelp<S extends CommandSpec = CommandSpec> extends Help {
  spec: S;
  /** The command's path in the table (`schedule create`), for errors that name it. */
  path: string;
}

const HELP_OPTION: OptionSpec = { name: 'help', short: 'h', description: 'print this help' };

function optionLabel(option: OptionSpec): string {
  const name = `${option.short ? `-${option.short}, ` : '    '}--${option.name}`;
  if (option.value === undefined) return name;
  // Fixed words are shown as they are, unless they are too many for the column and have a placeholder.
  const shown =
    typeof option.value === 'string' || option.placeholder
      ? `<${option.placeholder ?? 'value'}>`
      : option.value.join('|');
  return `${name} ${shown}`;
}

/** Rows of two columns, the second aligned. */
function columns(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}

function section(title: string, lines: readonly string[]): string[] {
  return lines.length === 0 ? [] : ['', `${title}:`, ...lines];
}

function render<S extends CommandSpec>(
  path: string,
  usage: string,
  spec: S,
  details: readonly string[],
  body: readonly string[],
): CommandHelp<S> {
  const text = [
    usage,
    '',
    spec.description,
    ...(details.length ? ['', ...details] : []),
    ...body,
    ...section(
      'examples',
      (spec.examples ?? []).map((e) => `  ${e}`),
    ),
  ].join('\n');
  return { usage, text, spec, path };
}

/**
 * The help of a command or subcommand, by its path in the table (`status`, `schedule create`), with lines that only
 * its module can tell (such as the runbook names, which the table does not load).
 */
export function helpFor<P extends CommandPath>(path: P, more: readonly string[] = []): CommandHelp<CommandSpecAt<P>> {
  // Read here as a plain spec; the result keeps the table's own type, which types what the command parses.
  const spec: CommandSpecAt<P> & CommandSpec = commandSpec(path);
  const details = [...(spec.details ?? []), ...more];
  if (spec.subcommands) {
    const usage = `usage: runbooks ${path} <command> [options]`;
    return render(path, usage, spec, details, [
      ...section('commands', columns(spec.subcommands.map((s) => [s.name, s.description]))),
      '',
      `Run 'runbooks ${path} <command> --help' for a command's options.`,
    ]);
  }
  const usage = `usage: runbooks ${spec.usage ?? path}`;
  const options = [...(spec.options ?? []).filter((o) => !o.hidden), HELP_OPTION];
  return render(
    path,
    usage,
    spec,
    details,
    section('options', columns(options.map((o) => [optionLabel(o), o.description]))),
  );
}

/** `runbooks --help`: every command with its one line. */
export function topLevelHelp(): string {
  return [
    'usage: runbooks <command> [options]',
    '',
    'Durable runbooks for the Backup Management Service: disaster-recovery drills, approval-gated restores,',
    'snapshot exports and cost exports, on Temporal.',
    ...section('commands', columns(COMMAND_TABLE.map((c) => [c.name, c.description]))),
    '',
    "Run 'runbooks <command> --help' for a command's usage, options and examples.",
    'Temporal: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TLS_*, TEMPORAL_API_KEY, RUNBOOKS_TASK_QUEUE',
    '(unset TEMPORAL_ADDRESS: the address of the dev server that `npm start` runs, from .data/temporal-address)',
  ].join('\n');
}
