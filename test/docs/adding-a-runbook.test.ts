// docs/development.md, "Adding things": a runbook is its folder plus one line in each of runbooks/registry.ts,
// runbooks/workflows.ts and runbooks/activities.ts. This test does exactly that in a copy of the tree, for a throwaway
// runbook, and checks that nothing else needs editing: the copy type-checks, and its own worker and CLI (run from the
// copy's sources) know the runbook and run it to the end on a real Temporal, with its schedule defaults and example.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { SEARCH_ATTRIBUTE_KEYS } from '../../contracts';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startTestEnv } from '../helpers/temporal';

const ROOT = join(__dirname, '..', '..');
const run = promisify(execFile);

const FOLDER = {
  'contract.ts': `import { z } from 'zod';
import { defineRunbook } from '../../contracts/runbook';
import { runbookInput } from '../../runtime/input-rules';

export const EchoCheckInput = runbookInput(z.strictObject({ message: z.string().min(1) }));

export const echoCheckContract = defineRunbook({
  workflowType: 'echoCheck',
  input: EchoCheckInput,
  takesInput: true,
  defaultId: (input, { hash }) => \`echo-check-\${hash(input.message)}\`,
  example: { message: 'hello' },
  phases: ['echoing'],
  schedule: { overlap: 'skip', catchupWindow: '1h', jitter: '0s' },
  permissions: [],
});
`,
  'activities.ts': `import type { ActivityDeps } from '../../runtime/activity-deps';

export function echoCheckActivities(_deps: ActivityDeps) {
  return {
    async shout(message: string): Promise<string> {
      return message.toUpperCase();
    },
  };
}
`,
  'workflow.ts': `import type { Activities } from '../activities';
import { serviceCalls } from '../../runtime/calls';
import { parseInput, RunbookTracker } from '../../runtime/tracker';
import { EchoCheckInput, echoCheckContract } from './contract';

const calls = serviceCalls<Activities>();

export async function echoCheck(raw: unknown): Promise<{ echoed: string }> {
  const input = parseInput(EchoCheckInput, raw);
  const tracker = new RunbookTracker(echoCheckContract);
  tracker.phase('echoing');
  const echoed = await calls.shout(input.message);
  tracker.phase('completed');
  return { echoed };
}
`,
};

/** Adds `line` after the last import of `file`, and `entry` before the first line matching `before`. */
function addLines(file: string, line: string, entry: string, before: RegExp): void {
  const lines = readFileSync(file, 'utf8').split('\n');
  const lastImport = lines.reduce((last, l, i) => (/^import |^} from /.test(l) ? i : last), -1);
  lines.splice(lastImport + 1, 0, line);
  const at = lines.findIndex((l) => before.test(l));
  if (at < 0) throw new Error(`${file}: no line matches ${before}`);
  lines.splice(at, 0, entry);
  writeFileSync(file, lines.join('\n'));
}

let copy: string;
const started: ChildProcess[] = [];

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'adding-a-runbook-'));
  const folders = (JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as { include: string[] })
    .include;
  for (const name of [...folders, 'scripts', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) {
    cpSync(join(ROOT, name), join(copy, name), { recursive: true, filter: (from) => !/\.test\.ts$/.test(from) });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  // The copy's tsconfig.json includes test/: give it an empty one.
  mkdirSync(join(copy, 'test'));

  // The steps of docs/development.md, and nothing else.
  mkdirSync(join(copy, 'runbooks', 'echo-check'));
  for (const [name, text] of Object.entries(FOLDER)) writeFileSync(join(copy, 'runbooks', 'echo-check', name), text);
  addLines(
    join(copy, 'runbooks', 'registry.ts'),
    "import { echoCheckContract } from './echo-check/contract';",
    '  echoCheck: echoCheckContract,',
    /^} as const;$/,
  );
  const workflows = join(copy, 'runbooks', 'workflows.ts');
  writeFileSync(
    workflows,
    `${readFileSync(workflows, 'utf8')}import { echoCheck as echo } from './echo-check/workflow';\n` +
      'export const echoCheck = measured(echo);\n',
  );
  addLines(
    join(copy, 'runbooks', 'activities.ts'),
    "import { echoCheckActivities } from './echo-check/activities';",
    '    ...echoCheckActivities(deps),',
    /^ {2}}\);$/,
  );
});

afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

test('the copy type-checks with the runbook added and no other file changed', async () => {
  const tsc = await run(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json', '--noEmit'],
    {
      cwd: copy,
    },
  ).catch((err: { stdout?: string; stderr?: string }) => ({
    stdout: err.stdout ?? '',
    stderr: err.stderr ?? 'failed',
  }));
  expect(`${tsc.stdout}${tsc.stderr}`).toBe('');
}, 180_000);

// The copy's sources, compiled on require by swc (as jest does): `node -e` with this preamble.
const FROM_SOURCE = (main: string) => `require('./scripts/require-typescript');
process.argv = [process.argv[0], require.resolve('${main}'), ...JSON.parse(process.env.ARGS ?? '[]')];
require('${main}');`;

describe("the copy's worker and CLI", () => {
  let temporal: TestWorkflowEnvironment | undefined;
  beforeAll(async () => {
    temporal = await startTestEnv({ server: { searchAttributes: SEARCH_ATTRIBUTE_KEYS } });
  }, 120_000);
  afterAll(async () => {
    for (const child of started) child.kill('SIGKILL');
    await temporal?.teardown();
  });
  const env = () => {
    if (!temporal) throw new Error('no Temporal');
    return temporal;
  };
  const taskQueue = `adding-a-runbook-${randomUUID()}`;
  const dataDir = () => join(copy, '.data');
  const cliEnv = () => ({
    PATH: process.env.PATH ?? '',
    TEMPORAL_ADDRESS: env().address,
    TEMPORAL_NAMESPACE: env().namespace ?? 'default',
    RUNBOOKS_TASK_QUEUE: taskQueue,
    RUNBOOKS_DATA_DIR: dataDir(),
  });
  const cli = (args: string[]) =>
    run(process.execPath, ['-e', FROM_SOURCE('./cli/main.ts')], {
      cwd: copy,
      env: { ...cliEnv(), ARGS: JSON.stringify(args) },
      timeout: 120_000,
    });

  test('inputs and schedule create know it, from its contract', async () => {
    expect(JSON.parse((await cli(['inputs', 'echoCheck', '--example'])).stdout)).toEqual({ message: 'hello' });
    expect((await cli(['start', '--help'])).stdout).toMatch(/runbooks: .*\bechoCheck\b/);
  }, 120_000);

  test('the worker runs it to the end on Temporal (the embedded simulator as the service)', async () => {
    const worker = spawn(process.execPath, ['-e', FROM_SOURCE('./worker/main.ts')], {
      cwd: copy,
      env: { ...cliEnv(), LOG_LEVEL: 'info' },
    });
    started.push(worker);
    const output: string[] = [];
    worker.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    worker.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const deadline = Date.now() + 150_000;
    while (!output.join('').includes('"msg":"worker running"')) {
      if (worker.exitCode !== null || Date.now() > deadline) throw new Error(`no worker:\n${output.join('')}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const id = `echo-check-${randomUUID()}`;
    await cli(['start', 'echoCheck', '--input', '{"message":"from the docs"}', '--id', id, '--wait']);
    expect(JSON.parse((await cli(['status', id, '-o', 'json'])).stdout)).toMatchObject({
      runbook: 'echoCheck',
      state: 'COMPLETED',
      result: { echoed: 'FROM THE DOCS' },
      status: { phase: 'completed' },
    });
  }, 240_000);
});
