// `runbooks --help` stays lean: the heavy parts (worker, simulator, demo, their libraries) load only when a command
// needs them. A module list check from a child process, not a timing.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { runCliFromSource } from '../helpers/cli-from-source';

const ROOT = resolve(__dirname, '..', '..');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lean-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function modulesLoadedBy(args: string[], extraEnv: Record<string, string> = {}): Promise<string[]> {
  const out = join(dir, 'modules.json');
  const result = runCliFromSource(args, { ...process.env, ...extraEnv, MODULES_OUT: out });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return JSON.parse(await readFile(out, 'utf8')) as string[];
}

const FORBIDDEN: [string, string][] = [
  ['fastify', `${sep}node_modules${sep}fastify${sep}`],
  ['sql.js', `${sep}node_modules${sep}sql.js${sep}`],
  ['webpack', `${sep}node_modules${sep}webpack${sep}`],
  ['@temporalio/worker', `${sep}node_modules${sep}@temporalio${sep}worker${sep}`],
  // Temporal's environment configuration loads only when a command connects.
  ['@temporalio/envconfig', `${sep}node_modules${sep}@temporalio${sep}envconfig${sep}`],
  ['the simulator', join(ROOT, 'simulator') + sep],
  ['the worker', join(ROOT, 'worker') + sep],
  ['the demo', join(ROOT, 'demo') + sep],
  ['the console', join(ROOT, 'console') + sep],
  // Tracing loads only when a command connects with OTEL_* set.
  ['OpenTelemetry', `${sep}node_modules${sep}@opentelemetry${sep}`],
  ['the tracing interceptors', `${sep}node_modules${sep}@temporalio${sep}interceptors-opentelemetry${sep}`],
  ['the tracing SDK set-up', join(ROOT, 'runtime', 'tracing-sdk.ts')],
];

test('--help loads none of the worker, the simulator, the demo or their libraries', async () => {
  const modules = await modulesLoadedBy(['--help']);
  // The list is the real one: the CLI itself is in it.
  expect(modules).toContain(join(ROOT, 'cli', 'main.ts'));
  for (const [name, fragment] of FORBIDDEN) {
    expect({ name, loaded: modules.filter((m) => m.includes(fragment)) }).toEqual({ name, loaded: [] });
  }
});

test('codec-server loads none of them either', async () => {
  const modules = await modulesLoadedBy(['codec-server', '--help']);
  expect(modules).toContain(join(ROOT, 'cli', 'codec-server.ts'));
  for (const [name, fragment] of FORBIDDEN) {
    expect({ name, loaded: modules.filter((m) => m.includes(fragment)) }).toEqual({ name, loaded: [] });
  }
});

test('evidence verify loads none of them either', async () => {
  const modules = await modulesLoadedBy(['evidence', '--help']);
  expect(modules).toContain(join(ROOT, 'cli', 'evidence-command.ts'));
  for (const [name, fragment] of FORBIDDEN) {
    expect({ name, loaded: modules.filter((m) => m.includes(fragment)) }).toEqual({ name, loaded: [] });
  }
});

test('--help stays lean with tracing configured', async () => {
  const modules = await modulesLoadedBy(['--help'], { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' });
  expect(modules).toContain(join(ROOT, 'cli', 'main.ts'));
  for (const [name, fragment] of FORBIDDEN) {
    expect({ name, loaded: modules.filter((m) => m.includes(fragment)) }).toEqual({ name, loaded: [] });
  }
});
