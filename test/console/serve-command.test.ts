// `runbooks serve` refuses, before it connects to anything (TEMPORAL_ADDRESS points nowhere), to listen off localhost
// without a token or a proxy, and refuses a token file that is short or readable by others. Exit code 2 (usage).
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliFromSourceAsync } from '../helpers/cli-from-source';

const env = { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1', RUNBOOKS_ALLOW_SHARED_KEY_FILES: '' };
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'console-serve-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function tokenFile(name: string, text: string, mode: number): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  await chmod(path, mode);
  return path;
}

test('off localhost without a token or --behind-proxy: refused, naming both ways out', async () => {
  for (const [args, extra] of [
    [['serve', '--host', '0.0.0.0'], {}],
    [['serve'], { RUNBOOKS_CONSOLE_HOST: '0.0.0.0' }],
  ] as const) {
    const result = await runCliFromSourceAsync([...args], { ...env, ...extra });
    expect({ args, status: result.status }).toEqual({ args, status: 2 });
    expect(result.stderr).toMatch(/would listen on 0\.0\.0\.0 with no token/);
    expect(result.stderr).toContain('--behind-proxy');
    expect(result.stderr).not.toMatch(/cannot reach Temporal/);
  }
});

test('a token file that is short, or readable by others, is refused', async () => {
  const short = await tokenFile('short', 'too-short\n', 0o600);
  const shared = await tokenFile('shared', 'a-console-token-of-32-characters\n', 0o644);
  const tooShort = await runCliFromSourceAsync(['serve', '--token-file', short], env);
  expect(tooShort.status).toBe(2);
  expect(tooShort.stderr).toContain('under 16 characters');
  const readable = await runCliFromSourceAsync(['serve', '--host', '0.0.0.0'], {
    ...env,
    RUNBOOKS_CONSOLE_TOKEN_FILE: shared,
  });
  expect(readable.status).toBe(2);
  expect(readable.stderr).toContain('RUNBOOKS_CONSOLE_TOKEN_FILE');
  expect(readable.stderr).not.toContain('a-console-token');
});

test('with a good token off localhost it goes on to connect (and fails there, not at the token)', async () => {
  const good = await tokenFile('good', 'a-console-token-of-32-characters\n', 0o600);
  const result = await runCliFromSourceAsync(['serve', '--host', '0.0.0.0', '--token-file', good], env);
  expect(result.stderr).toMatch(/cannot reach Temporal at 127\.0\.0\.1:1/);
});
