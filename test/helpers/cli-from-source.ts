// Runs the `runbooks` CLI from its sources in a child process (compiled on require by swc, as jest does): no build.
import {
  execFile,
  spawn,
  spawnSync,
  type ChildProcessWithoutNullStreams,
  type SpawnSyncReturns,
} from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

// With MODULES_OUT set, the child writes every module it loaded to that file on exit.
const CHILD = `
const { writeFileSync } = require('node:fs');
require('./scripts/require-typescript');
if (process.env.MODULES_OUT) {
  process.on('exit', () => writeFileSync(process.env.MODULES_OUT, JSON.stringify(Object.keys(require.cache))));
}
const main = require.resolve('./cli/main.ts');
const args = process.env.CLI_ARGS === undefined ? process.argv.slice(1) : JSON.parse(process.env.CLI_ARGS);
process.argv = [process.argv[0], main, ...args];
require(main);
`;

/** `runbooks <args>` with this environment (the variables given replace the process's own). */
export function runCliFromSource(
  args: string[],
  env: Record<string, string | undefined> = process.env,
): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ['-e', CHILD], {
    cwd: ROOT,
    env: { ...env, CLI_ARGS: JSON.stringify(args) },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

/**
 * `runCliFromSource` without blocking: for commands that need this process to go on running, such as an in-process
 * worker answering the status queries the command sends.
 */
export function runCliFromSourceAsync(
  args: string[],
  env: Record<string, string | undefined> = process.env,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    execFile(
      process.execPath,
      ['-e', CHILD],
      { cwd: ROOT, env: { ...env, CLI_ARGS: JSON.stringify(args) }, encoding: 'utf8', timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
        resolvePromise({ status: code, stdout, stderr });
      },
    );
  });
}

/** `runbooks <args>` as a child that runs until it stops on its own or is signalled: for long-running commands. */
export function spawnCliFromSource(
  args: string[],
  env: Record<string, string | undefined> = process.env,
): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['-e', CHILD], { cwd: ROOT, env: { ...env, CLI_ARGS: JSON.stringify(args) } });
}

/**
 * An executable `runbooks` in `dir` that runs the CLI from source with its arguments: for shells, such as the
 * completion scripts, that call `runbooks` by name. Put `dir` first in PATH.
 */
export function writeCliExecutable(dir: string): string {
  writeFileSync(join(dir, 'cli-from-source.js'), CHILD);
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const script = [
    '#!/bin/sh',
    `cd ${quote(ROOT)} || exit 1`,
    'unset CLI_ARGS',
    `exec ${quote(process.execPath)} -e "$(cat ${quote(join(dir, 'cli-from-source.js'))})" -- "$@"`,
    '',
  ].join('\n');
  const path = join(dir, 'runbooks');
  writeFileSync(path, script);
  chmodSync(path, 0o755);
  return path;
}
