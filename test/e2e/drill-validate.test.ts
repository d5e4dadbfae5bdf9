// `runbooks drill validate` end to end: the CLI, run from source, gives verdicts to drills that wait for them on the
// real dev server (the worker in this process), and `runbooks start drDrill` says what a drill's verdict and a second
// run on one day mean.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { WorkflowHandle } from '@temporalio/client';
import type { InventoryResource } from '../../api';
import { statusQuery } from '../../contracts';
import type { DrDrillInput, DrDrillResult } from '../../runbooks/dr-drill/contract';
import type { DrillReport } from '../../runbooks/dr-drill/report';
import { runCliFromSourceAsync } from '../helpers/cli-from-source';
import { bucketDestination, cliEnvOf, drillTargets, e2eSuite, eventually } from './helpers';

const fx = e2eSuite();
let vaultId: string;
let restoreAccountId: string;
/** Two resources that are not relational databases, each with a snapshot in the vault (the drill restores it). */
let resources: [InventoryResource, InventoryResource];

beforeAll(async () => {
  const { vault, account, resources: found } = drillTargets(fx);
  vaultId = vault.id;
  restoreAccountId = account.id;
  const [first, second] = found;
  if (!first || !second) throw new Error('the seeded simulator has no two snapshotted non-database resources');
  resources = [first, second];
}, 120_000);

function drillInput(): DrDrillInput {
  return {
    name: `e2e-${randomUUID().slice(0, 8)}`,
    resources: { ids: resources.map((r) => r.id) },
    vaultId,
    restoreAccountId,
    destination: bucketDestination('dr-drill-restores', 'validate/'),
    targets: { rpoSeconds: 3 * 86400, rtoSeconds: 3600 },
    validation: { windowHours: 1 },
  };
}

function runbooks(...args: string[]) {
  return runCliFromSourceAsync(args, cliEnvOf(fx));
}

/** `started drDrill as <id> (run <runId>)`, as `runbooks start` prints it. */
function startedRun(stdout: string): { workflowId: string; runId: string } {
  const match = /^started drDrill as (\S+) \(run (\S+)\)$/m.exec(stdout);
  if (!match?.[1] || !match[2]) throw new Error(`no start line in: ${stdout}`);
  return { workflowId: match[1], runId: match[2] };
}

async function reportOf(result: DrDrillResult): Promise<DrillReport> {
  return JSON.parse(await readFile(result.report.json, 'utf8')) as DrillReport;
}

async function validate(handle: WorkflowHandle, resourceId: string, ...rest: string[]) {
  return runbooks('drill', 'validate', handle.workflowId, '--resource', resourceId, ...rest);
}

test('verdicts through the CLI: taken once per resource, refused with the reason; a PASS, then a rerun the same day that FAILs and exits 4', async () => {
  const input = drillInput();
  const started = await runbooks('start', 'drDrill', '--input', JSON.stringify(input));
  expect(started.stderr).toBe('');
  expect(started.status).toBe(0);
  const first = startedRun(started.stdout);
  expect(first.workflowId).toMatch(new RegExp(`^drill-${input.name}-\\d{4}-\\d{2}-\\d{2}$`));
  const handle = fx.env.client.workflow.getHandle(first.workflowId, first.runId);

  // A second start while it runs is refused, with the command that starts a second drill the same day.
  const again = await runbooks('start', 'drDrill', '--input', JSON.stringify(input));
  expect(again.status).toBe(1);
  expect(again.stderr).toContain(`a drill is already running as ${first.workflowId}`);
  expect(again.stderr).toContain(
    `runbooks start drDrill --input '${JSON.stringify(input)}' --id ${first.workflowId}-2`,
  );

  // The resource whose restore ended first waits first.
  const [a, b] = await waitingOrder(handle);
  const taken = await validate(handle, a, '--result', 'pass', '--message', 'the app answers on the restored copy');
  expect(taken.stderr).toBe('');
  expect(taken.stdout.trim()).toBe(`taken: ${first.workflowId} took pass for ${a}`);
  expect(taken.status).toBe(0);

  // The same resource again: the drill has its verdict, and says so.
  const twice = await validate(handle, a, '--result', 'fail');
  expect(twice.stdout).toBe('');
  expect(twice.stderr).toMatch(/^refused: .+/);
  expect(twice.stderr).toContain(`resource ${a} of drill ${first.workflowId} was validated already: pass`);
  expect(twice.status).toBe(1);

  // A resource the drill does not hold.
  const unknown = await validate(handle, 'no-such-resource', '--result', 'pass');
  expect(unknown.stderr).toMatch(/^refused: .*no-such-resource/);
  expect(unknown.status).toBe(1);

  await awaitingVerdict(handle, b);
  expect((await validate(handle, b, '--result', 'pass')).status).toBe(0);
  const result = (await handle.result()) as DrDrillResult;
  expect(result.summary).toMatchObject({ verdict: 'PASS', total: 2, passed: 2, failed: 0 });
  const report = await reportOf(result);
  const row = report.resources.find((r) => r.resourceId === a);
  expect(row?.validation).toMatchObject({ status: 'passed', message: 'the app answers on the restored copy' });

  // Once the drill has ended, a verdict finds no drill to take it; an unknown ID is not found.
  const late = await validate(handle, b, '--result', 'pass');
  expect(late.stderr).toMatch(new RegExp(`^${first.workflowId} has ended \\(COMPLETED\\): it takes no more verdicts`));
  expect(late.status).toBe(1);
  const missing = await runbooks(
    'drill',
    'validate',
    `drill-none-${randomUUID()}`,
    '--resource',
    a,
    '--result',
    'pass',
  );
  expect(missing.stderr).toMatch(/^no workflow 'drill-none-.+' in this namespace/);
  expect(missing.status).toBe(5);

  // The day's drill has ended: starting it again runs it again under the same ID, and keeps the first run's report.
  const rerun = runbooks('start', 'drDrill', '--input', JSON.stringify(input), '--wait');
  const { handle: second, runId: secondRunId } = await waitForRun(first.workflowId, first.runId);
  const [failing, passing] = await waitingOrder(second);
  expect((await validate(second, failing, '--result', 'fail', '--message', 'login page answers 500')).status).toBe(0);
  await awaitingVerdict(second, passing);
  expect((await validate(second, passing, '--result', 'pass')).status).toBe(0);

  // `start --wait` prints the result, then exits 4: the drill completed, and did not pass.
  const waited = await rerun;
  expect(waited.stdout).toContain(
    `an earlier run of this drill today exists (run ${first.runId}, COMPLETED); its report is kept`,
  );
  expect(waited.stdout).toContain('"verdict": "FAIL"');
  expect(waited.stderr).toMatch(
    new RegExp(`^${first.workflowId}: the drill's verdict is FAIL \\(1 passed, 0 partial, 1 failed of 2\\)`),
  );
  expect(waited.status).toBe(4);

  const failed = (await second.result()) as DrDrillResult;
  const failedRow = (await reportOf(failed)).resources.find((r) => r.resourceId === failing);
  expect(failedRow).toMatchObject({
    verdict: 'FAIL',
    validation: { status: 'failed', message: 'login page answers 500' },
  });
  // Both runs' reports are there, each named for its run: the first one still says PASS, as the CLI said.
  expect(result.report.json).toContain(first.runId);
  expect(failed.report.json).toContain(secondRunId);
  expect((await reportOf(result)).summary.verdict).toBe('PASS');
  expect((await reportOf(failed)).summary.verdict).toBe('FAIL');
}, 180_000);

/** The run under `workflowId` that `runbooks start` starts after `previousRunId`. */
async function waitForRun(
  workflowId: string,
  previousRunId: string,
): Promise<{ handle: WorkflowHandle; runId: string }> {
  const runId = await eventually(`a new run of ${workflowId}`, async () => {
    const { runId } = await fx.env.client.workflow.getHandle(workflowId).describe();
    return runId !== previousRunId && runId;
  });
  return { handle: fx.env.client.workflow.getHandle(workflowId, runId), runId };
}

/** The resources the drill's status says wait for a verdict. */
async function waitingOn(handle: WorkflowHandle): Promise<string[]> {
  return (await handle.query(statusQuery)).awaitingVerdict ?? [];
}

/** Waits until the drill waits for a verdict on the resource. */
async function awaitingVerdict(handle: WorkflowHandle, resourceId: string): Promise<void> {
  await eventually(`${handle.workflowId} to wait for a verdict on ${resourceId}`, async () =>
    (await waitingOn(handle)).includes(resourceId),
  );
}

/** The drill's two resources: one it waits for a verdict on, then the other. */
async function waitingOrder(handle: WorkflowHandle): Promise<[string, string]> {
  const [first] = await eventually(`${handle.workflowId} to wait for a verdict`, async () => {
    const ids = await waitingOn(handle);
    return ids.length > 0 && ids;
  });
  const other = resources.find((r) => r.id !== first);
  if (!first || !other || !resources.some((r) => r.id === first)) throw new Error(`waits on ${first}, not ours`);
  return [first, other.id];
}
