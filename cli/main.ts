#!/usr/bin/env node
import { createRequire } from 'node:module';
import { redact } from '../api/redact';
import { registerEnvironmentSecrets } from '../runtime/env-secrets';
import { describeCliError, EXIT_CODES, HelpRequested } from './errors';

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
const completionCommands = () => requireHere('./completion-command') as typeof import('./completion-command');

const COMMANDS: Record<string, { load: () => Command; help: string }> = {
  start: {
    load: () => workflowCommands().startCommand,
    help: 'start <runbook> --input <file|json> [--id <id>] [--wait]',
  },
  inputs: { load: () => inputsCommands().inputsCommand, help: 'inputs <runbook> [--example [--discover]]' },
  status: { load: () => workflowCommands().statusCommand, help: 'status <workflowId> [--watch]' },
  list: { load: () => workflowCommands().listCommand, help: 'list [--runbook <name>] [--limit <n>]' },
  cancel: { load: () => workflowCommands().cancelCommand, help: 'cancel <workflowId>' },
  nudge: { load: () => workflowCommands().nudgeCommand, help: 'nudge <workflowId>' },
  drill: {
    load: () => drillCommands().drillCommand,
    help: 'drill validate <workflowId> --resource <id> --result pass|fail [--message <text>]',
  },
  approvals: { load: () => approvalsCommands().approvalsCommand, help: 'approvals [--json] [--limit <n>]' },
  schedule: { load: () => scheduleCommands().scheduleCommand, help: 'schedule create|list|delete|trigger …' },
  deployment: {
    load: () => deploymentCommands().deploymentCommand,
    help: 'deployment status | deployment promote <buildId> [--ramp <percent>]',
  },
  simulator: {
    load: () => simulatorCommands().simulatorCommand,
    help: 'simulator --port <p> [--data-dir <dir>] [--dialect neutral|public] …',
  },
  'codec-server': {
    load: () => codecServer().codecServerCommand,
    help: 'codec-server [--port 8888] [--host 127.0.0.1] [--allow-origin <url>]',
  },
  evidence: {
    load: () => evidenceCommands().evidenceCommand,
    help: 'evidence verify <dir> --public-key <history|pem> | --trust-folder-keys; evidence key show|rotate',
  },
  demo: { load: () => demoCommands().demoCommand, help: 'demo [--timeout <seconds>]' },
  doctor: {
    load: () => doctorCommands().doctorCommand,
    help: 'doctor [--json] [--service-url <url>] [--restore-account <id>]… [--timeout <seconds>]',
  },
  completion: { load: () => completionCommands().completionCommand, help: 'completion bash|zsh|fish' },
};

const USAGE = [
  'usage: runbooks <command> [options]',
  ...Object.values(COMMANDS).map((c) => `  runbooks ${c.help}`),
  'Temporal: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TLS_*, TEMPORAL_API_KEY, RUNBOOKS_TASK_QUEUE',
  '(unset TEMPORAL_ADDRESS: the address of the dev server that `npm start` runs, from .data/temporal-address)',
].join('\n');

async function main(argv: string[]): Promise<void> {
  // Before any command can print: an error may quote what it was given.
  registerEnvironmentSecrets(process.env);
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    console.log(USAGE);
    return;
  }
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    console.error(name ? `unknown command '${name}'\n${USAGE}` : USAGE);
    process.exitCode = EXIT_CODES.usage;
    return;
  }
  const run = command.load();
  await run(rest);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof HelpRequested) {
    console.log(err.usage);
    return;
  }
  // Secrets never reach the terminal.
  const { text, exitCode } = describeCliError(err, process.env.RUNBOOKS_DEBUG === '1');
  console.error(redact(text));
  process.exitCode = exitCode;
});
