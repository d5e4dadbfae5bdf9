// The examples of the command table's help, read as a shell would: for the tests that check and run them.
import type { CommandSpec } from '../../operator/command-spec';
import { COMMAND_TABLE } from '../../operator/command-table';

/** Every example with the command whose help shows it. */
export function everyExample(specs: readonly CommandSpec[] = COMMAND_TABLE, prefix = ''): [string, string][] {
  return specs.flatMap((spec) => {
    const path = prefix ? `${prefix} ${spec.name}` : spec.name;
    return [
      ...(spec.examples ?? []).map((example): [string, string] => [path, example]),
      ...everyExample(spec.subcommands ?? [], path),
    ];
  });
}

type Word = { op: string } | { word: string };

/** Shell words and operators (`&&`, `>`, `<(`, `)`), quotes removed; a `#` comment ends the line. */
export function shellWords(line: string): Word[] {
  const words: Word[] = [];
  const pattern = /\s*(?:(&&|<\(|\)|>)|(#.*)|((?:'[^']*'|"[^"]*"|[^\s'"()<>&#])+))/gy;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(line)) !== null && pattern.lastIndex <= line.length) {
    const [, op, comment, word] = match;
    if (comment !== undefined) break;
    if (op !== undefined) words.push({ op });
    else if (word !== undefined) words.push({ word: word.replace(/'([^']*)'|"([^"]*)"/g, '$1$2') });
    if (pattern.lastIndex === line.length) break;
  }
  const rest = line.slice(pattern.lastIndex).trim();
  if (rest !== '' && !rest.startsWith('#')) throw new Error(`cannot read '${rest}' of: ${line}`);
  return words;
}

export interface Invocation {
  argv: string[];
  /** The file its output is redirected to. */
  writes?: string;
}

/** The `runbooks` command lines of an example, in order. */
export function invocations(example: string): Invocation[] {
  const found: Invocation[] = [];
  let current: Invocation | undefined;
  let redirect = false;
  for (const w of shellWords(example)) {
    if ('op' in w) {
      if (w.op === '>') redirect = true;
      else current = undefined;
      continue;
    }
    if (redirect) {
      if (current) current.writes = w.word;
      redirect = false;
    } else if (w.word === 'runbooks' && current === undefined) {
      current = { argv: [] };
      found.push(current);
    } else current?.argv.push(w.word);
  }
  return found;
}
