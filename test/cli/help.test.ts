// Every command answers `--help` and `-h` with its usage on standard output and exit code 0, before it checks its
// arguments or connects to anything (TEMPORAL_ADDRESS points nowhere).
import { runCliFromSource } from '../helpers/cli-from-source';

const env = { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1' };

/** The commands `runbooks --help` lists: `  runbooks <name> …`. */
function listedCommands(): string[] {
  const { status, stdout } = runCliFromSource(['--help'], env);
  expect(status).toBe(0);
  return [...stdout.matchAll(/^ {2}runbooks ([a-z-]+)/gm)].map((m) => m[1] as string);
}

test('runbooks --help lists the commands', () => {
  expect(listedCommands()).toEqual(
    expect.arrayContaining(['start', 'status', 'list', 'cancel', 'nudge', 'drill', 'demo']),
  );
});

test.each([
  ['start', '--help'],
  ['start', 'drDrill', '--input', '{}', '-h'],
  ['status', '--help'],
  ['list', '-h'],
  ['cancel', 'some-id', '--help'],
  ['nudge', '--help'],
  ['drill', 'validate', 'some-id', '--result', 'maybe', '--help'],
  ['approvals', '--help'],
  ['demo', '--help'],
  ['schedule', 'create', '--help'],
  ['deployment', '-h'],
  ['evidence', 'key', '--help'],
])('runbooks %s … asks for help: usage on stdout, exit 0', (...args: string[]) => {
  const { status, stdout, stderr } = runCliFromSource(args, env);
  expect(stderr).toBe('');
  expect(stdout).toMatch(new RegExp(`^usage: runbooks ${args[0]}`));
  expect(status).toBe(0);
});

test('every listed command answers --help with its usage', () => {
  for (const name of listedCommands()) {
    const { status, stdout } = runCliFromSource([name, '--help'], env);
    expect({ name, status, usage: stdout.startsWith(`usage: runbooks ${name}`) }).toEqual({
      name,
      status: 0,
      usage: true,
    });
  }
});

test('after --, a "--help" is an argument, not a request for help', () => {
  const { status, stdout } = runCliFromSource(['cancel', '--', '--help'], env);
  expect(stdout).not.toMatch(/^usage:/);
  expect(status).not.toBe(0);
});
