import { createRequire } from 'node:module';
import { redact } from '../api/redact';
import { registerEnvironmentSecrets } from '../runtime/env-secrets';
import { unknownName } from '../operator/args';
import type { CommandName } from '../operator/command-table';
import { describeCliError, EXIT_CODES, HelpRequested, type ExitCode } from '../operator/errors';
import { topLevelHelp } from '../operator/help';

type Command = (argv: string[]) => Promise<void>;

// Each command's module is loaded only when it runs: `--help` must not load the worker, the simulator or fastify.
// `require` answers untyped; `unknown` keeps the cast below the only place a module's type is claimed.
const requireHere: (id: string) => unknown = createRequire(__filename);
const workflowCommands = () => requireHere('./workflow-commands') as typeof import('./workflow-commands');
const scheduleCommands = () => requireHere('./schedule-command') as typeof import('./schedule-command');
const simulatorCommands = () => requireHere('../simulator/command') as typeof import('../simulator/command');
const codecServer = () => requireHere('./codec-server') as typeof import('./codec-server');
const deploymentCommands = () => requireHere('./deployment-command') as typeof import('./deployment-command');
const evidenceCommands = () => requireHere('./evidence-command') as typeof import('./evidence-command');
const demoCommands = () => requireHere('../demo/demo-command') as typeof import('../demo/demo-command');
const approvalsCommands = () => requireHere('./approvals-command') as typeof import('./approvals-command');
const doctorCommands = () => requireHere('./doctor-command') as typeof import('./doctor-command');
const drillCommands = () => requireHere('./drill-command') as typeof import('./drill-command');
const cleanPointCommands = () => requireHere('./clean-point-command') as typeof import('./clean-point-command');
const planCommands = () => requireHere('./plan-command') as typeof import('./plan-command');
const inputsCommands = () => requireHere('./inputs-command') as typeof import('./inputs-command');
const coverageCommands = () => requireHere('./coverage-command') as typeof import('./coverage-command');
// The console (fastify and its pages) loads only for `runbooks serve`.
const consoleCommands = () => requireHere('../console/serve-command') as typeof import('../console/serve-command');
const completionCommands = () => requireHere('./completion-command') as typeof import('./completion-command');

/** Every command of the table, and no other. Their help, and the order `runbooks --help` lists them in, are there. */
export const COMMANDS = {
  start: () => workflowCommands().startCommand,
  inputs: () => inputsCommands().inputsCommand,
  status: () => workflowCommands().statusCommand,
  list: () => workflowCommands().listCommand,
  cancel: () => workflowCommands().cancelCommand,
  nudge: () => workflowCommands().nudgeCommand,
  drill: () => drillCommands().drillCommand,
  'clean-point': () => cleanPointCommands().cleanPointCommand,
  plan: () => planCommands().planCommand,
  coverage: () => coverageCommands().coverageCommand,
  approvals: () => approvalsCommands().approvalsCommand,
  schedule: () => scheduleCommands().scheduleCommand,
  deployment: () => deploymentCommands().deploymentCommand,
  simulator: () => simulatorCommands().simulatorCommand,
  'codec-server': () => codecServer().codecServerCommand,
  serve: () => consoleCommands().serveCommand,
  evidence: () => evidenceCommands().evidenceCommand,
  demo: () => (argv) => demoCommands().demoCommand(argv, () => consoleCommands().startConsole),
  doctor: () => doctorCommands().doctorCommand,
  completion: () => completionCommands().completionCommand,
} satisfies Record<CommandName, () => Command>;

const isCommand = (name: string): name is CommandName => Object.hasOwn(COMMANDS, name);

/** Where the CLI's own lines go: help, usage errors and failures. A command prints its results itself. */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

const CONSOLE: CliOutput = { out: (text) => console.log(text), err: (text) => console.error(text) };

/**
 * `runbooks <argv>`, to its exit code: what cli/main.ts runs, and tests in process. A command that returns answers 0
 * (doctor sets `process.exitCode` itself when a check fails).
 */
export async function run(argv: string[], io: CliOutput = CONSOLE): Promise<ExitCode> {
  try {
    return await dispatch(argv, io);
  } catch (err) {
    if (err instanceof HelpRequested) {
      io.out(err.help);
      return EXIT_CODES.ok;
    }
    // Secrets never reach the terminal.
    const { text, exitCode } = describeCliError(err, process.env.RUNBOOKS_DEBUG === '1');
    io.err(redact(text));
    return exitCode;
  }
}

async function dispatch(argv: string[], io: CliOutput): Promise<ExitCode> {
  // Before any command can print: an error may quote what it was given.
  registerEnvironmentSecrets(process.env);
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    io.out(topLevelHelp());
    return EXIT_CODES.ok;
  }
  if (name === undefined) {
    io.err(topLevelHelp());
    return EXIT_CODES.usage;
  }
  if (!isCommand(name)) throw unknownName('command', name, Object.keys(COMMANDS));
  await COMMANDS[name]()(rest);
  return EXIT_CODES.ok;
}
