// `runbooks demo` as a person sees it: its story on standard output, no JSON log line among it or on standard error
// (the worker's and the Temporal SDK's logs go to demo.log in its data directory), and the command it prints to verify
// its drill report's seal works as printed, with the demo's own key.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runCliFromSource, spawnCliFromSource } from '../helpers/cli-from-source';

const { TEMPORAL_ADDRESS: _ignored, ...env } = process.env;

/** `runbooks demo` to its end, with no time limit of its own: a first run may fetch the Temporal CLI. */
function runDemo(): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawnCliFromSource(['demo'], env);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done) => child.on('close', (status) => done({ status, stdout, stderr })));
}

test('the demo prints no log line, and its verify command verifies its report', async () => {
  const demo = await runDemo();
  const dataDir = /data directory (\S+)/.exec(demo.stdout)?.[1];
  try {
    expect({ status: demo.status, stderr: demo.stderr }).toEqual({ status: 0, stderr: '' });
    const logLines = demo.stdout.split('\n').filter((line) => line.trimStart().startsWith('{'));
    expect(logLines).toEqual([]);
    expect(dataDir).toBeDefined();
    expect(existsSync(join(dataDir ?? '', 'demo.log'))).toBe(true);

    const verify = /check with: runbooks (evidence verify \S+ --public-key \S+)/.exec(demo.stdout)?.[1];
    expect(verify).toContain(`--public-key ${dataDir ?? ''}`);
    const checked = runCliFromSource((verify ?? '').split(' '), env);
    expect({ status: checked.status, stderr: checked.stderr }).toEqual({ status: 0, stderr: '' });
    expect(checked.stdout).toMatch(/^chain demo: ok, 1 report/m);
  } finally {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }
}, 300_000);
