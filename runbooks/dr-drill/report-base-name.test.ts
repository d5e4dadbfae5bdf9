import { reportBaseName } from './activities';

const RUN_1 = '3f2a1c9e-8d4b-4e1a-9c7f-0a1b2c3d4e5f';
const RUN_2 = '7b6c5d4e-3f2a-4b1c-8d9e-0f1e2d3c4b5a';

test('each run of a workflow ID has files of its own: <workflowId>--<runId>', () => {
  const first = reportBaseName({ workflowId: 'drill-nightly-2026-11-25', runId: RUN_1 });
  const rerun = reportBaseName({ workflowId: 'drill-nightly-2026-11-25', runId: RUN_2 });
  expect(first).toBe(`drill-nightly-2026-11-25--${RUN_1}`);
  expect(rerun).toBe(`drill-nightly-2026-11-25--${RUN_2}`);
});

test('characters a file name cannot hold become _, and no name leaves the folder', () => {
  expect(reportBaseName({ workflowId: '../etc/drill x', runId: RUN_1 })).toBe(`.._etc_drill_x--${RUN_1}`);
});

test('a workflow ID too long for a file name is cut, and two of them sharing a long prefix stay apart', () => {
  const prefix = 'drill-'.padEnd(400, 'x');
  const a = reportBaseName({ workflowId: `${prefix}a`, runId: RUN_1 });
  const b = reportBaseName({ workflowId: `${prefix}b`, runId: RUN_1 });
  expect(a).not.toBe(b);
  for (const name of [a, b]) {
    expect(Buffer.byteLength(`${name}.seal.json`)).toBeLessThanOrEqual(255);
    expect(name.endsWith(`--${RUN_1}`)).toBe(true);
  }
});
