#!/usr/bin/env node
// Provides a headless Chromium for the drill report's browser test. Prints its path on stdout.
// When none is installed and this runs as root on Debian, installs Debian's `chromium` package.
'use strict';

const path = require('node:path');
const { isExecutable, onPath, fail, aptInstall } = require('./wheel');

const DEBIAN_PATH = '/usr/bin/chromium';

/** CHROMIUM_PATH (which must be executable), Debian's /usr/bin/chromium, or `chromium` on PATH. */
function findChromium() {
  const override = process.env.CHROMIUM_PATH;
  if (override) {
    if (!isExecutable(override)) throw fail(`CHROMIUM_PATH=${override} is not an executable.`, 'CHROMIUM_PATH_INVALID');
    return path.resolve(override);
  }
  if (isExecutable(DEBIAN_PATH)) return DEBIAN_PATH;
  return onPath('chromium');
}

/**
 * Returns the path of Chromium: CHROMIUM_PATH, /usr/bin/chromium, PATH, or (as root, with apt-get) Debian's package
 * installed now. Throws an Error whose `code` is CHROMIUM_NOT_FOUND, CHROMIUM_PATH_INVALID or CHROMIUM_INSTALL_FAILED.
 */
function ensureChromium() {
  const found = findChromium();
  if (found) return found;
  aptInstall(
    'chromium',
    'CHROMIUM',
    'No Chromium found. Install it (Debian: apt-get install chromium) or set CHROMIUM_PATH to its executable.',
  );
  const installed = findChromium();
  if (!installed)
    throw fail('apt-get installed chromium, but no chromium executable was found.', 'CHROMIUM_INSTALL_FAILED');
  return installed;
}

module.exports = { ensureChromium };

if (require.main === module) {
  try {
    process.stdout.write(`${ensureChromium()}\n`);
  } catch (err) {
    process.stderr.write(`ensure-chromium: ${err.message}\n`);
    process.exit(1);
  }
}
