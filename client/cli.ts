#!/usr/bin/env node
import { redact } from '../api';
import { demoCommand } from './demo/demo-command';
import { describeCliError } from './errors';
import { scheduleCommand } from './schedule-command';
import { simulatorCommand } from './simulator-command';
import { cancelCommand, listCommand, nudgeCommand, startCommand, statusCommand } from './workflow-commands';

const COMMANDS: Record<string, { run: (argv: string[]) => Promise<void>; help: string }> = {
  start: { run: startCommand, help: 'start <runbook> --input <file|json> [--id <id>] [--wait]' },
  status: { run: statusCommand, help: 'status <workflowId> [--watch]' },
  list: { run: listCommand, help: 'list [--runbook <name>] [--limit <n>]' },
  cancel: { run: cancelCommand, help: 'cancel <workflowId>' },
  nudge: { run: nudgeCommand, help: 'nudge <workflowId>' },
  schedule: { run: scheduleCommand, help: 'schedule create|list|delete|trigger …' },
  simulator: { run: simulatorCommand, help: 'simulator --port <p> [--data-dir <dir>] …' },
  demo: { run: demoCommand, help: 'demo [--timeout <seconds>]' },
};

const USAGE = [
  'usage: runbooks <command> [options]',
  ...Object.values(COMMANDS).map((c) => `  runbooks ${c.help}`),
  'Temporal: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TLS_*, TEMPORAL_API_KEY, RUNBOOKS_TASK_QUEUE',
  '(unset TEMPORAL_ADDRESS: the address of the dev server that `npm start` runs, from .data/temporal-address)',
].join('\n');

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    console.log(USAGE);
    return;
  }
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    console.error(name ? `unknown command '${name}'\n${USAGE}` : USAGE);
    process.exitCode = 2;
    return;
  }
  await command.run(rest);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  // Secrets never reach the terminal.
  const { text, exitCode } = describeCliError(err, process.env.RUNBOOKS_DEBUG === '1');
  console.error(redact(text));
  process.exitCode = exitCode;
});
