// `--output json` (`-o json`) end to end: the CLI, run from source against a dev server with a runbook worker, prints
// one JSON document per command, in the shapes of operator/output-shapes.ts, for runs and schedules this file made.
import { randomUUID } from 'node:crypto';
import type {
  ApprovalsOutput,
  DeploymentStatusOutput,
  ListOutput,
  ScheduleListOutput,
  StatusOutput,
} from '../../operator/output-shapes';
import { approvalGatedRestore, costExport } from '../../runbooks/workflows';
import { bootstrapCurrentVersion } from '../../worker/versioning';
import { runCliFromSourceAsync } from '../helpers/cli-from-source';
import {
  approveAndNudge,
  costExportScheduleArgs,
  eventually,
  objectStoreTarget,
  e2eSuite,
  startWorker,
  waitingRequestId,
  type RunningWorker,
} from './helpers';

let versioned: RunningWorker | undefined;
const fx = e2eSuite({}, async () => {
  await versioned?.stop().catch(() => undefined);
});
const completedId = `cost-export-${randomUUID()}`;
const failedId = `cost-export-${randomUUID()}`;

const SPELLINGS = [
  ['-o', 'json'],
  ['--output', 'json'],
];
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The CLI's environment: this file's dev server and worker, unversioned. */
function cliEnv(): Record<string, string | undefined> {
  const { env, worker } = fx;
  return {
    ...process.env,
    TEMPORAL_ADDRESS: env.address,
    TEMPORAL_NAMESPACE: env.namespace ?? 'default',
    RUNBOOKS_TASK_QUEUE: worker.taskQueue,
    RUNBOOKS_DEPLOYMENT_NAME: undefined,
    RUNBOOKS_DEBUG: '',
  };
}

/** `runbooks <args>`: exit 0, nothing (or only `stderr`) on standard error, and standard output one JSON object. */
async function cliJson<T>(args: string[], stderr = ''): Promise<T> {
  const result = await runCliFromSourceAsync(args, cliEnv());
  expect({ args, stderr: result.stderr, status: result.status }).toEqual({ args, stderr, status: 0 });
  const parsed = JSON.parse(result.stdout) as unknown;
  expect({ type: typeof parsed, isNull: parsed === null, isArray: Array.isArray(parsed) }).toEqual({
    type: 'object',
    isNull: false,
    isArray: false,
  });
  return parsed as T;
}

/** Only documented fields, and no null where a value is absent. */
function expectFields(value: object, allowed: string[]): void {
  for (const [key, field] of Object.entries(value)) {
    expect({ key, known: allowed.includes(key), isNull: field === null }).toEqual({ key, known: true, isNull: false });
  }
}

const RUN_FIELDS = ['workflowId', 'runId', 'runbook', 'state', 'startTime', 'closeTime'];

test('status: a completed run carries its result, a failed one its failure', async () => {
  const { env, worker } = fx;
  const completed = await env.client.workflow.start(costExport, {
    taskQueue: worker.taskQueue,
    workflowId: completedId,
    args: [{ window: 'previous-day' }],
  });
  const watched = await cliJson<StatusOutput>(['status', completedId, '--watch', '-o', 'json']);
  const result = await completed.result();
  expect(watched).toMatchObject({ workflowId: completedId, runId: completed.firstExecutionRunId, state: 'COMPLETED' });
  expect(watched.result).toEqual(JSON.parse(JSON.stringify(result)));

  // A window that does not exist: the runbook refuses it (the CLI would have refused to start it).
  const failed = env.client.workflow.start('costExport', {
    taskQueue: worker.taskQueue,
    workflowId: failedId,
    args: [{ window: 'yesterday' }],
  });
  await expect((await failed).result()).rejects.toThrow();

  for (const spelling of SPELLINGS) {
    const done = await cliJson<StatusOutput>(['status', completedId, ...spelling]);
    expectFields(done, [...RUN_FIELDS, 'status', 'result', 'failure']);
    expect(done).toMatchObject({ workflowId: completedId, runbook: 'costExport', state: 'COMPLETED' });
    expect(done.startTime).toMatch(ISO);
    expect(done.closeTime).toMatch(ISO);
    expect(done.status?.phase).toMatch(/^completed/);
    expect(done.result).toEqual(watched.result);
    expect(done.failure).toBeUndefined();

    // Refused before it set its status handler: it has no status to tell, which the note says beside the JSON.
    const refused = await cliJson<StatusOutput>(
      ['status', failedId, ...spelling],
      'no worker answered the status query; is `npm start` running?\n',
    );
    expect(refused.status).toBeUndefined();
    expect(refused).toMatchObject({ workflowId: failedId, state: 'FAILED', failure: { type: 'INVALID_INPUT' } });
    expect(refused.failure?.message).toContain('window');
    expect(refused.result).toBeUndefined();
  }
});

test('list: the runs started, newest first, each with its state and times', async () => {
  for (const spelling of SPELLINGS) {
    const listed = await eventually('both cost exports in `runbooks list -o json`', async () => {
      const doc = await cliJson<ListOutput>(['list', '--limit', '100', ...spelling]);
      const ids = doc.workflows.map((w) => w.workflowId);
      return ids.includes(completedId) && ids.includes(failedId) && doc;
    });
    for (const run of listed.workflows) expectFields(run, RUN_FIELDS);
    const [failed, completed] = [failedId, completedId].map((id) => listed.workflows.find((w) => w.workflowId === id));
    expect(completed).toMatchObject({ runbook: 'costExport', state: 'COMPLETED' });
    expect(completed?.closeTime).toMatch(ISO);
    expect(failed).toMatchObject({ runbook: 'costExport', state: 'FAILED' });
    expect(failed?.startTime).toMatch(ISO);
    // Newest first: the failed run started after the completed one.
    const order = listed.workflows.map((w) => w.workflowId);
    expect(order.indexOf(failedId)).toBeLessThan(order.indexOf(completedId));
  }
});

test('approvals (and its --json alias) lists a restore waiting for approval; status shows its request, and --watch its end', async () => {
  const { env, worker, control } = fx;
  await control.addPolicy({ requiredApprovals: 1, approvalWindowHours: 24, executionWindowHours: 6 });
  const restore = await env.client.workflow.start(approvalGatedRestore, {
    taskQueue: worker.taskQueue,
    workflowId: `restore-${randomUUID()}`,
    args: [
      {
        ...objectStoreTarget(fx),
        kind: 'bucket',
        destination: { bucketA: { bucketName: 'restored-objects', prefix: 'json/' } },
      },
    ],
  });
  const requestId = await waitingRequestId(restore);

  for (const spelling of [...SPELLINGS, ['--json']]) {
    const doc = await eventually('the restore in `runbooks approvals -o json`', async () => {
      const approvals = await cliJson<ApprovalsOutput>(['approvals', ...spelling]);
      return approvals.approvals.some((a) => a.workflowId === restore.workflowId) && approvals;
    });
    const row = doc.approvals.find((a) => a.workflowId === restore.workflowId);
    expect(row).toMatchObject({
      runId: restore.firstExecutionRunId,
      runbook: 'approvalGatedRestore',
      requestId,
      approvals: { current: 0, required: 1 },
      executionWindowHours: 6,
      answered: true,
    });
    expect(row?.startedAt).toMatch(ISO);
    expect(row?.executionDeadline).toBeUndefined();
  }

  for (const spelling of SPELLINGS) {
    const status = await cliJson<StatusOutput>(['status', restore.workflowId, ...spelling]);
    expect(status).toMatchObject({ runbook: 'approvalGatedRestore', state: 'RUNNING' });
    expect(status.status).toMatchObject({ phase: 'waiting for approval', ids: { requestId } });
    expect(status.closeTime).toBeUndefined();
    expect(status.result).toBeUndefined();
  }

  // `--watch -o json` follows the run without drawing progress, and prints one document once it has closed.
  const watching = cliJson<StatusOutput>(['status', restore.workflowId, '--watch', '--output', 'json']);
  // Time for the CLI to start watching while the run waits (were it slower, the test would only prove less).
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  await approveAndNudge(control, requestId, restore);
  const result = await restore.result();
  const watched = await watching;
  expect(watched).toMatchObject({ workflowId: restore.workflowId, state: 'COMPLETED' });
  expect(watched.closeTime).toMatch(ISO);
  expect(watched.result).toEqual(JSON.parse(JSON.stringify(result)));
});

test('schedule list: a schedule created with the CLI, with its runbook, cron and next run', async () => {
  const scheduleId = `yearly-${randomUUID()}`;
  // No jitter: the next run is then exactly at its time.
  await cliJsonFree(costExportScheduleArgs(scheduleId, '--cron', '0 2 1 1 *', '--jitter', '0s'));
  for (const spelling of SPELLINGS) {
    const doc = await eventually('the schedule in `runbooks schedule list -o json`', async () => {
      const schedules = await cliJson<ScheduleListOutput>(['schedule', 'list', ...spelling]);
      return schedules.schedules.some((s) => s.scheduleId === scheduleId) && schedules;
    });
    const { nextRunTime, ...schedule } = doc.schedules.find((s) => s.scheduleId === scheduleId) ?? { scheduleId: '' };
    // Never run yet: no lastRunTime.
    expect(schedule).toEqual({ scheduleId, runbook: 'costExport', cron: '0 2 1 1 *', paused: false });
    expect(nextRunTime).toMatch(/^\d{4}-01-01T02:00:00\.000Z$/);
  }
});

/** A text-mode command that must succeed; its output is not JSON. */
async function cliJsonFree(args: string[]): Promise<void> {
  const result = await runCliFromSourceAsync(args, cliEnv());
  expect({ args, stderr: result.stderr, status: result.status }).toEqual({ args, stderr: '', status: 0 });
}

test('deployment status: the versions of a Worker Deployment, the current one, and no stall', async () => {
  const suffix = randomUUID().slice(0, 8);
  const version = { deploymentName: `runbooks-${suffix}`, buildId: 'v1' };
  versioned = await startWorker(fx, {
    taskQueue: `versioned-${suffix}`,
    deploymentVersion: version,
    versioningMode: 'pinned',
  });
  const bootstrap = await bootstrapCurrentVersion({ client: fx.env.client, version, intervalMs: 200 });
  expect(bootstrap).toEqual({ outcome: 'made-current' });

  for (const spelling of SPELLINGS) {
    const doc = await eventually('the worker among the pollers', async () => {
      const status = await cliJson<DeploymentStatusOutput>([
        'deployment',
        'status',
        '--deployment',
        version.deploymentName,
        ...spelling,
      ]);
      return status.versions[0]?.pollers === 1 && status;
    });
    expectFields(doc, ['deploymentName', 'current', 'ramping', 'versions', 'stalls']);
    expect(doc).toMatchObject({ deploymentName: version.deploymentName, current: 'v1', stalls: [] });
    expect(doc.versions).toHaveLength(1);
    expectFields(doc.versions[0] ?? {}, [
      'buildId',
      'routing',
      'drainage',
      'createdAt',
      'drainageCheckedAt',
      'pollers',
      'pinnedRuns',
    ]);
    expect(doc.versions[0]).toMatchObject({ buildId: 'v1', routing: 'current', pollers: 1, pinnedRuns: 0 });
    expect(doc.versions[0]?.createdAt).toMatch(ISO);
  }
});
