#!/usr/bin/env node
// Provides a real Temporal server and its SQL schema tool, at the server version the dev server reports, for the
// cluster tests. Prints their absolute paths on stdout, one per line (server first).
'use strict';

const { spawnSync } = require('node:child_process');
const { renameSync } = require('node:fs');
const path = require('node:path');
const { TOOLS, isExecutable, onPath, fail, goInstall } = require('./wheel');
const { ensureTemporal } = require('./ensure-temporal');

const MODULE = 'go.temporal.io/server';
// `go install` names binaries after their folders: cmd/server and cmd/tools/sql.
const COMMANDS = { server: 'cmd/server', sql: 'cmd/tools/sql' };

/** The server version the Temporal CLI embeds, e.g. `1.32.0` from `temporal version 1.9.1 (Server 1.32.0, UI …)`. */
function devServerVersion() {
  const cli = ensureTemporal();
  const result = spawnSync(cli, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  const version = /Server (\d+\.\d+\.\d+)/.exec(result.stdout ?? '')?.[1];
  if (!version) throw fail(`${cli} --version named no server version: ${result.stdout}`, 'TEMPORAL_SERVER_VERSION');
  return version;
}

/**
 * Returns `{ server, sqlTool, version }`: TEMPORAL_SERVER_PATH and TEMPORAL_SQL_TOOL_PATH when both are set, else
 * .tools/temporal-server-<version>/, built there with `go install` when missing (a few minutes the first time).
 * Throws an Error whose `code` is TEMPORAL_SERVER_PATH_INVALID, TEMPORAL_SERVER_NOT_FOUND (no Go) or
 * TEMPORAL_SERVER_BUILD_FAILED.
 */
function ensureTemporalServer() {
  const server = process.env.TEMPORAL_SERVER_PATH;
  const sqlTool = process.env.TEMPORAL_SQL_TOOL_PATH;
  if (server || sqlTool) {
    for (const [name, file] of [
      ['TEMPORAL_SERVER_PATH', server],
      ['TEMPORAL_SQL_TOOL_PATH', sqlTool],
    ]) {
      if (!file || !isExecutable(path.resolve(file)))
        throw fail(
          `${name}=${file ?? ''} is not an executable file (set both or neither).`,
          'TEMPORAL_SERVER_PATH_INVALID',
        );
    }
    return { server: path.resolve(server), sqlTool: path.resolve(sqlTool), version: 'from the environment' };
  }
  const version = devServerVersion();
  const dir = path.join(TOOLS, `temporal-server-${version}`);
  const cached = { server: path.join(dir, 'temporal-server'), sqlTool: path.join(dir, 'temporal-sql-tool'), version };
  if (isExecutable(cached.server) && isExecutable(cached.sqlTool)) return cached;
  if (!onPath('go')) {
    throw fail(
      `No Temporal server ${version} in ${dir}, and no Go to build it with. Install Go (https://go.dev/dl/) and rerun, ` +
        'or set TEMPORAL_SERVER_PATH and TEMPORAL_SQL_TOOL_PATH.',
      'TEMPORAL_SERVER_NOT_FOUND',
    );
  }
  const packages = Object.values(COMMANDS).map((cmd) => `${MODULE}/${cmd}@v${version}`);
  goInstall(packages, dir, 'TEMPORAL_SERVER', {
    prepare: (scratch) => {
      renameSync(path.join(scratch, 'server'), path.join(scratch, 'temporal-server'));
      renameSync(path.join(scratch, 'sql'), path.join(scratch, 'temporal-sql-tool'));
    },
  });
  return cached;
}

module.exports = { ensureTemporalServer };

if (require.main === module) {
  try {
    const { server, sqlTool } = ensureTemporalServer();
    process.stdout.write(`${server}\n${sqlTool}\n`);
  } catch (err) {
    process.stderr.write(`ensure-temporal-server: ${err.message}\n`);
    process.exit(1);
  }
}
