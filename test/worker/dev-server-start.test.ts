// The dev server's start survives the CLI exiting at start (it picks its internal ports before binding them, so two
// servers starting at once can race for one and the loser panics), and gives up with the CLI's output after a bounded
// number of tries. The CLI is the real one behind a wrapper that fails the first starts on purpose.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import pino from 'pino';
import { DEV_SERVER_ATTEMPTS, ensureTemporal, startDevServer } from '../../worker/dev-server';

let dir: string;
let realCli: string;
const savedCliPath = process.env.TEMPORAL_CLI_PATH;
const log = pino({ level: 'silent' });

beforeAll(async () => {
  realCli = ensureTemporal();
  dir = await mkdtemp(join(tmpdir(), 'dev-server-start-'));
});

afterAll(async () => {
  if (savedCliPath === undefined) delete process.env.TEMPORAL_CLI_PATH;
  else process.env.TEMPORAL_CLI_PATH = savedCliPath;
  await rm(dir, { recursive: true, force: true });
});

/** A CLI whose first `failures` server starts panic like a lost port race, counted in `starts`; the rest are real. */
async function flakyCli(name: string, failures: number): Promise<{ starts: string }> {
  const starts = join(dir, `${name}.starts`);
  const script = join(dir, `${name}.sh`);
  await writeFile(starts, '');
  await writeFile(
    script,
    [
      '#!/usr/bin/env bash',
      `if [ "$1" = server ]; then`,
      `  echo start >> '${starts}'`,
      `  if [ "$(wc -l < '${starts}')" -le ${failures} ]; then`,
      `    echo 'panic: runtime error: invalid memory address or nil pointer dereference' >&2`,
      '    exit 2',
      '  fi',
      'fi',
      `exec '${realCli}' "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  process.env.TEMPORAL_CLI_PATH = script;
  return { starts };
}

const startCount = async (file: string) => (await readFile(file, 'utf8')).split('\n').filter(Boolean).length;

test('a start that exits at once is tried again, and the server then answers', async () => {
  const { starts } = await flakyCli('once', 1);
  const server = await startDevServer({ log, namespace: 'default', preferredUiPort: false });
  try {
    const connection = await Connection.connect({ address: server.address });
    try {
      const namespace = await connection.workflowService.describeNamespace({ namespace: 'default' });
      expect(namespace.namespaceInfo?.name).toBe('default');
    } finally {
      await connection.close();
    }
  } finally {
    await server.stop();
  }
  expect(await startCount(starts)).toBe(2);
}, 120_000);

test('a CLI that always exits at start fails after the bounded tries, with its output', async () => {
  const { starts } = await flakyCli('always', 100);
  const started = startDevServer({ log, namespace: 'default', preferredUiPort: false });
  await expect(started).rejects.toThrow(/exited before it was ready[\s\S]*panic: runtime error/);
  expect(await startCount(starts)).toBe(DEV_SERVER_ATTEMPTS);
}, 60_000);
