import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readInput } from '../../operator/args';
import { ServiceError } from '@temporalio/client';
import { describeCliError, NotConnectedError, UsageError } from '../../operator/errors';
import { formatProgress, progressBar } from '../../operator/progress';
import { runbookName, shortHash, validateRunbookInput } from '../../operator/runbooks';

const NOW = new Date('2026-11-21T09:30:00Z');

const drill = {
  name: 'weekly',
  resources: { ids: ['r-1'] },
  vaultId: 'v-1',
  restoreAccountId: 'ra-1',
  destination: { bucketA: { bucketName: 'drills' } },
  targets: { rpoSeconds: 3600, rtoSeconds: 900 },
};

const query = {
  snapshotId: 'snap-1',
  query: {
    databaseName: 'shopdb',
    query: 'SELECT * FROM orders',
    restoreAccountId: 'ra-1',
    destination: { bucketA: { bucketName: 'query-results-pa-east-1' } },
  },
};

describe('deterministic workflow IDs', () => {
  test.each([
    ['drDrill', drill, 'drill-weekly-2026-11-21'],
    ['costExport', { window: 'previous-day' }, 'cost-export-2026-11-20'],
    ['costExport', { window: 'previous-month' }, 'cost-export-2026-10'],
    // A FOCUS export of a window is its own run, beside the default one.
    ['costExport', { window: 'previous-day', format: 'focus' }, 'cost-export-2026-11-20-focus'],
    [
      'costExport',
      { window: { startTime: '2026-11-01T00:00:00Z', endTime: '2026-11-08T00:00:00Z' } },
      'cost-export-2026-11-01T000000Z_2026-11-08T000000Z',
    ],
    [
      'approvalGatedRestore',
      { resourceId: 'r-1', snapshotId: 's-1', restoreAccountId: 'ra-1', destination: { bucketA: { bucketName: 'b' } } },
      'restore-r-1-s-1',
    ],
    ['offboardSourceAccount', { accountId: 'acc-9' }, 'offboard-acc-9'],
    ['rotateCredentials', undefined, 'rotate-credentials-2026-11-21'],
  ] as const)('%s %j gets %s', (runbook, input, id) => {
    expect(validateRunbookInput(runbook, input, NOW).workflowId).toBe(id);
  });

  test('a query export is named for its snapshot and a short hash of its query', () => {
    const { workflowId } = validateRunbookInput('queryExport', query, NOW);
    expect(workflowId).toBe(`query-export-snap-1-${shortHash('shopdb\nSELECT * FROM orders')}`);
    expect(workflowId).toMatch(/^query-export-snap-1-[0-9a-f]{10}$/);
    // The same query gives the same ID (a second start is refused while the first runs); another query another.
    expect(validateRunbookInput('queryExport', query, NOW).workflowId).toBe(workflowId);
    const other = { ...query, query: { ...query.query, query: 'SELECT * FROM customers' } };
    expect(validateRunbookInput('queryExport', other, NOW).workflowId).not.toBe(workflowId);
  });

  test('a posture report is named for its day and its input, defaults included', () => {
    const { workflowId } = validateRunbookInput('postureReport', {}, NOW);
    expect(workflowId).toMatch(/^posture-report-2026-11-21-[0-9a-f]{10}$/);
    const spelledOut = { maxSnapshotAgeHours: 24, protectedStatuses: ['PROTECTED'], pageSize: 100 };
    expect(validateRunbookInput('postureReport', spelledOut, NOW).workflowId).toBe(workflowId);
    expect(validateRunbookInput('postureReport', { maxSnapshotAgeHours: 48 }, NOW).workflowId).not.toBe(workflowId);
  });

  test('the input is passed on as given; only rotateCredentials takes no argument', () => {
    expect(validateRunbookInput('drDrill', drill, NOW).args).toEqual([drill]);
    expect(validateRunbookInput('rotateCredentials', undefined, NOW).args).toEqual([]);
  });
});

describe('input validation before anything starts', () => {
  test('each bad field is named, with the schema of the workflow itself', () => {
    const bad = { ...drill, name: 'Weekly Drill', targets: { rpoSeconds: 0, rtoSeconds: 900 } };
    expect(() => validateRunbookInput('drDrill', bad, NOW)).toThrow(UsageError);
    expect(() => validateRunbookInput('drDrill', bad, NOW)).toThrow(
      [
        'invalid input for drDrill; nothing was started:',
        '  name: lowercase letters, digits and dashes (expected a string matching /^[a-z0-9][a-z0-9-]{0,62}$/; got "Weekly Drill")',
        '  targets.rpoSeconds: Too small: expected number to be >=1; got 0',
        'see: runbooks inputs drDrill (its JSON Schema) or runbooks inputs drDrill --example',
      ].join('\n'),
    );
  });

  test("a union's alternatives are spelled out", () => {
    expect(() => validateRunbookInput('costExport', { window: 'yesterday' }, NOW)).toThrow(
      /window: .*matches none of: unknown value 'yesterday' \(known values: previous-day, previous-month\)/,
    );
  });

  test('usage errors exit with 2', () => {
    try {
      validateRunbookInput('offboardSourceAccount', {}, NOW);
      throw new Error('expected a UsageError');
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      expect((err as UsageError).exitCode).toBe(2);
      expect((err as UsageError).message).toContain('accountId:');
    }
  });

  test('unknown runbook names are refused with the list of known ones', () => {
    expect(runbookName('drDrill')).toBe('drDrill');
    expect(() => runbookName('toString')).toThrow('<runbook> must be one of approvalGatedRestore, drDrill');
  });
});

describe('--input', () => {
  test('inline JSON or a file', async () => {
    expect(readInput('{"window":"previous-day"}')).toEqual({ window: 'previous-day' });
    const file = join(await mkdtemp(join(tmpdir(), 'input-')), 'drill.json');
    await writeFile(file, JSON.stringify(drill));
    expect(readInput(file)).toEqual(drill);
  });

  test('bad JSON and missing files are usage errors that name the source', async () => {
    expect(() => readInput('{"window":')).toThrow(/--input is not valid JSON/);
    expect(() => readInput('/nonexistent/drill.json')).toThrow(/cannot be read \(ENOENT\)/);
    const file = join(await mkdtemp(join(tmpdir(), 'input-')), 'broken.json');
    await writeFile(file, 'window: previous-day');
    expect(() => readInput(file)).toThrow(`${file} is not valid JSON`);
  });
});

describe('progress bar', () => {
  test('fills in proportion and never overflows', () => {
    expect(formatProgress({ done: 1, total: 2, unit: 'approvals' })).toBe('[#####-----] 1/2 approvals');
    expect(progressBar(0, 3)).toBe('[----------]');
    expect(progressBar(5, 3)).toBe('[##########]');
    expect(progressBar(1, 0)).toBe('[----------]');
  });
});

describe('CLI errors', () => {
  test('expected errors keep their message and exit code', () => {
    expect(describeCliError(new UsageError('--limit must be a whole number'))).toEqual({
      text: '--limit must be a whole number',
      exitCode: 2,
    });
    expect(describeCliError(new NotConnectedError('cannot reach Temporal')).exitCode).toBe(3);
  });

  test('what the Temporal server refuses as invalid is bad input: exit 2, its details, no stack', () => {
    const grpc = Object.assign(new Error('3 INVALID_ARGUMENT: WorkflowId length exceeds limit.'), {
      code: 3,
      details: 'WorkflowId length exceeds limit.',
      metadata: {},
    });
    expect(describeCliError(new ServiceError('Failed to start workflow', { cause: grpc }))).toEqual({
      text: 'the Temporal server refused the request: WorkflowId length exceeds limit.',
      exitCode: 2,
    });
  });

  test('what the Temporal server does not have is not found (5); a server that stopped answering is unreachable (3)', () => {
    const grpc = (code: number, message: string) =>
      Object.assign(new Error(message), { code, details: '', metadata: {} });
    const missing = new ServiceError('Failed to describe', {
      cause: grpc(5, '5 NOT_FOUND: Namespace nowhere is not found.'),
    });
    expect(describeCliError(missing).exitCode).toBe(5);
    expect(
      describeCliError(new ServiceError('Failed', { cause: grpc(14, '14 UNAVAILABLE: connection refused') })),
    ).toEqual({
      text: 'error: Failed (set RUNBOOKS_DEBUG=1 for details)',
      exitCode: 3,
    });
  });

  test('anything else is one line, exit 1; RUNBOOKS_DEBUG=1 shows the stack', () => {
    const err = new Error('socket hang up\nmore detail');
    expect(describeCliError(err)).toEqual({
      text: 'error: socket hang up (set RUNBOOKS_DEBUG=1 for details)',
      exitCode: 1,
    });
    expect(describeCliError(err, true).text).toContain('    at ');
  });
});
