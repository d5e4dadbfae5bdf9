// `runbooks completion bash|zsh|fish`: the scripts parse, a real bash completes commands, subcommands, options and
// runbook names, and the table they come from has the commands the CLI dispatches.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { COMMAND_TABLE } from '../../operator/command-table';
import { COMMANDS } from '../../cli/run';
import { RUNBOOK_NAMES } from '../../runbooks/registry';
import { runCliFromSource } from '../helpers/cli-from-source';
import { bashCompletes, completionScript, fishCompletes, shellPath } from '../helpers/shell-completion';

const ROOT = resolve(__dirname, '..', '..');
const env = { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1' };

let bash: string;
beforeAll(() => {
  bash = completionScript('bash', env);
});

test('bash -n accepts the bash script', () => {
  const { status, stderr } = spawnSync('bash', ['-n', bash], { encoding: 'utf8' });
  expect(stderr).toBe('');
  expect(status).toBe(0);
});

test('bash completes `runbooks st` to start and status', () => {
  expect(bashCompletes(bash, ['runbooks', 'st'], env)).toEqual(['start', 'status']);
});

test('bash completes runbook names after `runbooks start ` and --runbook', () => {
  expect(bashCompletes(bash, ['runbooks', 'start', ''], env)).toEqual(RUNBOOK_NAMES);
  expect(bashCompletes(bash, ['runbooks', 'start', 'dr'], env)).toEqual(['drDrill']);
  expect(bashCompletes(bash, ['runbooks', 'list', '--runbook', 'cost'], env)).toEqual(['costExport']);
  expect(bashCompletes(bash, ['runbooks', 'schedule', 'create', 'nightly', '--runbook', 'q'], env)).toEqual([
    'queryExport',
  ]);
});

test('bash completes subcommands, options and fixed values, after the options already given', () => {
  expect(bashCompletes(bash, ['runbooks', 'schedule', ''], env)).toEqual([
    'create',
    'list',
    'describe',
    'pause',
    'unpause',
    'trigger',
    'backfill',
    'delete',
  ]);
  expect(bashCompletes(bash, ['runbooks', 'schedule', 'create', 'x', '--overlap', 'b'], env)).toEqual([
    'buffer-one',
    'buffer-all',
  ]);
  expect(bashCompletes(bash, ['runbooks', 'schedule', 'backfill', 'x', '--n'], env)).toEqual(['--no-wait']);
  expect(bashCompletes(bash, ['runbooks', 'start', 'drDrill', '--input', 'x.json', '--'], env)).toEqual([
    '--input',
    '--id',
    '--wait',
    '--help',
  ]);
  expect(bashCompletes(bash, ['runbooks', 'drill', 'validate', 'id', '--result', ''], env)).toEqual(['pass', 'fail']);
  expect(bashCompletes(bash, ['runbooks', 'evidence', 'key', ''], env)).toEqual(['show', 'rotate']);
  expect(bashCompletes(bash, ['runbooks', 'completion', 'z'], env)).toEqual(['zsh']);
  // A file for --input: bash's own file completion, from the current directory.
  const files = spawnSync(
    'bash',
    [
      '--norc',
      '-c',
      'cd "$1" && source "$2" && COMP_WORDS=(runbooks start drDrill --input package.j) COMP_CWORD=4 && _runbooks && echo "${COMPREPLY[*]}"',
      'bash',
      ROOT,
      bash,
    ],
    { encoding: 'utf8' },
  );
  expect(files.stdout.trim()).toBe('package.json');
});

test('a runbook name is not offered where the command takes none, nor twice', () => {
  expect(bashCompletes(bash, ['runbooks', 'start', 'drDrill', ''], env)).toEqual([]);
  expect(bashCompletes(bash, ['runbooks', 'list', ''], env)).toEqual([]);
});

const zsh = shellPath('zsh');
const fish = shellPath('fish');

// Outside a completion widget zsh has no compadd; these record what the script would offer instead.
const ZSH_RECORD = `
compdef() { :; }
source "$1"; shift
compadd() { [ "$1" = -- ] && shift; print -rl -- "$@"; }
_describe() { print -rl -- "\${(@)\${(P)4}%%:*}"; }
_files() { print -r -- "_files $*"; }
words=("$@")
CURRENT=$#
_runbooks
`;

(zsh ? test : test.skip)(
  `zsh -n accepts the zsh script, and its _runbooks offers what bash does${zsh ? '' : ' (skipped: zsh is not installed)'}`,
  () => {
    const script = completionScript('zsh', env);
    const { status, stderr } = spawnSync('zsh', ['-n', script], { encoding: 'utf8' });
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const offered = (...words: string[]) => {
      const run = spawnSync('zsh', ['-f', '-c', ZSH_RECORD, 'zsh', script, ...words], { encoding: 'utf8' });
      expect(run.stderr).toBe('');
      return run.stdout.split('\n').filter(Boolean);
    };
    // _describe is given every candidate; zsh itself matches them against the prefix.
    expect(offered('runbooks', 'st')).toEqual(expect.arrayContaining(['start', 'status']));
    expect(offered('runbooks', 'start', '')).toEqual(RUNBOOK_NAMES);
    expect(offered('runbooks', 'drill', 'validate', 'id', '--result', '')).toEqual(['pass', 'fail']);
    expect(offered('runbooks', 'start', 'drDrill', '--input', '')).toEqual(['_files ']);
  },
);

(fish ? test : test.skip)(
  `fish parses the fish script and completes with it${fish ? '' : ' (skipped: fish is not installed)'}`,
  () => {
    const script = completionScript('fish', env);
    const { status, stderr } = spawnSync('fish', ['-n', script], { encoding: 'utf8' });
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(fishCompletes(script, 'runbooks st', env)).toEqual(['start', 'status']);
    expect(fishCompletes(script, 'runbooks start dr', env)).toEqual(['drDrill']);
    expect(fishCompletes(script, 'runbooks drill validate id --result ', env)).toEqual(['fail', 'pass']);
  },
);

test('completion --help prints its usage; an unknown shell is a usage error', () => {
  const help = runCliFromSource(['completion', '--help'], env);
  expect(help.stdout).toMatch(/^usage: runbooks completion bash\|zsh\|fish/);
  expect(help.status).toBe(0);
  const wrong = runCliFromSource(['completion', 'tcsh'], env);
  expect(wrong.stderr).toContain("not 'tcsh'");
  expect(wrong.status).toBe(2);
});

test('--workflow-ids prints nothing and exits 0 when Temporal is not reachable', () => {
  const { status, stdout, stderr } = runCliFromSource(['completion', '--workflow-ids'], env);
  expect({ status, stdout, stderr }).toEqual({ status: 0, stdout: '', stderr: '' });
});

// The table against the commands the CLI dispatches; each command's options are the table's by construction.

test('the table has every command of cli/run.ts, and no other', () => {
  const commands = Object.keys(COMMANDS);
  expect(commands).toContain('start');
  expect(COMMAND_TABLE.map((c) => c.name).sort()).toEqual([...commands].sort());
});
