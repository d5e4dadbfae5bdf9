// Every command and subcommand of the command table answers `--help` and `-h` with its usage, its one line, its
// options and examples, on standard output with exit code 0, before it checks its arguments or connects to anything
// (TEMPORAL_ADDRESS points nowhere). An unknown option is a usage error (exit 2) that names it.
import { COMMAND_TABLE, type CommandSpec } from '../../cli/command-table';
import { runCliFromSource, runCliFromSourceAsync } from '../helpers/cli-from-source';

const env = { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1' };

/** Every command and subcommand, with its path (`schedule create`). */
function everyCommand(specs: readonly CommandSpec[] = COMMAND_TABLE, prefix = ''): [string, CommandSpec][] {
  return specs.flatMap((spec) => {
    const path = prefix ? `${prefix} ${spec.name}` : spec.name;
    return [[path, spec] as [string, CommandSpec], ...everyCommand(spec.subcommands ?? [], path)];
  });
}

/** CLI runs four at a time: each is a Node process compiling the CLI. */
async function runAll(cases: string[][]): Promise<{ status: number | null; stdout: string; stderr: string }[]> {
  const results: { status: number | null; stdout: string; stderr: string }[] = [];
  for (let i = 0; i < cases.length; i += 4) {
    results.push(...(await Promise.all(cases.slice(i, i + 4).map((args) => runCliFromSourceAsync(args, env)))));
  }
  return results;
}

const COMMANDS = everyCommand();

test('the table holds the commands and subcommands a user meets', () => {
  const paths = COMMANDS.map(([path]) => path);
  expect(paths).toEqual(expect.arrayContaining(['start', 'status', 'list', 'demo', 'schedule create', 'evidence key']));
  expect(paths.length).toBeGreaterThan(20);
});

test('runbooks --help lists every command with its one line', () => {
  const { status, stdout } = runCliFromSource(['--help'], env);
  expect(status).toBe(0);
  for (const spec of COMMAND_TABLE)
    expect(stdout).toMatch(new RegExp(`^ {2}${spec.name} +${escape(spec.description)}$`, 'm'));
});

test.each(['--help', '-h'])(
  'every command and subcommand answers %s: usage, description, options, examples, exit 0',
  async (flag) => {
    const results = await runAll(COMMANDS.map(([path]) => [...path.split(' '), flag]));
    COMMANDS.forEach(([path, spec], i) => {
      const { status, stdout, stderr } = results[i] ?? { status: null, stdout: '', stderr: '' };
      const options = (spec.options ?? []).map((o) => `--${o.name}`);
      expect({
        path,
        status,
        stderr,
        usage: stdout.startsWith(`usage: runbooks ${path}`),
        description: stdout.includes(`\n${spec.description}\n`),
        optionsListed: options.filter((o) => new RegExp(`^ {2}(-[a-z], | {4})${o}\\b`, 'm').test(stdout)),
        helpListed: spec.subcommands ? true : /^ {2}-h, --help +print this help$/m.test(stdout),
        subcommands: (spec.subcommands ?? []).filter((s) => new RegExp(`^ {2}${s.name} +`, 'm').test(stdout)).length,
        examples: /\nexamples:\n {2}(\S.*\W)?runbooks /.test(stdout),
      }).toEqual({
        path,
        status: 0,
        stderr: '',
        usage: true,
        description: true,
        optionsListed: options,
        helpListed: true,
        subcommands: spec.subcommands?.length ?? 0,
        examples: true,
      });
    });
  },
);

test('every command refuses an unknown option with exit code 2, naming it', async () => {
  const leaves = COMMANDS.filter(([, spec]) => !spec.subcommands);
  const results = await runAll(leaves.map(([path]) => [...path.split(' '), '--no-such-option']));
  leaves.forEach(([path], i) => {
    const { status, stderr } = results[i] ?? { status: null, stderr: '' };
    expect({ path, status, named: stderr.includes("'--no-such-option'") }).toEqual({ path, status: 2, named: true });
  });
});

test('a group without a known subcommand shows its commands and exits 2', () => {
  const { status, stderr } = runCliFromSource(['schedule', 'reschedule'], env);
  expect(status).toBe(2);
  expect(stderr).toMatch(/^unknown schedule command 'reschedule'\nusage: runbooks schedule <command>/);
  expect(stderr).toMatch(/^ {2}create +Create a schedule/m);
});

test('after --, a "--help" is an argument, not a request for help', () => {
  const { status, stdout } = runCliFromSource(['cancel', '--', '--help'], env);
  expect(stdout).not.toMatch(/^usage:/);
  expect(status).not.toBe(0);
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
