// `runbooks evidence gate --scope <file>` with a selection: resolved against the inventory of a simulator served over
// HTTP, as the CLI's configured client reaches it, and judged on drill reports sealed by the drill's own activity code.
// The resources the selection takes are worked out here from the simulator's state, not through the CLI.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { closeHttpPools } from '../../api';
import { EXIT_CODES } from '../../operator/errors';
import type { EvidenceGateOutput } from '../../operator/output-shapes';
import { selectIds, type Selection } from '../../runbooks/dr-drill/selection';
import type { DrillResourceResult } from '../../runbooks/dr-drill/report';
import { loadOrCreateEvidenceKey, type EvidenceKey } from '../../runtime/evidence-key';
import { keyHistoryPath } from '../../runtime/evidence-key-history';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { runCliInProcess } from '../helpers/cli-in-process';
import { serviceEnv } from '../helpers/service-env';
import { ago, failed, passed, writeDrill } from '../history/fixtures';

const EXAMPLE = resolve(__dirname, '..', '..', 'examples', 'gate-scopes', 'checkout.json');
/** Nothing listens on port 1: a connection there is refused at once. */
const UNREACHABLE = 'http://127.0.0.1:1';
const SECRET = 'not-the-real-secret-4f1c';

let sim: RunningSimulator;
let root: string;
let key: EvidenceKey;
let keyFile: string;
const savedEnv = { ...process.env };

beforeAll(async () => {
  sim = await startSimulator({ port: 0 });
});
afterAll(async () => {
  await sim.close();
  await closeHttpPools();
});

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'evidence-gate-selection-'));
  keyFile = join(root, 'data', 'evidence-signing-key.pem');
  key = await loadOrCreateEvidenceKey(keyFile);
  useService(serviceEnv(sim));
});
afterEach(async () => {
  process.env = { ...savedEnv };
  await rm(root, { recursive: true, force: true });
});

/** The CLI reads the service from the environment: only these variables of the service's, as a deployment sets them. */
function useService(vars: Record<string, string>): void {
  const others = Object.entries(savedEnv).filter(([name]) => !name.startsWith('BACKUP_'));
  process.env = { ...Object.fromEntries(others), ...vars };
}

const output = () => join(root, 'output');

let runs = 0;
function drill(days: number, resources: DrillResourceResult[]): Promise<string> {
  runs += 1;
  return writeDrill(output(), key, { name: 'nightly', runId: `run-${runs}`, finishedAt: ago(days), resources });
}

const gate = (...args: string[]) =>
  runCliInProcess(['evidence', 'gate', '--dir', output(), '--public-key', keyHistoryPath(keyFile), ...args]);

async function json(...args: string[]): Promise<{ status: number; doc: EvidenceGateOutput; stderr: string }> {
  const result = await gate(...args, '-o', 'json');
  return { status: result.status, doc: JSON.parse(result.stdout) as EvidenceGateOutput, stderr: result.stderr };
}

async function scopeFile(content: unknown): Promise<string> {
  const path = join(root, 'scope.json');
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

/** The IDs a selection takes, from the simulator's own state. */
const selected = (selection: Selection) =>
  selectIds(
    Object.values(sim.ctx.state.resources).map((r) => r.resource),
    selection,
  );

async function example(): Promise<{ selection: Selection; ids: string[] }> {
  const { selection } = JSON.parse(await readFile(EXAMPLE, 'utf8')) as { selection: Selection };
  return { selection, ids: selected(selection) };
}

test('the example selection passes when every resource it takes has a verified PASS within the period', async () => {
  const { ids } = await example();
  expect(ids.length).toBeGreaterThan(3);
  await drill(3, ids.map(passed));
  // A resource outside the selection does not count, whatever its evidence.
  await drill(2, [failed('outside-1')]);

  const result = await gate('--within', '30d', '--scope', EXAMPLE);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  expect(result.stdout).toContain(
    `for the ${ids.length} resources the selection of ${EXAMPLE} takes in the inventory of ${sim.baseUrl}:`,
  );
  expect(result.stdout).toContain(`evidence gate passed: ${ids.length} resources, each with a verified PASS`);
  expect(result.stdout).not.toContain('outside-1');

  const { status, doc } = await json('--within', '30d', '--scope', EXAMPLE);
  expect(status).toBe(0);
  expect(doc).toMatchObject({
    result: 'pass',
    scope: 'selection',
    scopeFile: EXAMPLE,
    selection: { serviceUrl: sim.baseUrl, resolved: ids.length },
  });
  expect(doc.resources.map((r) => [r.resourceId, r.status])).toEqual(ids.map((id) => [id, 'pass']));
});

test('it fails naming each selected resource without a verified PASS within the period, and only those', async () => {
  const { ids } = await example();
  const [failing, neverDrilled, stale, ...covered] = ids;
  if (!failing || !neverDrilled || !stale) throw new Error('the example takes fewer than three resources');
  await drill(40, [passed(stale), passed(failing)]);
  await drill(3, [failed(failing), ...covered.map(passed)]);

  const { status, doc, stderr } = await json('--within', '30d', '--scope', EXAMPLE);
  expect(status).toBe(EXIT_CODES.failed);
  expect(doc).toMatchObject({ result: 'fail', selection: { resolved: ids.length } });
  const notPassing = doc.resources.filter((r) => r.status !== 'pass').map((r) => [r.resourceId, r.status]);
  expect(notPassing.sort()).toEqual(
    [
      [failing, 'failed'],
      [neverDrilled, 'none'],
      [stale, 'too-old'],
    ].sort(),
  );
  const [message, ...rest] = stderr.split('\n').filter((line) => line.startsWith('evidence gate failed'));
  expect(rest).toEqual([]);
  expect(message).toMatch(new RegExp(`^evidence gate failed: 3 of ${ids.length} resources without a verified PASS`));
  expect(message).toContain(`${failing} (failed: FAIL in`);
  expect(message).toContain(`${neverDrilled} (none: no drill report names it)`);
  expect(message).toContain(`${stale} (too old: last verified PASS`);
  for (const id of covered) expect(message).not.toContain(id);

  // --within keeps its meaning: the stale PASS counts over 60 days.
  const longer = await json('--within', '60d', '--scope', EXAMPLE);
  expect(longer.doc.resources.find((r) => r.resourceId === stale)?.status).toBe('pass');
});

test('with --control, the control is judged over the resources the selection takes', async () => {
  const { ids } = await example();
  await drill(120, ids.map(passed));
  const yearly = await json('--control', 'dora-art-11', '--scope', EXAMPLE);
  expect(yearly.status).toBe(0);
  expect(yearly.doc.controls?.map((c) => [c.controlId, c.result])).toEqual([['dora-art-11', 'satisfied']]);
  const quarterly = await gate('--control', 'iso27001-2022-a.8.13', '--scope', EXAMPLE);
  expect(quarterly.status).toBe(EXIT_CODES.failed);
  expect(quarterly.stderr).toContain(`not satisfied: ${ids.length} of ${ids.length} resources without a verified PASS`);
});

test('a selection that takes no resource fails the gate: an empty scope proves nothing', async () => {
  const { ids } = await example();
  await drill(1, ids.map(passed));
  const scope = await scopeFile({ selection: { tags: [{ key: 'app', equals: 'no-such-app' }] } });
  const { status, doc, stderr } = await json('--within', '30d', '--scope', scope);
  expect(status).toBe(EXIT_CODES.failed);
  expect(doc).toMatchObject({ result: 'fail', scope: 'selection', selection: { resolved: 0 }, resources: [] });
  expect(stderr).toContain(
    `evidence gate failed: the selection of ${scope} matched no resource in the inventory of ${sim.baseUrl}`,
  );
  // With a control too.
  const withControl = await gate('--control', 'dora-art-11', '--scope', scope);
  expect(withControl.status).toBe(EXIT_CODES.failed);
  expect(withControl.stderr).toContain('matched no resource');
});

describe('a scope file that is not one: a usage error, before a key, a report or the service is read', () => {
  beforeEach(async () => {
    await drill(1, [passed('db-1')]);
    // A connection would exit 3: the usage error comes first.
    useService({ ...serviceEnv(sim), BACKUP_SERVICE_URL: UNREACHABLE });
  });

  test.each([
    [
      'both fields',
      { resources: ['db-1'], selection: { all: true } },
      'selection: give resources or selection, not both',
    ],
    ['neither', {}, '(top): give resources (resource IDs) or selection (a drill selection)'],
    ['an empty selection', { selection: {} }, 'selection: a selection takes all: true, a condition'],
    ['all with a condition', { selection: { all: true, regions: ['pa-east-1'] } }, 'selection.all: all takes every'],
    ['a condition without a test', { selection: { tags: [{ key: 'app' }] } }, 'selection.tags.0: an empty condition'],
    ['a field no selection has', { selection: { app: 'checkout' } }, 'selection: Unrecognized key: "app"'],
    ["a drill's bound", { selection: { all: true, maxResources: 10 } }, 'selection: Unrecognized key: "maxResources"'],
  ])('%s', async (_, content, message) => {
    const scope = await scopeFile(content);
    const result = await gate('--within', '30d', '--scope', scope);
    expect({ status: result.status, stdout: result.stdout }).toEqual({ status: EXIT_CODES.usage, stdout: '' });
    expect(result.stderr).toContain(`--scope ${scope} is not a scope file (${message}`);
    expect(result.stderr).toContain(`expected {"resources": ["<resource id>", ...]} or {"selection": {`);
  });
});

describe("a selection that cannot be resolved: exit 3, not the gate's 1, naming the service and no secret", () => {
  beforeEach(() => drill(1, [passed('db-1')]));

  test('the service unreachable', async () => {
    useService({ ...serviceEnv(sim), BACKUP_SERVICE_URL: UNREACHABLE, BACKUP_CLIENT_SECRET: SECRET });
    const result = await gate('--within', '30d', '--scope', EXAMPLE, '-o', 'json');
    expect({ status: result.status, stdout: result.stdout }).toEqual({ status: EXIT_CODES.unreachable, stdout: '' });
    expect(result.stderr).toContain(`--scope ${EXAMPLE}: the selection could not be resolved against ${UNREACHABLE}`);
    expect(result.stderr).not.toContain(SECRET);
    expect(result.stderr).not.toContain('evidence gate failed');
  });

  test('credentials the service refuses', async () => {
    useService({ ...serviceEnv(sim), BACKUP_CLIENT_SECRET: SECRET });
    const result = await gate('--within', '30d', '--scope', EXAMPLE);
    expect(result.status).toBe(EXIT_CODES.unreachable);
    expect(result.stderr).toContain(`the selection could not be resolved against ${sim.baseUrl}`);
    expect(`${result.stdout}${result.stderr}`).not.toContain(SECRET);
  });

  test('no service configured', async () => {
    useService({ BACKUP_SERVICE_URL: sim.baseUrl });
    const result = await gate('--within', '30d', '--scope', EXAMPLE);
    expect(result.status).toBe(EXIT_CODES.unreachable);
    expect(result.stderr).toContain(`--scope ${EXAMPLE} (a selection) needs a service`);
  });
});
