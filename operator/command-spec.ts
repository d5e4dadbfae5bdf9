// What a command and its options are, the types a command line parses to, and the building blocks of the command
// table (operator/command-table.ts).

/**
 * What a shell completes for an option's value or a positional argument: a runbook name, the ID of a running
 * workflow (asked of Temporal), a file, a directory, one of fixed words, or free text (nothing to offer).
 */
export type ValueKind = 'runbook' | 'workflowId' | 'drillId' | 'file' | 'dir' | 'text' | readonly string[];

interface OptionBase {
  name: string;
  /** The one-letter alias (`-o`). */
  short?: string;
  description: string;
  /** For the completion scripts, not for users: help and completion leave it out. */
  hidden?: true;
}

/** A boolean option: true when given, false when not. */
export interface FlagSpec extends OptionBase {
  value?: undefined;
}

/** An option that takes a value. */
export interface ValueSpec extends OptionBase {
  value: ValueKind;
  /** How help names the value (`--limit <n>`); fixed words are shown as `a|b`, other values as `<value>`. */
  placeholder?: string;
  /** The value when the option is not given (the description says it to users). */
  default?: string;
  /** Repeatable: every value given, in order. */
  multiple?: true;
}

export type OptionSpec = FlagSpec | ValueSpec;

export interface CommandSpec {
  name: string;
  /** One line: what the command does. */
  description: string;
  /** The command line after `runbooks`, for a command without subcommands. */
  usage?: string;
  /** What the one line cannot say: variables, defaults, exit codes. */
  details?: readonly string[];
  options?: readonly OptionSpec[];
  /** The first positional argument, when the command takes one. */
  argument?: ValueKind;
  subcommands?: readonly CommandSpec[];
  /** One or two command lines, each with an optional `# comment`. */
  examples?: readonly string[];
}

// The types below read a command's spec as the table declares it (`as const`), names and all.

type OptionsOf<S> = S extends { options: readonly (infer O)[] } ? O : never;
type SubcommandsOf<S> = S extends { subcommands: readonly (infer C)[] } ? C : never;

type ValueOf<O> = O extends { value: ValueKind }
  ? (O extends { multiple: true } ? string[] : string) | (O extends { default: string } ? never : undefined)
  : boolean;

/**
 * A command's parsed options by name: a flag is a boolean; a value is a string (every one given, when repeatable),
 * undefined when not given and without a default.
 */
export type OptionValues<S> = {
  [O in OptionsOf<S> as O extends { name: infer N extends string } ? N : never]: ValueOf<O>;
};

/** Every path of commands and subcommands: `start`, `schedule`, `schedule create`. */
export type PathOf<S> = S extends { name: infer N extends string } ? N | `${N} ${PathOf<SubcommandsOf<S>>}` : never;

/** The command or subcommand at a path. */
export type CommandAt<S, P extends string> = P extends `${infer Head} ${infer Rest}`
  ? CommandAt<SubcommandsOf<Extract<S, { name: Head }>>, Rest>
  : Extract<S, { name: P }>;

// The building blocks of the table's options, each keeping its name's literal type for OptionValues.

export const text = <const N extends string>(name: N, placeholder: string, description: string) =>
  ({ name, value: 'text', placeholder, description }) as const satisfies ValueSpec;

/** An option naming a file or a folder (the shells complete it as one). */
export const pathOption = <const N extends string>(
  name: N,
  kind: 'file' | 'dir',
  placeholder: string,
  description: string,
) => ({ name, value: kind, placeholder, description }) as const satisfies ValueSpec;

export const flag = <const N extends string>(name: N, description: string) =>
  ({ name, description }) as const satisfies FlagSpec;

// As operator/output.ts reads it.
export const output = {
  name: 'output',
  short: 'o',
  value: ['text', 'json'],
  default: 'text',
  description: 'text (the default) or json: one JSON document, for scripts',
} as const satisfies ValueSpec;
