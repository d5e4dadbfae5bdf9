// `runbooks drill validate`'s command line, refused before anything connects (TEMPORAL_ADDRESS points nowhere, so a
// command that tried would exit 3), and what the CLI says about a drill's verdict and a second run on one day.
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { MAX_MESSAGE_LENGTH, parseValidate } from '../../cli/drill-command';
import { drillAlreadyRunning, earlierRunNote, shellWord, unpassedDrill } from '../../operator/drill-runs';
import { RunFailedError, UsageError } from '../../operator/errors';
import type { DrDrillResult } from '../../runbooks/dr-drill/contract';
import type { DrillSummary } from '../../runbooks/dr-drill/report';
import { runCliFromSource } from '../helpers/cli-from-source';

const env = { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1', RUNBOOKS_DEBUG: '' };
const ID = 'drill-nightly-2026-11-21';

describe('runbooks drill validate: bad arguments exit 2 before connecting', () => {
  test.each([
    ['no workflow ID', ['--resource', 'r-1', '--result', 'pass'], /^missing <workflowId>/],
    ['a blank workflow ID', [' ', '--resource', 'r-1', '--result', 'pass'], /^<workflowId> must not be blank/],
    ['no --resource', [ID, '--result', 'pass'], /^--resource is required/],
    ['a blank --resource', [ID, '--resource', ' \t', '--result', 'pass'], /^--resource must not be blank/],
    ['no --result', [ID, '--resource', 'r-1'], /^--result is required: pass or fail/],
    [
      '--result PASSED',
      [ID, '--resource', 'r-1', '--result', 'PASSED'],
      /^--result must be pass or fail, not 'PASSED'/,
    ],
    ['an empty --result', [ID, '--resource', 'r-1', '--result', ''], /^--result must be pass or fail, not ''/],
    [
      'a blank --message',
      [ID, '--resource', 'r-1', '--result', 'fail', '--message', '  '],
      /^--message must not be blank/,
    ],
    [
      'a --message over 1,000 characters',
      [ID, '--resource', 'r-1', '--result', 'fail', '--message', 'x'.repeat(1001)],
      /^--message is 1001 characters long; at most 1,000/,
    ],
    ['a second positional', [ID, 'other', '--resource', 'r-1', '--result', 'pass'], /^unexpected argument 'other'/],
  ])('%s', (_name, args, message) => {
    const { status, stdout, stderr } = runCliFromSource(['drill', 'validate', ...args], env);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
    // The usage follows, and nothing tried to reach Temporal (that would be exit 3).
    expect(stderr).toContain(
      'usage: runbooks drill validate <workflowId> --resource <id> [--snapshot <id>] --result pass|fail',
    );
    expect(status).toBe(2);
  });

  test('an unknown option is one line, with the closest known one', () => {
    const { status, stdout, stderr } = runCliFromSource(
      ['drill', 'validate', ID, '--resource', 'r-1', '--result', 'pass', '--mesage', 'ok'],
      env,
    );
    expect(stdout).toBe('');
    expect(stderr).toBe("unknown option '--mesage' for 'drill validate': did you mean '--message'?\n");
    expect(status).toBe(2);
  });

  test('a drill command other than validate, or none, is a usage error', () => {
    const none = runCliFromSource(['drill'], env);
    expect(none.stderr).toMatch(/usage: runbooks drill <command>/);
    expect(none.stderr).toMatch(/^ {2}validate +Give the verdict/m);
    expect(none.status).toBe(2);
    const other = runCliFromSource(['drill', 'approve', ID], env);
    expect(other.stderr).toBe("unknown drill command 'approve': one of validate\n");
    expect(other.status).toBe(2);
  });

  test('--help answers with the usage, exit 0, whatever else is given', () => {
    for (const args of [
      ['drill', 'validate', '-h'],
      ['drill', 'validate', ID, '--result', 'x', '--help'],
    ]) {
      const { status, stdout, stderr } = runCliFromSource(args, env);
      expect(stderr).toBe('');
      expect(stdout).toMatch(/^usage: runbooks drill validate/);
      expect(status).toBe(0);
    }
    expect(runCliFromSource(['drill', '--help'], env).stdout).toMatch(/^usage: runbooks drill <command>/);
  });

  test('good arguments get as far as connecting: exit 3, not a usage error', () => {
    const { status, stderr } = runCliFromSource(
      ['drill', 'validate', ID, '--resource', 'r-1', '--result', 'pass'],
      env,
    );
    expect(stderr).toMatch(/cannot reach Temporal at 127\.0\.0\.1:1/);
    expect(status).toBe(3);
  });
});

describe('the verdict the command sends', () => {
  test('resource, result and the message as given', () => {
    // Exactly the most a message may be.
    const message = `${'ü'.repeat(MAX_MESSAGE_LENGTH - 3)} ok`;
    expect(parseValidate([ID, '--resource', 'vm-1', '--result', 'fail', '--message', message])).toEqual({
      workflowId: ID,
      verdict: { resourceId: 'vm-1', result: 'fail', message },
    });
    // No --message: no message field at all.
    expect(parseValidate([ID, '--result', 'pass', '--resource', 'vm-1']).verdict).toEqual({
      resourceId: 'vm-1',
      result: 'pass',
    });
  });

  test('--snapshot names the restored point, as a clean-point search asks', () => {
    expect(parseValidate([ID, '--resource', 'vm-1', '--snapshot', 'snap-7', '--result', 'pass']).verdict).toEqual({
      resourceId: 'vm-1',
      snapshotId: 'snap-7',
      result: 'pass',
    });
    expect(() => parseValidate([ID, '--resource', 'vm-1', '--snapshot', ' ', '--result', 'pass'])).toThrow(UsageError);
  });

  test('a resource ID with a control character is refused', () => {
    expect(() => parseValidate([ID, '--resource', 'vm-1\n', '--result', 'pass'])).toThrow(UsageError);
  });
});

function result(summary: Partial<DrillSummary> & Pick<DrillSummary, 'verdict'>): DrDrillResult {
  return {
    report: { json: `/out/drill-reports/${ID}--run.json`, markdown: `/out/drill-reports/${ID}--run.md` },
    summary: { total: 3, passed: 3, failed: 0, ...summary },
  };
}

describe('a drill that does not pass is a failed run', () => {
  test('PASS is success', () => {
    expect(unpassedDrill(ID, result({ verdict: 'PASS' }))).toBeUndefined();
  });

  test.each([
    ['PARTIAL', { passed: 2, partial: 1, failed: 0 }, /verdict is PARTIAL \(2 passed, 1 partial, 0 failed of 3\)/],
    ['FAIL', { passed: 1, partial: 1, failed: 1 }, /verdict is FAIL \(1 passed, 1 partial, 1 failed of 3\)/],
    ['FAIL', { passed: 2, failed: 1 }, /verdict is FAIL \(2 passed, 1 failed of 3\)/],
  ] as const)('%s %j: exit 4, the counts and the report', (verdict, counts, message) => {
    const err = unpassedDrill(ID, result({ verdict, ...counts }));
    expect(err).toBeInstanceOf(RunFailedError);
    expect(err?.exitCode).toBe(4);
    expect(err?.message).toMatch(message);
    expect(err?.message).toContain(`${ID}--run.md`);
  });
});

describe('a second drill on one day', () => {
  test('the refusal spells out the command that starts it, with the input as given', () => {
    const text = drillAlreadyRunning(ID, 'drills/nightly.json');
    expect(text).toContain(`a drill is already running as ${ID}`);
    expect(text).toContain(`runbooks status ${ID}`);
    expect(text).toContain(`runbooks start drDrill --input drills/nightly.json --id ${ID}-2`);
  });

  test('inline JSON is quoted for the shell; an unknown input is left to fill in', () => {
    const inline = `{"name":"o'brien"}`;
    expect(drillAlreadyRunning(ID, inline)).toContain(`--input '{"name":"o'\\''brien"}' --id ${ID}-2`);
    expect(drillAlreadyRunning(ID)).toContain(`--input <the same input> --id ${ID}-2`);
  });

  test('shellWord leaves plain words alone', () => {
    expect(shellWord('drill.json')).toBe('drill.json');
    expect(shellWord('-')).toBe('-');
    expect(shellWord('my drill.json')).toBe("'my drill.json'");
  });

  test('an earlier, closed run of the day is named, and its report said to be kept', () => {
    const earlier = (status: string) =>
      ({ workflowId: ID, runId: 'run-1', status: { name: status } }) as unknown as WorkflowExecutionDescription;
    expect(earlierRunNote(earlier('COMPLETED'), true)).toBe(
      `an earlier run of this drill today exists (run run-1, COMPLETED); its report is kept: ` +
        `each run's report is named for its run (drill-reports/${ID}--<runId>.json)`,
    );
    // Under an ID of one's own, the day is not known; a run that did not complete may have written no report.
    expect(earlierRunNote(earlier('FAILED'), false)).toMatch(
      new RegExp(`^an earlier run of ${ID} exists \\(run run-1, FAILED\\); its report, if it wrote one, is kept`),
    );
  });
});
