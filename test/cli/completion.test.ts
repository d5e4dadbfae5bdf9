// `runbooks completion bash|zsh|fish`: the scripts parse, a real bash completes commands, subcommands, options and
// runbook names, and the table they come from matches cli/main.ts's commands and each command's parseCommandLine.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { COMMAND_TABLE, type CommandSpec } from '../../cli/command-table';
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

// The table against the code it describes.

function sourceOf(path: string): ts.SourceFile {
  return ts.createSourceFile(path, readFileSync(join(ROOT, path), 'utf8'), ts.ScriptTarget.ES2022, true);
}

/** The command names of cli/main.ts's COMMANDS object. */
function mainCommands(): string[] {
  const file = sourceOf('cli/main.ts');
  let names: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && node.name.getText() === 'COMMANDS' && node.initializer) {
      const literal = node.initializer;
      if (ts.isObjectLiteralExpression(literal)) names = literal.properties.map((p) => propertyName(p));
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return names;
}

function propertyName(p: ts.ObjectLiteralElementLike): string {
  const name = p.name;
  if (name && (ts.isIdentifier(name) || ts.isStringLiteral(name))) return name.text;
  throw new Error(`unexpected property ${p.getText()}`);
}

/** A module's variables by name, for the constants another file imports from it. */
function variablesOf(path: string): Map<string, ts.Expression> {
  const variables = new Map<string, ts.Expression>();
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
      variables.set(node.name.text, node.initializer);
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceOf(path));
  return variables;
}

/**
 * Every option name given to parseCommandLine in a file, inline, through a constant, or spread from a constant (such
 * as OUTPUT_OPTION) that the file defines or imports from a sibling module.
 */
function parsedOptions(path: string): string[] {
  const file = sourceOf(path);
  const constants = new Map<string, ts.Expression>();
  const calls: ts.Expression[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
      constants.set(node.name.text, node.initializer);
    }
    const from = ts.isImportDeclaration(node) ? node.moduleSpecifier : undefined;
    const bindings = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : undefined;
    if (from && ts.isStringLiteral(from) && from.text.startsWith('.') && bindings && ts.isNamedImports(bindings)) {
      const module = relative(ROOT, resolve(ROOT, dirname(path), `${from.text}.ts`));
      const imported = existsSync(join(ROOT, module)) ? variablesOf(module) : new Map<string, ts.Expression>();
      for (const element of bindings.elements) {
        const value = imported.get((element.propertyName ?? element.name).text);
        if (value) constants.set(element.name.text, value);
      }
    }
    if (ts.isCallExpression(node) && node.expression.getText() === 'parseCommandLine' && node.arguments[1]) {
      calls.push(node.arguments[1]);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  const unwrap = (e: ts.Expression): ts.Expression => {
    if (ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isParenthesizedExpression(e))
      return unwrap(e.expression);
    if (ts.isIdentifier(e) && constants.has(e.text)) return unwrap(constants.get(e.text) as ts.Expression);
    return e;
  };
  const names = (arg: ts.Expression): string[] => {
    const literal = unwrap(arg);
    if (!ts.isObjectLiteralExpression(literal)) throw new Error(`${path}: options not an object: ${arg.getText()}`);
    return literal.properties.flatMap((p) => {
      if (ts.isSpreadAssignment(p)) return names(p.expression);
      // `name` or, with a one-letter alias, `name/-x`.
      const init = ts.isPropertyAssignment(p) ? unwrap(p.initializer) : undefined;
      const short =
        init && ts.isObjectLiteralExpression(init)
          ? init.properties.find((q) => q.name?.getText() === 'short')
          : undefined;
      const letter = short && ts.isPropertyAssignment(short) ? short.initializer.getText().replace(/['"]/g, '') : '';
      return letter ? `${propertyName(p)}/-${letter}` : propertyName(p);
    });
  };
  return calls.flatMap(names);
}

/** Where each command (or subcommand) parses its options. */
const SOURCES: Record<string, string> = {
  start: 'cli/workflow-commands.ts',
  status: 'cli/workflow-commands.ts',
  list: 'cli/workflow-commands.ts',
  cancel: 'cli/workflow-commands.ts',
  nudge: 'cli/workflow-commands.ts',
  inputs: 'cli/inputs-command.ts',
  'drill validate': 'cli/drill-command.ts',
  approvals: 'cli/approvals-command.ts',
  'schedule create': 'cli/schedule-create.ts',
  'schedule list': 'cli/schedule-command.ts',
  'schedule describe': 'cli/schedule-describe.ts',
  'schedule pause': 'cli/schedule-command.ts',
  'schedule unpause': 'cli/schedule-command.ts',
  'schedule trigger': 'cli/schedule-command.ts',
  'schedule backfill': 'cli/schedule-backfill.ts',
  'schedule delete': 'cli/schedule-command.ts',
  'deployment status': 'cli/deployment-command.ts',
  'deployment promote': 'cli/deployment-command.ts',
  'deployment move': 'cli/deployment-command.ts',
  simulator: 'simulator/command.ts',
  'codec-server': 'cli/codec-server.ts',
  serve: 'console/serve-command.ts',
  'evidence verify': 'cli/evidence-command.ts',
  'evidence pack': 'cli/evidence-pack-command.ts',
  'evidence key': 'cli/evidence-key-command.ts',
  demo: 'demo/demo-command.ts',
  doctor: 'cli/doctor-command.ts',
  completion: 'cli/completion-command.ts',
};
// Options the scripts use and users do not type: left out of the table on purpose.
const HIDDEN: Record<string, string[]> = { 'cli/completion-command.ts': ['workflow-ids', 'runbook'] };

function leaves(specs: readonly CommandSpec[], prefix = ''): [string, CommandSpec][] {
  return specs.flatMap((s) => {
    const path = prefix ? `${prefix} ${s.name}` : s.name;
    return s.subcommands ? leaves(s.subcommands, path) : [[path, s] as [string, CommandSpec]];
  });
}

test('the table has every command of cli/main.ts, and no other', () => {
  const commands = mainCommands();
  expect(commands).toContain('start');
  expect(COMMAND_TABLE.map((c) => c.name).sort()).toEqual([...commands].sort());
});

test("the table's options are each module's parseCommandLine options", () => {
  const byFile = new Map<string, Set<string>>();
  for (const [path, spec] of leaves(COMMAND_TABLE)) {
    const file = SOURCES[path];
    // A command added to the table needs its source here, so that its options are checked too.
    expect({ path, hasSource: file !== undefined }).toEqual({ path, hasSource: true });
    if (file === undefined) continue;
    const set = byFile.get(file) ?? new Set<string>();
    for (const option of spec.options ?? []) set.add(option.short ? `${option.name}/-${option.short}` : option.name);
    byFile.set(file, set);
  }
  for (const [file, fromTable] of byFile) {
    const inCode = new Set(parsedOptions(file).filter((o) => !(HIDDEN[file] ?? []).includes(o.split('/')[0] ?? o)));
    expect({ file, options: [...fromTable].sort() }).toEqual({ file, options: [...inCode].sort() });
  }
});
