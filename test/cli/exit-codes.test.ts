// Every row of the exit-code table (operator/errors.ts EXIT_CODES, docs/cli.md "Exit codes"), each by a real command: the CLI
// from source, against one dev server for the file where a row needs Temporal.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { EXIT_CODES } from '../../operator/errors';
import { SEARCH_ATTRIBUTE_KEYS } from '../../contracts';
import { runCliFromSource, runCliFromSourceAsync, spawnCliFromSource } from '../helpers/cli-from-source';
import { startTestEnv } from '../helpers/temporal';

// No worker polls this queue: what the CLI starts stays open until the test ends it.
const TASK_QUEUE = `exit-codes-${randomUUID()}`;
const EXPORT_INPUT = '{"window":"previous-day"}';

let env: TestWorkflowEnvironment;
let scratch: string;
let cliEnv: Record<string, string | undefined>;

/** The process's environment without its Temporal and service settings, plus `extra`. */
function cleanEnv(extra: Record<string, string>): Record<string, string | undefined> {
  const kept = Object.entries(process.env).filter(
    ([k]) =>
      !(k.startsWith('TEMPORAL_') && !k.endsWith('_PATH')) && !k.startsWith('BACKUP_') && !k.startsWith('RUNBOOKS_'),
  );
  return { ...Object.fromEntries(kept), ...extra };
}

const run = (args: string[], environment = cliEnv) => runCliFromSource(args, environment);

beforeAll(async () => {
  // `start` sets the runbook's search attribute, which the server must know.
  env = await startTestEnv({ server: { searchAttributes: SEARCH_ATTRIBUTE_KEYS } });
  scratch = mkdtempSync(join(tmpdir(), 'exit-codes-'));
  cliEnv = cleanEnv({
    TEMPORAL_ADDRESS: env.address,
    TEMPORAL_NAMESPACE: env.namespace ?? 'default',
    RUNBOOKS_TASK_QUEUE: TASK_QUEUE,
  });
}, 120_000);

afterAll(async () => {
  await env?.teardown();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test("docs/cli.md's table is EXIT_CODES: the same names with the same codes", () => {
  const page = readFileSync(resolve(__dirname, '..', '..', 'docs', 'cli.md'), 'utf8');
  const section = page.split('\n## Exit codes\n')[1]?.split('\n#')[0] ?? '';
  const rows = [...section.matchAll(/^\|\s*(\d+)\s*\|\s*`(\w+)`\s*\|/gm)].map((m) => [m[2], Number(m[1])]);
  expect(Object.fromEntries(rows)).toEqual(EXIT_CODES);
  expect(rows).toHaveLength(Object.keys(EXIT_CODES).length);
});

test('ok (0): a command that did what was asked', () => {
  const listed = run(['list']);
  expect(listed.stderr).toBe('');
  expect(listed.status).toBe(EXIT_CODES.ok);
});

test('failed (1): the target refuses, such as a second start under the ID of a running workflow', async () => {
  const id = `exit-codes-twice-${randomUUID()}`;
  const start = () => run(['start', 'costExport', '--input', EXPORT_INPUT, '--id', id]);
  expect(start().status).toBe(EXIT_CODES.ok);
  const again = start();
  expect(again.stderr).toMatch(new RegExp(`^workflow ${id} is already running`));
  expect(again.status).toBe(EXIT_CODES.failed);
  await env.client.workflow.getHandle(id).terminate('test over');
});

test('usage (2): an unknown option is named, an unknown command too', () => {
  const option = run(['status', 'some-id', '--colour']);
  expect(option.stderr).toBe("unknown option '--colour' for 'status': see 'runbooks status --help'\n");
  expect(option.status).toBe(EXIT_CODES.usage);
  const command = run(['stats']);
  expect(command.stderr).toBe("unknown command 'stats': did you mean 'status'?\n");
  expect(command.status).toBe(EXIT_CODES.usage);
});

describe('unreachable (3)', () => {
  test('Temporal does not answer', () => {
    const result = run(['status', 'some-id'], cleanEnv({ TEMPORAL_ADDRESS: '127.0.0.1:1' }));
    expect(result.stderr).toMatch(/^cannot reach Temporal at 127\.0\.0\.1:1/);
    expect(result.status).toBe(EXIT_CODES.unreachable);
  });

  test('the Backup Management Service does not answer (inputs --discover)', () => {
    const service = {
      BACKUP_SERVICE_URL: 'http://127.0.0.1:1',
      BACKUP_PROJECT_ID: 'p-1',
      BACKUP_CLIENT_ID: 'c-1',
      BACKUP_CLIENT_SECRET: `s-${randomUUID()}`,
    };
    const result = run(['inputs', 'drDrill', '--example', '--discover'], cleanEnv(service));
    expect(result.stderr).toMatch(/^--discover could not list from http:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/);
    expect(result.stdout).toBe('');
    expect(result.status).toBe(EXIT_CODES.unreachable);
  });
});

test('runFailed (4): start --wait of a run that ends without completing', async () => {
  const id = `exit-codes-waited-${randomUUID()}`;
  const waiting = runCliFromSourceAsync(['start', 'costExport', '--input', EXPORT_INPUT, '--id', id, '--wait'], cliEnv);
  // No worker runs it: it ends when terminated, and whoever waited on it is told it failed.
  const handle = env.client.workflow.getHandle(id);
  let exited = false;
  void waiting.then(() => (exited = true));
  const started = () =>
    handle.describe().then(
      () => true,
      (err: unknown) => {
        if (err instanceof WorkflowNotFoundError) return false;
        throw err;
      },
    );
  // Should the start fail, the assertions below say how.
  while (!exited && !(await started())) await new Promise((r) => setTimeout(r, 200));
  if (!exited) await handle.terminate('ended by the exit-code test');
  const result = await waiting;
  expect(result.stderr).toMatch(new RegExp(`^${id} failed: .*ended by the exit-code test`, 'm'));
  expect(result.status).toBe(EXIT_CODES.runFailed);
  // A drill that ends other than PASS exits the same: test/cli/drill-command.test.ts (unpassedDrill) and
  // test/e2e/drill-validate.test.ts (start drDrill --wait).
});

describe('notFound (5)', () => {
  // The dev server is the file's own: no run has this ID.
  const id = 'exit-codes-no-such-workflow';

  test.each([[['status', id]], [['status', id, '--watch']], [['cancel', id]], [['nudge', id]]])(
    '%j: an unknown workflow',
    (args) => {
      const result = run(args);
      expect(result.stderr).toMatch(new RegExp(`^no workflow '${id}' in this namespace \\(see \`runbooks list\`\\)`));
      expect(result.status).toBe(EXIT_CODES.notFound);
    },
  );

  test('a namespace the server does not have', () => {
    const result = run(['list'], { ...cliEnv, TEMPORAL_NAMESPACE: 'exit-codes-nowhere' });
    expect(result.stderr).toMatch(
      /^no namespace 'exit-codes-nowhere' on the Temporal server: check TEMPORAL_NAMESPACE/,
    );
    expect(result.status).toBe(EXIT_CODES.notFound);
  });

  test('drill validate of an unknown workflow', () => {
    const result = run(['drill', 'validate', id, '--resource', 'r-1', '--result', 'pass']);
    expect(result.stderr).toMatch(new RegExp(`^no workflow '${id}' in this namespace`));
    expect(result.status).toBe(EXIT_CODES.notFound);
  });

  test.each([
    ['delete'],
    ['trigger'],
    ['describe'],
    ['pause'],
    ['unpause'],
    ['backfill', '--from', '2026-01-01', '--to', '2026-01-02'],
  ])('schedule %s of an unknown schedule', (action, ...options) => {
    const result = run(['schedule', action, 'exit-codes-no-schedule', ...options]);
    expect(result.stderr).toMatch(/^no schedule 'exit-codes-no-schedule' \(see `runbooks schedule list`\)/);
    expect(result.status).toBe(EXIT_CODES.notFound);
  });

  test('deployment status and promote of a deployment no worker registered', () => {
    for (const args of [['status'], ['promote', 'v1']]) {
      const result = run(['deployment', ...args, '--deployment', 'exit-codes-nowhere']);
      // The file's own namespace on the shared dev server: a word and a hex suffix, nothing a pattern would read.
      expect(result.stderr).toMatch(
        new RegExp(`^no deployment 'exit-codes-nowhere' in namespace ${env.namespace ?? ''}:`),
      );
      expect(result.status).toBe(EXIT_CODES.notFound);
    }
  });

  test('evidence verify of a missing folder or key file, evidence key show of a missing key', () => {
    const folder = run(['evidence', 'verify', join(scratch, 'no-such-dir'), '--trust-folder-keys']);
    expect(folder.stderr).toContain('no-such-dir is not a directory');
    expect(folder.status).toBe(EXIT_CODES.notFound);

    const keyFile = join(scratch, 'no-such-key.pem');
    const publicKey = run(['evidence', 'verify', scratch, '--public-key', keyFile]);
    expect(publicKey.stderr).toContain(`--public-key ${keyFile} cannot be read (ENOENT)`);
    expect(publicKey.status).toBe(EXIT_CODES.notFound);

    const key = run(['evidence', 'key', 'show', '--key-file', keyFile]);
    expect(key.stderr).toMatch(new RegExp(`^no evidence key at ${keyFile}`));
    expect(key.status).toBe(EXIT_CODES.notFound);
  });
});

test('interrupted (130): Ctrl-C while following a run; the run goes on', async () => {
  const id = `exit-codes-interrupted-${randomUUID()}`;
  expect(run(['start', 'costExport', '--input', EXPORT_INPUT, '--id', id]).status).toBe(EXIT_CODES.ok);
  const child = spawnCliFromSource(['status', id, '--watch'], cliEnv);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  // Ctrl-C once it says that it follows the run.
  await new Promise<void>((following) =>
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('Ctrl-C stops following')) following();
    }),
  );
  child.kill('SIGINT');
  expect(await exited).toBe(EXIT_CODES.interrupted);
  expect(stderr).toBe(
    `interrupted: only the following stopped; ${id} goes on running in Temporal. ` +
      `Follow it again with \`runbooks status ${id} --watch\`\n`,
  );
  const { status } = await env.client.workflow.getHandle(id).describe();
  expect(status.name).toBe('RUNNING');
  await env.client.workflow.getHandle(id).terminate('test over');
});
