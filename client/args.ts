import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './errors';

type Options = NonNullable<ParseArgsConfig['options']>;

/** `parseArgs` in strict mode, with its errors turned into usage errors that show the command's usage. */
export function parseCommandLine<O extends Options>(argv: string[], options: O, usage: string) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n${usage}`);
  }
}

/** The positional arguments a command requires, by name, or a usage error naming the first one missing. */
export function positionals(values: string[], names: readonly string[], usage: string): string[] {
  const missing = names[values.length];
  if (missing !== undefined) throw new UsageError(`missing <${missing}>\n${usage}`);
  if (values.length > names.length) {
    throw new UsageError(`unexpected argument '${values[names.length] ?? ''}'\n${usage}`);
  }
  return values;
}

/**
 * `--input` is inline JSON (it starts with `{`, `[` or `"`) or the path of a JSON file; `-` reads standard input.
 * A file holding bad JSON is named in the error.
 */
export function readInput(value: string): unknown {
  const trimmed = value.trim();
  const inline = /^[{["]/.test(trimmed);
  let text: string;
  let source: string;
  if (inline) {
    text = trimmed;
    source = '--input';
  } else {
    source = trimmed === '-' ? 'standard input' : trimmed;
    try {
      text = readFileSync(trimmed === '-' ? 0 : trimmed, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new UsageError(`--input ${trimmed}: not inline JSON, and the file cannot be read (${code})`);
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new UsageError(`${source} is not valid JSON: ${(err as Error).message}`);
  }
}
