#!/usr/bin/env node
import { EXIT_CODES } from '../operator/errors';
import { run } from './run';

// 0 leaves alone an exit code the command set itself.
void run(process.argv.slice(2)).then((code) => {
  if (code !== EXIT_CODES.ok) process.exitCode = code;
});
