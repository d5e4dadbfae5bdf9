// Drives the completion scripts in real shells: bash through its completion variables, fish through `complete -C`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliFromSource } from './cli-from-source';

/** The path of a shell, or undefined when it is not installed. */
export function shellPath(name: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() || undefined : undefined;
}

/** `runbooks completion <shell>`, from source, written to a file in a fresh directory. */
export function completionScript(shell: 'bash' | 'zsh' | 'fish', env = process.env): string {
  const { status, stdout, stderr } = runCliFromSource(['completion', shell], env);
  if (status !== 0) throw new Error(`runbooks completion ${shell} exited ${status}: ${stderr}`);
  const file = join(mkdtempSync(join(tmpdir(), 'completion-')), `runbooks.${shell}`);
  writeFileSync(file, stdout);
  return file;
}

const BASH_COMPLETE = `
source "$SCRIPT"
COMP_WORDS=("$@")
COMP_CWORD=$((\${#COMP_WORDS[@]} - 1))
_runbooks
printf '%s\\n' "\${COMPREPLY[@]}"
`;

/**
 * What bash offers for the last of `words` (the word being completed; '' after a space), as a user's Tab would:
 * the function the script registers, called with bash's completion variables.
 */
export function bashCompletes(script: string, words: string[], env: Record<string, string | undefined> = process.env) {
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', BASH_COMPLETE, 'bash', ...words], {
    env: { ...env, SCRIPT: script },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (result.status !== 0) throw new Error(`bash exited ${result.status}: ${result.stderr}`);
  return result.stdout.split('\n').filter((line) => line !== '');
}

/** What fish offers for a command line (`complete -C`), without the descriptions. */
export function fishCompletes(script: string, line: string, env: Record<string, string | undefined> = process.env) {
  const result = spawnSync('fish', ['--no-config', '-c', 'source $argv[1]; complete -C $argv[2]', script, line], {
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (result.status !== 0) throw new Error(`fish exited ${result.status}: ${result.stderr}`);
  return result.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split('\t')[0]);
}
