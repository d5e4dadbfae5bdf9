// The built worker (`node dist/worker/main.js`) as a process, the way an operator or a container starts it.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const REPO = join(__dirname, '..', '..');

/** dist/workflow-bundle.js, made as the image's build stage makes it, when missing or older than the build. */
export async function ensureWorkflowBundle(): Promise<string> {
  const bundle = join(REPO, 'dist', 'workflow-bundle.js');
  const built = statSync(join(REPO, 'dist', 'runbooks', 'workflows.js')).mtimeMs;
  if (!existsSync(bundle) || statSync(bundle).mtimeMs < built) {
    await promisify(execFile)(process.execPath, ['dist/worker/bundle-workflows.js', 'dist/workflow-bundle.js'], {
      cwd: REPO,
    });
  }
  return bundle;
}

export interface WorkerProcess {
  process: ChildProcess;
  stdout: string[];
  stderr: string[];
  /** The exit code, or the signal's name when a signal ended it. */
  exited: Promise<number | string>;
}

/**
 * Starts `node dist/worker/main.js` with exactly `env` (plus PATH); a guard kills it after `guardMs`, so that a
 * process that never exits fails its test instead of hanging the suite (it then ends with SIGKILL). `user` runs it as
 * another user (when the tests run as root), for files whose permissions must apply to it.
 */
export function startWorkerProcess(
  env: Record<string, string>,
  guardMs = 60_000,
  user: { uid?: number; gid?: number } = {},
): WorkerProcess {
  const child = spawn(process.execPath, [join(REPO, 'dist', 'worker', 'main.js')], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? '', ...env },
    ...user,
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const lines = (into: string[]) => (chunk: Buffer) => into.push(...chunk.toString().split('\n').filter(Boolean));
  child.stdout.on('data', lines(stdout));
  child.stderr.on('data', lines(stderr));
  const guard = setTimeout(() => child.kill('SIGKILL'), guardMs);
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => {
      clearTimeout(guard);
      resolve(code ?? signal ?? 'unknown');
    }),
  );
  return { process: child, stdout, stderr, exited };
}

/** Resolves with the first stdout line matching `pattern`; rejects with the output if the process exits first. */
export async function lineOf(worker: WorkerProcess, pattern: RegExp): Promise<string> {
  let exit: number | string | undefined;
  void worker.exited.then((code) => (exit = code));
  for (;;) {
    const line = [...worker.stdout, ...worker.stderr].find((l) => pattern.test(l));
    if (line) return line;
    if (exit !== undefined) {
      throw new Error(`exited (${exit}) before ${pattern}:\n${[...worker.stdout, ...worker.stderr].join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
