import { runFileName } from './run-file';

const RUN_1 = '3f2a1c9e-8d4b-4e1a-9c7f-0a1b2c3d4e5f';
const RUN_2 = '7b6c5d4e-3f2a-4b1c-8d9e-0f1e2d3c4b5a';

test('each run of a workflow ID has a file of its own: <workflowId>--<runId><suffix>', () => {
  const first = runFileName({ workflowId: 'query-export-snap-1-abc', runId: RUN_1 }, '.csv');
  const rerun = runFileName({ workflowId: 'query-export-snap-1-abc', runId: RUN_2 }, '.csv');
  expect(first).toBe(`query-export-snap-1-abc--${RUN_1}.csv`);
  expect(rerun).toBe(`query-export-snap-1-abc--${RUN_2}.csv`);
  expect(runFileName({ workflowId: 'offboard-acct-1', runId: RUN_1 }, '-remaining.csv')).toBe(
    `offboard-acct-1--${RUN_1}-remaining.csv`,
  );
});

test('characters a file name cannot hold become _, so that IDs ending alike stay apart, and no name is hidden', () => {
  const a = runFileName({ workflowId: 'team-a/weekly', runId: RUN_1 }, '.csv');
  const b = runFileName({ workflowId: 'team-b/weekly', runId: RUN_1 }, '.csv');
  expect(a).toBe(`team-a_weekly--${RUN_1}.csv`);
  expect(b).toBe(`team-b_weekly--${RUN_1}.csv`);
  expect(runFileName({ workflowId: '../etc/x y', runId: RUN_1 }, '.csv')).toBe(`_._etc_x_y--${RUN_1}.csv`);
});

test('a workflow ID too long for a file name is cut, and two of them sharing a long prefix stay apart', () => {
  const prefix = 'query-export-'.padEnd(400, 'x');
  const a = runFileName({ workflowId: `${prefix}a`, runId: RUN_1 }, '-remaining.csv');
  const b = runFileName({ workflowId: `${prefix}b`, runId: RUN_1 }, '-remaining.csv');
  expect(a).not.toBe(b);
  for (const name of [a, b]) {
    // With the longest suffix beside it: a partial file's `.<runId>.partial`.
    expect(Buffer.byteLength(`${name}.${RUN_1}.partial`)).toBeLessThanOrEqual(255);
    expect(name.endsWith(`--${RUN_1}-remaining.csv`)).toBe(true);
  }
  // Stable: the workflow computes it again on every replay.
  expect(runFileName({ workflowId: `${prefix}a`, runId: RUN_1 }, '-remaining.csv')).toBe(a);
});
