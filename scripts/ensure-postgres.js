#!/usr/bin/env node
// Provides PostgreSQL's server programs (initdb, postgres) for the cluster tests. Prints their folder on stdout.
// When none is installed and this runs as root on Debian, installs Debian's `postgresql` package.
'use strict';

const { existsSync, readdirSync } = require('node:fs');
const path = require('node:path');
const { isExecutable, onPath, fail, aptInstall } = require('./wheel');

const DEBIAN_DIR = '/usr/lib/postgresql';

/** The newest Debian-installed server's bin folder, or the folder of `postgres` on PATH. */
function findBinDir() {
  const override = process.env.POSTGRES_BIN_DIR;
  if (override) {
    if (!isExecutable(path.join(override, 'initdb')))
      throw fail(`POSTGRES_BIN_DIR=${override} holds no initdb.`, 'POSTGRES_BIN_DIR_INVALID');
    return path.resolve(override);
  }
  if (existsSync(DEBIAN_DIR)) {
    const versions = readdirSync(DEBIAN_DIR)
      .filter((v) => /^\d+$/.test(v) && isExecutable(path.join(DEBIAN_DIR, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(DEBIAN_DIR, versions[0], 'bin');
  }
  const onPathInitdb = onPath('initdb');
  return onPathInitdb ? path.dirname(onPathInitdb) : undefined;
}

/**
 * Returns the folder of initdb and postgres: POSTGRES_BIN_DIR, Debian's /usr/lib/postgresql/<n>/bin, PATH, or (as
 * root, with apt-get) Debian's package installed now. Throws an Error whose `code` is POSTGRES_NOT_FOUND,
 * POSTGRES_BIN_DIR_INVALID or POSTGRES_INSTALL_FAILED.
 */
function ensurePostgres() {
  const found = findBinDir();
  if (found) return found;
  aptInstall(
    'postgresql',
    'POSTGRES',
    'No PostgreSQL server found. Install it (Debian: apt-get install postgresql) or set POSTGRES_BIN_DIR to the ' +
      'folder holding initdb and postgres.',
  );
  const installed = findBinDir();
  if (!installed) throw fail('apt-get installed postgresql, but no initdb was found.', 'POSTGRES_INSTALL_FAILED');
  return installed;
}

module.exports = { ensurePostgres };

if (require.main === module) {
  try {
    process.stdout.write(`${ensurePostgres()}\n`);
  } catch (err) {
    process.stderr.write(`ensure-postgres: ${err.message}\n`);
    process.exit(1);
  }
}
