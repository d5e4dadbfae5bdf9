// A command line is parsed by the options its command declares in the command table: names, aliases, flags and
// values, defaults and repeatable options, with usage errors that name what is wrong.
import { parseCommandLine } from '../../operator/args';
import { HelpRequested, UsageError } from '../../operator/errors';
import { helpFor } from '../../operator/help';

const LIST = helpFor('list');
const DOCTOR = helpFor('doctor');

test("an option not given reads as the table's default, else undefined; a flag not given reads false", () => {
  expect(parseCommandLine([], LIST).values).toEqual({ limit: '20', output: 'text' });
  expect(parseCommandLine([], DOCTOR).values).toEqual({ json: false, timeout: '10' });
});

test('values, flags, a one-letter alias and positionals are read as given', () => {
  const { values, positionals } = parseCommandLine(['--runbook', 'drDrill', '--limit=5', '-o', 'json', 'x'], LIST);
  expect(values).toEqual({ runbook: 'drDrill', limit: '5', output: 'json' });
  expect(positionals).toEqual(['x']);
  expect(parseCommandLine(['--json'], DOCTOR).values.json).toBe(true);
});

test('a repeatable option gives every value, in order', () => {
  const given = ['--restore-account', 'ra-1', '--restore-account', 'ra-2'];
  expect(parseCommandLine(given, DOCTOR).values['restore-account']).toEqual(['ra-1', 'ra-2']);
});

test('an unknown option is one line naming it and the closest known one', () => {
  expect(() => parseCommandLine(['--no-such-option'], DOCTOR)).toThrow(
    new UsageError("unknown option '--no-such-option' for 'doctor': see 'runbooks doctor --help'"),
  );
  expect(() => parseCommandLine(['--restore-acount', 'ra-1'], DOCTOR)).toThrow(
    new UsageError("unknown option '--restore-acount' for 'doctor': did you mean '--restore-account'?"),
  );
  expect(() => parseCommandLine(['-x'], DOCTOR)).toThrow("unknown option '-x' for 'doctor'");
});

test('a value for a flag or a missing value is a usage error with the usage', () => {
  for (const argv of [['--json=yes'], ['--timeout']]) {
    const parse = () => parseCommandLine(argv, DOCTOR);
    expect(parse).toThrow(UsageError);
    expect(parse).toThrow(argv[0]?.split('=')[0] ?? '');
    expect(parse).toThrow(DOCTOR.usage);
  }
});

test('--help and -h are answered before anything else is checked, but not after --', () => {
  expect(() => parseCommandLine(['--no-such-option', '--help'], LIST)).toThrow(HelpRequested);
  expect(() => parseCommandLine(['-h', '--limit'], LIST)).toThrow(LIST.text);
  expect(parseCommandLine(['--', '--help'], LIST).positionals).toEqual(['--help']);
});

test("the completion scripts' own options parse, and help does not show them", () => {
  const completion = helpFor('completion');
  const { values } = parseCommandLine(['--workflow-ids', '--runbook', 'drDrill'], completion);
  expect(values).toEqual({ 'workflow-ids': true, runbook: 'drDrill' });
  expect(completion.text).not.toContain('--workflow-ids');
  expect(completion.text).not.toContain('--runbook');
});
