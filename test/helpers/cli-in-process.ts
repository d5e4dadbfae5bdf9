// Runs the `runbooks` CLI in the test's own process, through cli/run.ts: cheaper than a child, and a test file can
// replace what the CLI imports (a fake Temporal) with jest.mock.
import { format } from 'node:util';
import { run } from '../../cli/run';

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** `runbooks <args>`: its exit code, and what it printed, its own lines and a command's console's. */
export async function runCliInProcess(args: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const toOut = (...parts: unknown[]) => void (stdout += `${format(...parts)}\n`);
  const toErr = (...parts: unknown[]) => void (stderr += `${format(...parts)}\n`);
  const spies = [
    jest.spyOn(console, 'log').mockImplementation(toOut),
    jest.spyOn(console, 'info').mockImplementation(toOut),
    jest.spyOn(console, 'warn').mockImplementation(toErr),
    jest.spyOn(console, 'error').mockImplementation(toErr),
    // A progress line is drawn straight to stdout.
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stdout += String(chunk);
      return true;
    }),
  ];
  try {
    const status = await run(args, { out: toOut, err: toErr });
    return { status, stdout, stderr };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}
