// `runbooks clean-point` end to end, in process: a dev server, the runbook worker and the simulator (the e2e fixture),
// a database with 32 daily snapshots of which the simulator corrupts the newer ones. The command starts the run as
// `start` does, follows it, prints its answer, and exits 0 with a clean point, 4 without.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXIT_CODES } from '../../operator/errors';
import type { CleanPointResult } from '../../runbooks/clean-point/contract';
import { dailyDatabaseSnapshots, setupE2E, teardownE2E, type E2E } from '../e2e/helpers';
import { runCliInProcess as runbooks } from '../helpers/cli-in-process';
import { serviceEnv } from '../helpers/service-env';

const CANDIDATES = 32;

let fx: E2E;
let database: Awaited<ReturnType<typeof dailyDatabaseSnapshots>>;
let scratch: string;
const savedEnv = { ...process.env };

beforeAll(async () => {
  fx = await setupE2E();
  database = await dailyDatabaseSnapshots(fx, CANDIDATES);
  scratch = mkdtempSync(join(tmpdir(), 'clean-point-run-'));
  // The CLI reads its Temporal and its service from the environment, as a user's shell gives them.
  Object.assign(process.env, {
    TEMPORAL_ADDRESS: fx.env.address,
    TEMPORAL_NAMESPACE: fx.env.namespace ?? 'default',
    RUNBOOKS_TASK_QUEUE: fx.worker.taskQueue,
    ...serviceEnv(fx.sim),
    RUNBOOKS_DEBUG: '',
  });
}, 240_000);

afterAll(async () => {
  process.env = savedEnv;
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  await teardownE2E(fx);
}, 60_000);

/** Snapshot number k (1 = the oldest) and every newer one are corrupted. */
const corruptFrom = (k: number) =>
  fx.control.corrupt(database.resourceId, { from: database.snapshots[k - 1], kind: 'rows-changed' });

/** The window of the fixture's days, which the simulator's clock has passed (ahead of this machine's). */
const windowArgs = () => ['--window', `${CANDIDATES + 1}d`, '--before', database.before];

test('a clean point: the verdict, the points examined, the queries and the run, exit 0; the run is listed', async () => {
  await corruptFrom(20);
  // Queries that take a second, so that following the run shows it at work.
  await fx.control.jobsConfig({ querySeconds: 1 });
  const checkFile = join(scratch, 'check.json');
  writeFileSync(checkFile, JSON.stringify(database.check));
  const args = ['--check', checkFile, '--restore-account', database.restoreAccountId, ...windowArgs()];
  const { status, stdout, stderr } = await runbooks(['clean-point', database.resourceId, ...args]);
  await fx.control.jobsConfig({ querySeconds: 0 });
  expect({ status, stderr }).toEqual({ status: EXIT_CODES.ok, stderr: '' });
  const clean = database.snapshots[18] ?? '';
  expect(stdout).toMatch(new RegExp(`^clean as of no encrypted emails: ${clean} \\(.*\\), 13 behind the newest$`, 'm'));
  // Its progress, as start --wait shows it.
  expect(stdout).toMatch(/^ {2}checking recovery points {2}\[.*\] \d+\/6 points \(at most\) {2}\(checking /m);
  // A row per point examined, each with its query's answer; the clean one and its newer neighbour among them.
  const rows = stdout.split('\n').filter((line) => /^\d+ {2}/.test(line));
  expect(rows.length).toBeGreaterThan(1);
  expect(rows.length).toBeLessThanOrEqual(6);
  expect(rows.find((row) => row.includes(clean))).toMatch(/ pass +encrypted emails +1 +0 +value = 0 +yes$/);
  expect(rows.find((row) => row.includes(database.snapshots[19] ?? '-'))).toMatch(/ fail +encrypted emails .* no$/);
  expect(stdout).toMatch(/^queries: {2}\d run \(bound 6\); a scan from the newest would have run 14$/m);
  const workflowId = /^workflow: (clean-point-\S+)$/m.exec(stdout)?.[1] ?? '';
  expect(workflowId).toMatch(new RegExp(`^clean-point-${database.resourceId}-[0-9a-f]{10}-\\d{4}-\\d{2}-\\d{2}$`));
  const listed = await runbooks(['list', '--runbook', 'cleanPoint']);
  expect(listed.stdout).toMatch(new RegExp(`^${workflowId} +cleanPoint +COMPLETED `, 'm'));
}, 120_000);

test('no clean point, in JSON, the restore account found on the service: the result alone, exit 4', async () => {
  const several = await runbooks(['clean-point', database.resourceId, '--check', JSON.stringify(database.check)]);
  expect(several.status).toBe(EXIT_CODES.usage);
  expect(several.stderr).toMatch(/^\d restore accounts of .* allow restores:\n/);
  expect(several.stderr).toContain(`\n  ${database.restoreAccountId}  restore-pa\n`);
  // Only restore-pa allows restores now: the command takes it.
  for (const account of Object.values(fx.sim.ctx.state.restoreAccounts)) {
    account.isRestoreAllowed = account.id === database.restoreAccountId;
  }
  await corruptFrom(1);
  const args = ['--check', JSON.stringify(database.check), ...windowArgs(), '-o', 'json'];
  const { status, stdout, stderr } = await runbooks(['clean-point', database.resourceId, ...args]);
  expect(status).toBe(EXIT_CODES.runFailed);
  const result = JSON.parse(stdout) as CleanPointResult;
  expect(result.clean).toBeNull();
  expect(result.verdict).toBe('none of the 32 recovery points in the window is clean as of no encrypted emails');
  expect(result.examined.every((point) => point.verdict === 'fail')).toBe(true);
  expect(stderr).toMatch(/^started cleanPoint as clean-point-/);
  expect(stderr).toMatch(/\nno clean point: none of the 32 recovery points/);
}, 120_000);
