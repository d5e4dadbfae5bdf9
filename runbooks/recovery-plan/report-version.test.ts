import { PLAN_REPORT_SCHEMA_VERSION, planReportBaseName } from './report-version';

const RUN = '3f2a1c9e-8d4b-4e1a-9c7f-0a1b2c3d4e5f';

test('the schema version is 1', () => {
  expect(PLAN_REPORT_SCHEMA_VERSION).toBe(1);
});

test('each run of a plan has files of its own: plan-<name>--<runId>', () => {
  expect(planReportBaseName({ name: 'payments', runId: RUN })).toBe(`plan-payments--${RUN}`);
  expect(planReportBaseName({ name: 'payments', runId: 'other-run' })).toBe('plan-payments--other-run');
});

test('characters a file name cannot hold become _, and no name leaves the folder', () => {
  expect(planReportBaseName({ name: '../etc/pay ments', runId: RUN })).toBe(`plan-.._etc_pay_ments--${RUN}`);
  expect(planReportBaseName({ name: 'a/b', runId: '../x' })).toBe('plan-a_b--.._x');
});

test('a name too long for a file name is cut, and two sharing a long prefix stay apart', () => {
  const prefix = 'p'.repeat(400);
  const a = planReportBaseName({ name: `${prefix}a`, runId: RUN });
  const b = planReportBaseName({ name: `${prefix}b`, runId: RUN });
  expect(a).not.toBe(b);
  for (const name of [a, b]) {
    expect(name.startsWith('plan-ppp')).toBe(true);
    expect(name.endsWith(`--${RUN}`)).toBe(true);
    expect(Buffer.byteLength(`${name}.seal.json`)).toBeLessThanOrEqual(255);
  }
});
