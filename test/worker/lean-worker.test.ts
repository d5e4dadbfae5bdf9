// The production worker loads what it runs: configured for a real service and a real Temporal, it never loads the
// embedded default (the simulator with Fastify and sql.js, the dev server's starter), which worker/stack.ts loads only
// in the branch that starts it. A module list check from a child process that runs worker/main.ts from its sources up
// to its one attempt to reach a Temporal that is not there; no Temporal server is started.
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
// The environment scripts/worker-modules.js measures the built worker in.
import { closedPort, moduleListingEnv } from '../../scripts/worker-modules';

const ROOT = resolve(__dirname, '..', '..');

// Runs worker/main.ts as `node dist/worker/main.js` would run the build, writing every module it loaded on exit.
const CHILD = `
const { writeFileSync } = require('node:fs');
require('./scripts/require-typescript');
process.on('exit', () => writeFileSync(process.env.MODULES_OUT, JSON.stringify(Object.keys(require.cache))));
const main = require.resolve('./worker/main.ts');
process.argv = [process.argv[0], main];
require(main);
`;

const FASTIFY = `${sep}node_modules${sep}fastify${sep}`;
const FORBIDDEN: [string, string][] = [
  ['the simulator', join(ROOT, 'simulator') + sep],
  ['fastify', FASTIFY],
  ['sql.js', `${sep}node_modules${sep}sql.js${sep}`],
  ["the dev server's starter", join(ROOT, 'worker', 'dev-server.ts')],
];

/** What the worker says when its one attempt to reach Temporal fails (RUNBOOKS_TEMPORAL_CONNECT_TIMEOUT_MS=0). */
const UNREACHABLE = /^worker cannot start: cannot reach Temporal at 127\.0\.0\.1:\d+/;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lean-worker-'));
  // Never read: the worker fails to reach Temporal before it loads its workflows. Set, it spares a webpack bundling.
  await writeFile(join(dir, 'workflow-bundle.js'), '');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  modules: string[];
}

/** The worker with exactly these variables (and PATH), run until it gives up on the unreachable Temporal. */
async function runWorker(name: string, env: Record<string, string>): Promise<Run> {
  const out = join(dir, `${name}-modules.json`);
  const result = spawnSync(process.execPath, ['-e', CHILD], {
    cwd: ROOT,
    env: { ...(await moduleListingEnv(dir, out, join(dir, name))), ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const modules = JSON.parse(await readFile(out, 'utf8')) as string[];
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, modules };
}

const loaded = (modules: string[]) =>
  FORBIDDEN.map(([name, fragment]) => ({ name, loaded: modules.filter((m) => m.includes(fragment)) }));

test('configured for a real service, the worker loads neither the simulator nor the dev server starter', async () => {
  const run = await runWorker('remote', {
    BACKUP_SERVICE_URL: `http://127.0.0.1:${await closedPort()}`,
    BACKUP_PROJECT_ID: 'p-lean',
    BACKUP_CLIENT_ID: 'lean-client',
    BACKUP_CLIENT_SECRET: 'lean-secret',
  });
  // It got as far as connecting: the configuration was read and the service's client set up.
  expect([run.status, run.stderr]).toEqual([1, expect.stringMatching(UNREACHABLE)]);
  // The list is the real one: the worker and its stack are in it.
  expect(run.modules).toEqual(
    expect.arrayContaining([join(ROOT, 'worker', 'main.ts'), join(ROOT, 'worker', 'stack.ts')]),
  );
  expect(loaded(run.modules)).toEqual(FORBIDDEN.map(([name]) => ({ name, loaded: [] })));
});

test('with no service configured, the worker still starts the simulator it embeds', async () => {
  const run = await runWorker('embedded', {});
  expect([run.status, run.stderr]).toEqual([1, expect.stringMatching(UNREACHABLE)]);
  expect(run.stdout).toContain('simulator started in-process');
  expect(run.modules).toEqual(
    expect.arrayContaining([join(ROOT, 'simulator', 'server.ts'), expect.stringContaining(FASTIFY)]),
  );
  // TEMPORAL_ADDRESS is set: the dev server's starter stays unloaded.
  expect(run.modules.filter((m) => m.endsWith(join('worker', 'dev-server.ts')))).toEqual([]);
});
