// What the CLI says when a command line or a run is not what the user expected: a typo gets one line with the closest
// name (exit 2), `list` is newest first, a closed run is said to be closed, a run already under an ID is named with
// what to do, Ctrl-C while following a run says that it goes on (exit 130), and a malformed TEMPORAL_ADDRESS is
// refused at once. In process, through cli/run.ts, with a fake Temporal client in place of operator/connection.ts.
import { getEventListeners } from 'node:events';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { RunbookStatus } from '../../contracts';
import { EXIT_CODES } from '../../operator/errors';
import { followUntilInterrupted } from '../../operator/watch';
import { newestStarted } from '../../cli/workflow-commands';
import { runCliInProcess as runbooks } from '../helpers/cli-in-process';

interface FakeRun {
  workflowId: string;
  runId: string;
  type: string;
  status: { name: string };
  startTime: Date;
  closeTime?: Date;
}

/** The fake Temporal: its runs, in the order Temporal's SQL visibility lists them, and what the commands did. */
const mockTemporal = {
  runs: [] as FakeRun[],
  status: undefined as RunbookStatus | undefined,
  cancelled: [] as string[],
  /** Called on each status query, as a run being followed is asked. */
  onQuery: () => {},
};

function describeRun(workflowId: string): FakeRun {
  const found = mockTemporal.runs.find((r) => r.workflowId === workflowId);
  if (!found) throw new WorkflowNotFoundError('not found', workflowId, undefined);
  return found;
}

const mockClient = {
  withAbortSignal: <R>(_signal: AbortSignal, fn: () => Promise<R>) => fn(),
  workflow: {
    list: async function* () {
      yield* mockTemporal.runs;
    },
    start: (type: string, options: { workflowId: string }) => {
      if (mockTemporal.runs.some((r) => r.workflowId === options.workflowId && r.status.name === 'RUNNING')) {
        return Promise.reject(new WorkflowExecutionAlreadyStartedError('already started', options.workflowId, type));
      }
      const started = { workflowId: options.workflowId, runId: 'new-run', type, status: { name: 'RUNNING' } };
      mockTemporal.runs.push({ ...started, startTime: new Date() });
      return Promise.resolve({ firstExecutionRunId: 'new-run' });
    },
    getHandle: (workflowId: string) => ({
      workflowId,
      describe: () => Promise.resolve().then(() => describeRun(workflowId)),
      query: () => {
        mockTemporal.onQuery();
        return Promise.resolve(mockTemporal.status);
      },
      result: () => Promise.reject(new Error('the restore job failed')),
      cancel: () => {
        mockTemporal.cancelled.push(workflowId);
        return Promise.resolve();
      },
      signal: () => Promise.resolve(),
    }),
  },
};

jest.mock('../../operator/connection', () => ({
  withTemporal: (fn: (session: unknown) => Promise<unknown>) =>
    fn({ client: mockClient, address: 'fake:7233', namespace: 'default', taskQueue: 'q', close: () => undefined }),
}));

const STATUS: RunbookStatus = {
  runbook: 'approvalGatedRestore',
  phase: 'waiting for approval',
  waitingFor: 'approval of request ar-1 (1/2)',
  ids: { requestId: 'ar-1' },
  updatedAt: '2026-11-25T10:00:00.000Z',
};

const at = (iso: string) => new Date(iso);

beforeEach(() => {
  mockTemporal.runs = [];
  mockTemporal.status = undefined;
  mockTemporal.cancelled = [];
  mockTemporal.onQuery = () => {};
});

describe('a typo gets one line with the closest name, exit 2', () => {
  test.each([
    [['strat'], "unknown command 'strat': did you mean 'start'?"],
    [['start', 'drdrill'], "unknown runbook 'drdrill': did you mean 'drDrill'?"],
    [['inputs', 'drDril'], "unknown runbook 'drDril': did you mean 'drDrill'?"],
    [['start', 'costExport', '--wiat'], "unknown option '--wiat' for 'start': did you mean '--wait'?"],
    [
      ['inputs', 'drDrill', '--service-url', 'x'],
      "unknown option '--service-url' for 'inputs': see 'runbooks inputs --help'",
    ],
    [['doctor', '--servce-url', 'x'], "unknown option '--servce-url' for 'doctor': did you mean '--service-url'?"],
    [['status', 'some-id', '--wach'], "unknown option '--wach' for 'status': did you mean '--watch'?"],
    [['schedule', 'craete'], "unknown schedule command 'craete': did you mean 'create'?"],
    [['status', 'some-id', '--colour'], "unknown option '--colour' for 'status': see 'runbooks status --help'"],
  ])('runbooks %j', async (args, line) => {
    const result = await runbooks(args);
    expect(result.stderr).toBe(`${line}\n`);
    expect(result.stdout).toBe('');
    expect(result.status).toBe(EXIT_CODES.usage);
  });
});

test('list: newest first by start time, whatever order Temporal lists them in', async () => {
  // As Temporal's SQL visibility lists them: the open run first, then by close time.
  mockTemporal.runs = [
    {
      workflowId: 'old-open',
      runId: 'r1',
      type: 'drDrill',
      status: { name: 'RUNNING' },
      startTime: at('2026-11-20T00:00:00Z'),
    },
    {
      workflowId: 'middle',
      runId: 'r2',
      type: 'costExport',
      status: { name: 'COMPLETED' },
      startTime: at('2026-11-22T00:00:00Z'),
      closeTime: at('2026-11-25T00:00:00Z'),
    },
    {
      workflowId: 'newest',
      runId: 'r3',
      type: 'costExport',
      status: { name: 'COMPLETED' },
      startTime: at('2026-11-24T00:00:00Z'),
      closeTime: at('2026-11-24T00:01:00Z'),
    },
  ];
  const text = await runbooks(['list']);
  const ids = text.stdout
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .map((line) => line.split(/\s+/)[0]);
  expect(ids).toEqual(['newest', 'middle', 'old-open']);
  const limited = await runbooks(['list', '--limit', '2', '-o', 'json']);
  const json = JSON.parse(limited.stdout) as { workflows: { workflowId: string }[] };
  expect(json.workflows.map((w) => w.workflowId)).toEqual(['newest', 'middle']);
});

test('list reads no further than the runs that could still be among the newest', async () => {
  const read: string[] = [];
  const listed = async function* () {
    // As SQL visibility lists them: open first, then closed by close time, newest first.
    const runs = [
      { id: 'open', startTime: at('2026-11-20T00:00:00Z') },
      { id: 'closed-25', startTime: at('2026-11-24T00:00:00Z'), closeTime: at('2026-11-25T00:00:00Z') },
      { id: 'closed-19', startTime: at('2026-11-18T00:00:00Z'), closeTime: at('2026-11-19T00:00:00Z') },
      { id: 'never-read', startTime: at('2026-11-01T00:00:00Z'), closeTime: at('2026-11-02T00:00:00Z') },
    ];
    for (const run of runs) {
      read.push(run.id);
      yield run;
    }
  };
  const newest = await newestStarted(listed(), 2);
  expect(newest.map((r) => r.id)).toEqual(['closed-25', 'open']);
  // closed-19 closed before the second newest start: nothing after it can be newer.
  expect(read).toEqual(['open', 'closed-25', 'closed-19']);
});

describe('a closed run', () => {
  const closed = (name: string): FakeRun => ({
    workflowId: 'restore-1',
    runId: 'r1',
    type: 'approvalGatedRestore',
    status: { name },
    startTime: at('2026-11-25T09:00:00Z'),
    closeTime: at('2026-11-25T10:30:00Z'),
  });

  test.each([
    ['FAILED', 'failed'],
    ['CANCELLED', 'was cancelled'],
    ['TERMINATED', 'was terminated'],
    ['TIMED_OUT', 'timed out'],
  ])('status of a %s run says how and when it closed, with no live phase', async (name, how) => {
    mockTemporal.runs = [closed(name)];
    // Its last status still says it waited: that must not be shown as if it still did.
    mockTemporal.status = STATUS;
    const result = await runbooks(['status', 'restore-1']);
    expect(result.status).toBe(EXIT_CODES.ok);
    expect(result.stdout).toContain(`closed:      ${how} at 2026-11-25T10:30:00.000Z`);
    expect(result.stdout).toContain('request:     ar-1');
    expect(result.stdout).not.toMatch(/phase:|waiting for/);
  });

  test('cancel says it is already closed, and how: exit 1, nothing cancelled', async () => {
    mockTemporal.runs = [closed('COMPLETED')];
    const result = await runbooks(['cancel', 'restore-1']);
    expect(result.stderr).toBe(
      'restore-1 is already closed: it completed at 2026-11-25T10:30:00.000Z; nothing to cancel\n',
    );
    expect(result.status).toBe(EXIT_CODES.failed);
    expect(mockTemporal.cancelled).toEqual([]);
  });

  test('cancel of a running run cancels it', async () => {
    mockTemporal.runs = [{ ...closed('RUNNING'), closeTime: undefined }];
    const result = await runbooks(['cancel', 'restore-1']);
    expect(result.status).toBe(EXIT_CODES.ok);
    expect(mockTemporal.cancelled).toEqual(['restore-1']);
  });
});

test('start --id of a running run names it and says what to do: follow, cancel or another --id', async () => {
  mockTemporal.runs = [
    {
      workflowId: 'costs-today',
      runId: 'run-7',
      type: 'costExport',
      status: { name: 'RUNNING' },
      startTime: at('2026-11-25T09:00:00Z'),
    },
  ];
  const result = await runbooks(['start', 'costExport', '--input', '{"window":"previous-day"}', '--id', 'costs-today']);
  expect(result.status).toBe(EXIT_CODES.failed);
  expect(result.stderr).toContain(
    'workflow costs-today is already running (run run-7, RUNNING since 2026-11-25T09:00:00.000Z)',
  );
  expect(result.stderr).toContain('runbooks status costs-today --watch');
  expect(result.stderr).toContain('runbooks cancel costs-today');
  expect(result.stderr).toContain(`runbooks start costExport --input '{"window":"previous-day"}' --id costs-today-2`);
});

describe('Ctrl-C while following a run', () => {
  const open: FakeRun = {
    workflowId: 'restore-2',
    runId: 'r2',
    type: 'approvalGatedRestore',
    status: { name: 'RUNNING' },
    startTime: at('2026-11-25T09:00:00Z'),
  };

  test.each([
    [['status', 'restore-2', '--watch'], 'restore-2'],
    [['start', 'costExport', '--input', '{"window":"previous-day"}', '--id', 'costs-2', '--wait'], 'costs-2'],
  ])('runbooks %j: the run goes on, how to follow it, exit 130', async (args, id) => {
    mockTemporal.runs = [open];
    mockTemporal.status = STATUS;
    // Ctrl-C once it is being followed.
    mockTemporal.onQuery = () => setImmediate(() => process.emit('SIGINT'));
    const result = await runbooks(args);
    expect(result.stderr).toContain(`${id} goes on running in Temporal`);
    expect(result.stderr).toContain(`runbooks status ${id} --watch`);
    expect(result.status).toBe(130);
    expect(mockTemporal.cancelled).toEqual([]);
    // The wait let go of Ctrl-C: the next one is the shell's again.
    expect(process.listenerCount('SIGINT')).toBe(0);
  });
});

test('a long watch leaves no listener on its Ctrl-C signal, and Ctrl-C still cancels the calls under way', async () => {
  const signals: AbortSignal[] = [];
  // As Temporal's connection does: a listener per call on the signal in force, never removed.
  const client = {
    withAbortSignal: <R>(signal: AbortSignal, fn: () => Promise<R>) => {
      signals.push(signal);
      signal.addEventListener('abort', () => undefined);
      return fn();
    },
  };
  const inFlight = await followUntilInterrupted(client, async ({ signal, calls }) => {
    for (let round = 0; round < 50; round += 1) await calls(async () => undefined);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    let held: AbortSignal | undefined;
    const pending = calls(() => {
      held = signals.at(-1);
      process.emit('SIGINT');
      return Promise.resolve(held?.aborted);
    });
    return pending;
  });
  expect(new Set(signals).size).toBe(51);
  expect(inFlight).toBe(true);
});
