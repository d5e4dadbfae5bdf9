// `runbooks plan validate|start|status|confirm`: command lines checked whole before anything connects (TEMPORAL_ADDRESS
// points nowhere, so a command that tried would fail, not pass), the plan as `validate` prints it, the example plan,
// and the status table.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  MAX_NOTE_LENGTH,
  parsePlanConfirm,
  parsePlanStart,
  parsePlanStatus,
  parsePlanValidate,
  planRows,
  stepRows,
  verdictLines,
} from '../../cli/plan-command';
import { EXIT_CODES, UsageError } from '../../operator/errors';
import type { PlanStepView } from '../../runbooks/recovery-plan/contract';
import { runCliInProcess } from '../helpers/cli-in-process';

const ROOT = resolve(__dirname, '..', '..');
const EXAMPLE = 'examples/plans/payments.json';
const EXAMPLE_PLAN = JSON.parse(readFileSync(join(ROOT, EXAMPLE), 'utf8')) as Record<string, unknown>;

/** The example plan with other steps. */
const withSteps = (steps: unknown[]) => JSON.stringify({ ...EXAMPLE_PLAN, steps });
const restore = (id: string, after: string[] = []) => ({
  id,
  kind: 'restore',
  after,
  resource: { id: `res-${id}` },
  destination: { amazonBucket: { bucketName: 'recovery-pa-east-1' } },
});

let temporalAddress: string | undefined;
let cwd: string;
beforeAll(() => {
  temporalAddress = process.env.TEMPORAL_ADDRESS;
  process.env.TEMPORAL_ADDRESS = '127.0.0.1:1';
  // File arguments are relative to where the command runs: the repository, as in the help's examples.
  cwd = process.cwd();
  process.chdir(ROOT);
});
afterAll(() => {
  process.chdir(cwd);
  if (temporalAddress === undefined) delete process.env.TEMPORAL_ADDRESS;
  else process.env.TEMPORAL_ADDRESS = temporalAddress;
});

/** The usage error a parser gives a command line. */
function refusal(parse: (argv: string[]) => unknown, argv: string[]): string {
  try {
    parse(argv);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error(`accepted: ${argv.join(' ')}`);
}

describe('plan validate', () => {
  test('the example plan is valid: a database, its check, a bucket, two VMs by tag, then DNS by hand', () => {
    const plan = parsePlanValidate([EXAMPLE]);
    expect(plan.steps.map((s) => [s.id, s.kind])).toEqual([
      ['database', 'restore'],
      ['database-check', 'validate'],
      ['bucket', 'restore'],
      ['servers', 'restore'],
      ['dns', 'manual'],
    ]);
    expect(plan.steps[3]).toMatchObject({
      resource: { filters: { tagKeyValues: { containsAllOf: ['app=payments'] } }, maxResources: 2 },
    });
  });

  test('prints the steps layer by layer, with kinds and dependencies; exit 0', async () => {
    expect(await runCliInProcess(['plan', 'validate', EXAMPLE])).toEqual({
      status: EXIT_CODES.ok,
      stdout: [
        'plan payments: valid, 5 steps in 5 layers',
        'point in time latest (skew at most 60 min, snapshots of 30 days); RTO target 240 min',
        'LAYER  STEP            KIND      AFTER           WHAT',
        '0      database        restore                   res-0001 (files)',
        '1      database-check  validate  database        of database, by sql on payments',
        '2      bucket          restore   database-check  res-0002 (files)',
        '3      servers         restore   bucket          what its filters match, at most 2 (files)',
        '4      dns             manual    servers         confirmed by oncall-lead',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  test('steps that run side by side share a layer, in plan order; a validate step waits for its of', () => {
    const plan = parsePlanValidate([
      withSteps([
        restore('vm-b', ['db']),
        restore('db'),
        restore('vm-a', ['db']),
        { id: 'vm-check', kind: 'validate', of: 'vm-a', external: { windowHours: 2 } },
        { id: 'warm', kind: 'wait', after: ['vm-b', 'vm-check'], seconds: 300 },
      ]),
    ]);
    expect(planRows(plan).map((row) => row.slice(0, 4))).toEqual([
      ['LAYER', 'STEP', 'KIND', 'AFTER'],
      ['0', 'db', 'restore', ''],
      ['1', 'vm-b', 'restore', 'db'],
      ['1', 'vm-a', 'restore', 'db'],
      ['2', 'vm-check', 'validate', 'vm-a'],
      ['3', 'warm', 'wait', 'vm-b, vm-check'],
    ]);
  });

  test('a bad plan is a usage error listing every problem by its field, a cycle naming its steps; exit 2', async () => {
    const bad = withSteps([
      restore('db', ['dns']),
      { id: 'check', kind: 'validate', of: 'db', after: ['db'], external: { windowHours: 1 } },
      { id: 'dns', kind: 'manual', after: ['check', 'chek'], instructions: 'point DNS at it' },
      restore('db'),
    ]);
    const { status, stdout, stderr } = await runCliInProcess(['plan', 'validate', bad]);
    expect({ status, stdout }).toEqual({ status: EXIT_CODES.usage, stdout: '' });
    expect(stderr.split('\n')).toEqual([
      'invalid plan; nothing was started:',
      expect.stringMatching(/^ {2}plan\.steps\.2\.after\.1: step 'dns' names 'chek', .*\(did you mean 'check'\?\)/),
      '  plan.steps.3.id: step id \'db\' is used by steps 0 and 3; got "db"',
      expect.stringMatching(/^ {2}plan\.steps\.0\.after\.0: a cycle of dependencies: db → check → dns → db /),
      '',
    ]);
  });

  test("a bad field is listed with the graph's problems; a step of no kind leaves the graph unchecked", () => {
    const badTarget = JSON.stringify({ ...EXAMPLE_PLAN, rtoTargetMinutes: 0, steps: [restore('a', ['a'])] });
    expect(refusal(parsePlanValidate, [badTarget]).split('\n')).toEqual([
      'invalid plan; nothing was started:',
      expect.stringMatching(/^ {2}plan\.rtoTargetMinutes: /),
      '  plan.steps.0.after.0: step \'a\' depends on itself; got "a"',
    ]);
    const noKind = withSteps([restore('a', ['a']), { ...restore('b'), kind: 'copy' }]);
    expect(refusal(parsePlanValidate, [noKind]).split('\n')).toEqual([
      'invalid plan; nothing was started:',
      expect.stringMatching(/^ {2}plan\.steps\.1: /),
    ]);
  });

  test('a run input instead of its plan, a missing or unreadable plan, are usage errors', () => {
    const runInput = JSON.stringify({ mode: 'drill', plan: EXAMPLE_PLAN });
    expect(refusal(parsePlanValidate, [runInput])).toBe("this is a run input ({ plan, mode }): give its 'plan' alone");
    expect(refusal(parsePlanValidate, [])).toMatch(/^missing <plan>\nusage: runbooks plan validate/);
    expect(refusal(parsePlanValidate, [EXAMPLE, EXAMPLE])).toMatch(/^unexpected argument /);
    expect(refusal(parsePlanValidate, ['none.json'])).toMatch(/^<plan> none\.json: not inline JSON/);
    expect(refusal(parsePlanValidate, ['{"name": '])).toMatch(/^<plan> is not valid JSON/);
  });
});

describe('plan start', () => {
  test('a drill by default, not waiting, under the derived ID', () => {
    expect(parsePlanStart([EXAMPLE])).toEqual({
      input: { plan: EXAMPLE_PLAN, mode: 'drill' },
      plan: expect.objectContaining({ name: 'payments' }) as unknown,
      wait: false,
    });
  });

  test('every option: a recovery, confirmed, under an ID of its own, waited for', () => {
    const argv = [EXAMPLE, '--mode', 'recover', '--confirm', 'recover payments', '--id', 'payments-dr', '--wait'];
    expect(parsePlanStart(argv)).toMatchObject({
      input: { plan: EXAMPLE_PLAN, mode: 'recover', confirm: 'recover payments' },
      workflowId: 'payments-dr',
      wait: true,
    });
  });

  test('a recovery needs its confirmation word for word; a drill takes none', () => {
    expect(refusal(parsePlanStart, [EXAMPLE, '--mode', 'recover'])).toMatch(
      /^--mode recover restores where the plan says, .*--confirm 'recover payments'\nusage: /,
    );
    expect(refusal(parsePlanStart, [EXAMPLE, '--mode', 'recover', '--confirm', 'recover'])).toMatch(
      /confirm it with --confirm 'recover payments'/,
    );
    expect(refusal(parsePlanStart, [EXAMPLE, '--confirm', 'recover payments'])).toMatch(
      /^--confirm goes with --mode recover/,
    );
    expect(refusal(parsePlanStart, [EXAMPLE, '--mode', 'restore'])).toMatch(
      /^--mode must be drill or recover, not 'restore'/,
    );
  });

  test('a bad ID or plan is refused before anything connects: exit 2', async () => {
    expect(refusal(parsePlanStart, [EXAMPLE, '--id', '.hidden'])).toMatch(/^--id must not start with '\.'/);
    const cycle = withSteps([restore('a', ['b']), restore('b', ['a'])]);
    const { status, stderr } = await runCliInProcess(['plan', 'start', cycle, '--wait']);
    expect(status).toBe(EXIT_CODES.usage);
    expect(stderr).toMatch(/plan\.steps\.0\.after\.0: a cycle of dependencies: a → b → a/);
  });

  test('the verdict of a closed plan: its RTO, failed steps and report', () => {
    const report = { json: 'out/plan.json', markdown: 'out/plan.md', html: 'out/plan.html' };
    expect(verdictLines({ verdict: 'FAIL', failedSteps: ['servers'], rtoSeconds: 3725, report }, 4_000_000)).toEqual([
      'FAIL: RTO 62m 05s (followed for 66m 40s)',
      'failed steps: servers',
      'report: out/plan.md (also out/plan.json, out/plan.html)',
    ]);
  });
});

describe('plan status', () => {
  test('a workflow ID, text or json', () => {
    expect(parsePlanStatus(['plan-payments-drill-2026-11-29'])).toEqual({
      workflowId: 'plan-payments-drill-2026-11-29',
      format: 'text',
    });
    expect(parsePlanStatus(['wf', '-o', 'json']).format).toBe('json');
    expect(refusal(parsePlanStatus, [])).toMatch(/^missing <workflowId>/);
    expect(refusal(parsePlanStatus, ['wf', '-o', 'yaml'])).toMatch(/^--output must be text or json/);
  });

  test('one row a step, in the order they run, with kind, status, dependencies, times and reason', () => {
    const view = (id: string, kind: PlanStepView['kind'], status: PlanStepView['status'], more = {}) =>
      ({ id, kind, after: [], status, phases: [], ...more }) as PlanStepView;
    const rows = stepRows([
      view('dns', 'manual', 'skipped', { after: ['servers'], reason: "skipped: 'servers' failed" }),
      view('servers', 'restore', 'failed', {
        after: ['db'],
        startedAt: '2026-11-29T02:20:00.000Z',
        endedAt: '2026-11-29T02:30:00.000Z',
        reason: 'restore job failed:\ndisk full',
      }),
      view('db', 'restore', 'passed', { startedAt: '2026-11-29T02:00:00.000Z', endedAt: '2026-11-29T02:20:00.000Z' }),
      view('check', 'validate', 'running', { of: 'db', startedAt: '2026-11-29T02:20:00.000Z' }),
    ]);
    expect(rows).toEqual([
      ['LAYER', 'STEP', 'KIND', 'STATUS', 'AFTER', 'STARTED', 'ENDED', 'REASON'],
      ['0', 'db', 'restore', 'passed', '', '2026-11-29T02:00:00.000Z', '2026-11-29T02:20:00.000Z', ''],
      [
        '1',
        'servers',
        'restore',
        'failed',
        'db',
        '2026-11-29T02:20:00.000Z',
        '2026-11-29T02:30:00.000Z',
        'restore job failed: disk full',
      ],
      ['1', 'check', 'validate', 'running', 'db', '2026-11-29T02:20:00.000Z', '', ''],
      ['2', 'dns', 'manual', 'skipped', 'servers', '', '', "skipped: 'servers' failed"],
    ]);
  });
});

describe('plan confirm', () => {
  test('the step, who confirms it, and a note', () => {
    expect(parsePlanConfirm(['wf', '--step', 'dns', '--by', 'oncall-lead', '--note', 'DNS moved'])).toEqual({
      workflowId: 'wf',
      confirmation: { stepId: 'dns', by: 'oncall-lead', note: 'DNS moved' },
    });
    expect(parsePlanConfirm(['wf', '--step', 'dns', '--by', 'oncall-lead']).confirmation).toEqual({
      stepId: 'dns',
      by: 'oncall-lead',
    });
  });

  test('the step and who confirms are required; a step id, a note within bounds', () => {
    expect(refusal(parsePlanConfirm, ['wf', '--by', 'x'])).toMatch(/^--step is required/);
    expect(refusal(parsePlanConfirm, ['wf', '--step', 'dns'])).toMatch(/^--by is required/);
    expect(refusal(parsePlanConfirm, ['wf', '--step', 'DNS', '--by', 'x'])).toMatch(/^--step must be a step id/);
    expect(refusal(parsePlanConfirm, ['wf', '--step', 'dns', '--by', ' '])).toMatch(/^--by must not be blank/);
    expect(refusal(parsePlanConfirm, ['wf', '--step', 'dns', '--by', 'x', '--note', ' '])).toMatch(
      /^--note must not be blank/,
    );
    const long = 'x'.repeat(MAX_NOTE_LENGTH + 1);
    expect(refusal(parsePlanConfirm, ['wf', '--step', 'dns', '--by', 'x', '--note', long])).toMatch(
      /^--note is 1001 characters long; at most 1,000/,
    );
  });

  test('in the CLI: a usage error (2) before anything connects; an unknown subcommand names the known ones', async () => {
    const missing = await runCliInProcess(['plan', 'confirm', 'wf', '--step', 'dns']);
    expect(missing.status).toBe(EXIT_CODES.usage);
    const unknown = await runCliInProcess(['plan', 'validat']);
    expect(unknown).toEqual({
      status: EXIT_CODES.usage,
      stdout: '',
      stderr: "unknown plan command 'validat': did you mean 'validate'?\n",
    });
  });
});
