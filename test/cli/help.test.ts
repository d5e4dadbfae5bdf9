// Every command and subcommand of the command table answers `--help` and `-h` with its usage, its one line, its
// options and examples, on standard output with exit code 0, before it checks its arguments or connects to anything
// (TEMPORAL_ADDRESS points nowhere). An unknown option is a usage error (exit 2) that names it.
// The CLI runs in this process, through cli/run.ts (what cli/main.ts runs); one spawned `runbooks --help` proves the
// real entry point.
import type { CommandSpec } from '../../operator/command-spec';
import { COMMAND_TABLE } from '../../operator/command-table';
import { runCliFromSource } from '../helpers/cli-from-source';
import { runCliInProcess as runbooks, type CliResult } from '../helpers/cli-in-process';

const NOWHERE = '127.0.0.1:1';

/** Every command and subcommand, with its path (`schedule create`). */
function everyCommand(specs: readonly CommandSpec[] = COMMAND_TABLE, prefix = ''): [string, CommandSpec][] {
  return specs.flatMap((spec) => {
    const path = prefix ? `${prefix} ${spec.name}` : spec.name;
    return [[path, spec] as [string, CommandSpec], ...everyCommand(spec.subcommands ?? [], path)];
  });
}

let temporalAddress: string | undefined;
beforeAll(() => {
  temporalAddress = process.env.TEMPORAL_ADDRESS;
  process.env.TEMPORAL_ADDRESS = NOWHERE;
});
afterAll(() => {
  if (temporalAddress === undefined) delete process.env.TEMPORAL_ADDRESS;
  else process.env.TEMPORAL_ADDRESS = temporalAddress;
});

/** One after the other: the console is shared. */
async function runAll(cases: string[][]): Promise<CliResult[]> {
  const results: CliResult[] = [];
  for (const args of cases) results.push(await runbooks(args));
  return results;
}

const COMMANDS = everyCommand();

test('the table holds the commands and subcommands a user meets', () => {
  const paths = COMMANDS.map(([path]) => path);
  expect(paths).toEqual(expect.arrayContaining(['start', 'status', 'list', 'demo', 'schedule create', 'evidence key']));
  expect(paths.length).toBeGreaterThan(20);
});

test('runbooks --help lists every command with its one line, from the real entry point as in process', async () => {
  const { status, stdout } = runCliFromSource(['--help'], { ...process.env, TEMPORAL_ADDRESS: NOWHERE });
  expect(status).toBe(0);
  for (const spec of COMMAND_TABLE)
    expect(stdout).toMatch(new RegExp(`^ {2}${spec.name} +${escape(spec.description)}$`, 'm'));
  expect(await runbooks(['--help'])).toEqual({ status: 0, stdout, stderr: '' });
});

test.each(['--help', '-h'])(
  'every command and subcommand answers %s: usage, description, options, examples, exit 0',
  async (flag) => {
    const results = await runAll(COMMANDS.map(([path]) => [...path.split(' '), flag]));
    COMMANDS.forEach(([path, spec], i) => {
      const { status, stdout, stderr } = results[i] ?? { status: null, stdout: '', stderr: '' };
      const options = (spec.options ?? []).filter((o) => !o.hidden).map((o) => `--${o.name}`);
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

test('a group without a subcommand shows its commands; an unknown one is one line with its commands; exit 2', async () => {
  const none = await runbooks(['schedule']);
  expect(none.status).toBe(2);
  expect(none.stderr).toMatch(/^usage: runbooks schedule <command>/);
  expect(none.stderr).toMatch(/^ {2}create +Create a schedule/m);
  const { status, stderr } = await runbooks(['schedule', 'reschedule']);
  expect(status).toBe(2);
  expect(stderr).toBe(
    "unknown schedule command 'reschedule': one of create, list, describe, pause, unpause, trigger, backfill, delete\n",
  );
});

test('no command shows every command, an unknown one is one line with the closest; exit 2', async () => {
  const none = await runbooks([]);
  expect(none).toEqual({
    status: 2,
    stdout: '',
    stderr: expect.stringMatching(/^usage: runbooks <command>/) as unknown,
  });
  const unknown = await runbooks(['restart']);
  expect(unknown.status).toBe(2);
  expect(unknown.stderr).toBe("unknown command 'restart': did you mean 'start'?\n");
});

test('after --, a "--help" is an argument, not a request for help', async () => {
  // Refused as a runbook name: an argument that needs no server to be refused.
  const { status, stdout, stderr } = await runbooks(['inputs', '--', '--help']);
  expect(stdout).not.toMatch(/^usage:/);
  expect(status).not.toBe(0);
  expect(stderr).toContain("not '--help'");
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
