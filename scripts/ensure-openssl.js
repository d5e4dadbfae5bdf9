#!/usr/bin/env node
// Provides the openssl command, with which the timestamp tests check tokens as an auditor does (`openssl ts -verify`).
// When none is on PATH and this runs as root on Debian, installs Debian's `openssl` package. Prints its path.
'use strict';

const { onPath, fail, aptInstall } = require('./wheel');

/** The openssl on PATH, installed with apt-get when missing. Throws with code OPENSSL_NOT_FOUND or _INSTALL_FAILED. */
function ensureOpenssl() {
  const found = onPath('openssl');
  if (found) return found;
  aptInstall('openssl', 'OPENSSL', 'No openssl found. Install it (Debian: apt-get install openssl).');
  const installed = onPath('openssl');
  if (!installed) throw fail('apt-get installed openssl, but no openssl is on PATH.', 'OPENSSL_INSTALL_FAILED');
  return installed;
}

module.exports = { ensureOpenssl };

if (require.main === module) {
  try {
    process.stdout.write(`${ensureOpenssl()}\n`);
  } catch (err) {
    process.stderr.write(`ensure-openssl: ${err.message}\n`);
    process.exit(1);
  }
}
