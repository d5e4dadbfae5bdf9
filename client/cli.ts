#!/usr/bin/env node
import { simulatorCommand } from './simulator-command';

const COMMANDS: Record<string, (argv: string[]) => Promise<void>> = {
  simulator: simulatorCommand,
};

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    console.error(`usage: runbooks <command> [options]\ncommands: ${Object.keys(COMMANDS).join(', ')}`);
    process.exitCode = 2;
    return;
  }
  await command(rest);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
