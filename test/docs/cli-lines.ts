import type { CommandSpec, OptionSpec } from '../../operator/command-spec';
import { COMMAND_TABLE } from '../../operator/command-table';
import { inlineCode, type Page } from './markdown';

/**
 * The `runbooks` command lines the docs show, in code blocks and inline code, checked against the CLI's command table
 * (operator/command-table.ts: the source of `--help`, the completion scripts and the options each command parses):
 * the command, its subcommand, a fixed argument (`completion bash`), and every option.
 */

export interface CommandLine {
  /** The words after `runbooks`. */
  words: string[];
  where: string;
}

// `runbooks …`, `npx runbooks …`, `node dist/cli/main.js …`, and `npm run demo -- …` (the demo command), where a
// command starts: a line's start, a prompt, after a pipe or a list, or a variable set for it. `helm install runbooks
// …` and `-n runbooks` name a release and a namespace, not the CLI.
const INVOCATION =
  /(?<=(?:^|[|;&(:]|\$|\bnpx|\bnode|\bexec|\w=\S*)\s*)(?:runbooks|dist\/cli\/main\.js)(?=\s)|\bnpm run demo(?:\s+--)?(?=\s|$)/gm;
// Shell words that end a command: pipes, lists, redirections, a comment.
const STOP = /^(?:\||\|\||&&|&|;|\)|\\|[0-9]?>.*|<|#.*)$/;

/** Shell words, with quoted strings kept as one word (their content does not matter here). */
function words(text: string): string[] {
  return [...text.matchAll(/'[^']*'|"[^"]*"|[^\s)]+|\)/g)].map((m) => m[0]);
}

/** A code block line without its shell comment (a `#` that starts a word outside quotes). */
function withoutComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) {
      return line.slice(0, i);
    }
  }
  return line;
}

function invocations(text: string, where: string): CommandLine[] {
  const found: CommandLine[] = [];
  for (const m of text.matchAll(INVOCATION)) {
    const rest = words(text.slice(m.index + m[0].length));
    const end = rest.findIndex((w) => STOP.test(w));
    const own = end === -1 ? rest : rest.slice(0, end);
    found.push({ words: m[0].startsWith('npm') ? ['demo', ...own] : own, where });
  }
  return found;
}

// Blocks of other languages (json, text, toml…) show output and data, not commands to type.
const SHELL = ['sh', 'bash', 'shell', 'console', 'zsh', ''];

/** Every command line of a page: code block lines (joined over `\` continuations) and inline code. */
export function commandLines(page: Page): CommandLine[] {
  const lines: CommandLine[] = [];
  for (const block of page.blocks.filter((b) => SHELL.includes(b.lang))) {
    let pending = '';
    let first = 0;
    for (const { text, line } of block.lines) {
      if (!pending) first = line;
      const code = withoutComment(text);
      if (/\\\s*$/.test(code)) {
        pending += code.replace(/\\\s*$/, ' ');
        continue;
      }
      lines.push(...invocations(pending + code, `${page.path}:${first}`));
      pending = '';
    }
  }
  for (const span of inlineCode(page)) lines.push(...invocations(span.code, `${page.path}:${span.line}`));
  return lines;
}

const isPlaceholder = (word: string) => /^[[(]?<|^…|^\.\.\./.test(word);
const HELP: OptionSpec = { name: 'help', short: 'h', description: 'help' };

/** What is wrong with one command line, by the table; empty when it is all there. */
export function problemsOf({ words: all, where }: CommandLine, table = COMMAND_TABLE): string[] {
  const shown = `${where}: runbooks ${all.join(' ')}`;
  const tokens = all.map((w) => w.replace(/^\[+/, '').replace(/\]+$/, ''));
  const [first] = tokens;
  if (first === undefined || isPlaceholder(first) || ['--help', '-h', 'help'].includes(first)) return [];
  const command = table.find((c) => c.name === first);
  if (!command) return [`${shown}: no command '${first}' in operator/command-table.ts`];
  let spec: CommandSpec = command;
  let path = first;
  let positional = false;
  const problems: string[] = [];
  for (let i = 1; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token === '--' || token === '') continue;
    const options = [...(spec.options ?? []), HELP];
    if (token.startsWith('-') && !/^-\d/.test(token)) {
      const long = token.startsWith('--');
      const name = long ? token.slice(2).split('=')[0]! : token.slice(1);
      const option = options.find((o) => (long ? o.name === name : o.short === name));
      if (!option) problems.push(`${shown}: '${path}' has no option ${token.split('=')[0]}`);
      else if (option.value !== undefined && !token.includes('=')) i++;
      continue;
    }
    if (positional || isPlaceholder(token)) {
      positional = true;
      continue;
    }
    positional = true;
    const choices = token.split('|');
    if (spec.subcommands) {
      const subs: readonly CommandSpec[] = spec.subcommands;
      const unknown = choices.filter((c) => !subs.some((s) => s.name === c));
      if (unknown.length > 0) {
        problems.push(`${shown}: '${path}' has no subcommand ${unknown.map((u) => `'${u}'`).join(', ')}`);
        break;
      }
      if (choices.length > 1) break;
      spec = subs.find((s) => s.name === token) ?? spec;
      path = `${path} ${token}`;
      positional = false;
    } else if (Array.isArray(spec.argument)) {
      const allowed = spec.argument as readonly string[];
      const unknown = choices.filter((c) => !allowed.includes(c));
      if (unknown.length > 0) problems.push(`${shown}: '${path}' takes ${allowed.join('|')}, not ${unknown.join('|')}`);
    }
  }
  return problems;
}
