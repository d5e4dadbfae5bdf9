#!/usr/bin/env node
import { createRequire } from 'node:module';
import { redact } from '../api/redact';
import { registerEnvironmentSecrets } from '../runtime/env-secrets';
import { describeCliError, EXIT_CODES, HelpRequested } from './errors';
import { topLevelHelp } from './help';

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
const inputsCommands = () => requireHere('./inputs-command') as typeof import('./inputs-command');
// The console (fastify and its pages) loads only for `runbooks serve`.
const consoleCommands = () => requireHere('../console/serve-command') as typeof import('../console/serve-command');
const completionCommands = () => requireHere('./completion-command') as typeof import('./completion-command');

// Their help, and the order `runbooks --help` lists them in, are in cli/command-table.ts.
const COMMANDS: Record<string, () => Command> = {
  start: () => workflowCommands().startCommand,
  inputs: () => inputsCommands().inputsCommand,
  status: () => workflowCommands().statusCommand,
  list: () => workflowCommands().listCommand,
  cancel: () => workflowCommands().cancelCommand,
  nudge: () => workflowCommands().nudgeCommand,
  drill: () => drillCommands().drillCommand,
  approvals: () => approvalsCommands().approvalsCommand,
  schedule: () => scheduleCommands().scheduleCommand,
  deployment: () => deploymentCommands().deploymentCommand,
  simulator: () => simulatorCommands().simulatorCommand,
  'codec-server': () => codecServer().codecServerCommand,
  serve: () => consoleCommands().serveCommand,
  evidence: () => evidenceCommands().evidenceCommand,
  demo: () => demoCommands().demoCommand,
  doctor: () => doctorCommands().doctorCommand,
  completion: () => completionCommands().completionCommand,
};

async function main(argv: string[]): Promise<void> {
  // Before any command can print: an error may quote what it was given.
  registerEnvironmentSecrets(process.env);
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    console.log(topLevelHelp());
    return;
  }
  const load = name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    console.error(name ? `unknown command '${name}'\n${topLevelHelp()}` : topLevelHelp());
    process.exitCode = EXIT_CODES.usage;
    return;
  }
  await load()(rest);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof HelpRequested) {
    console.log(err.help);
    return;
  }
  // Secrets never reach the terminal.
  const { text, exitCode } = describeCliError(err, process.env.RUNBOOKS_DEBUG === '1');
  console.error(redact(text));
  process.exitCode = exitCode;
});
