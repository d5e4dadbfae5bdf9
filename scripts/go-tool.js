// Provides a sigstore command (cosign, timestamp-server), built from its Go module at a fixed version into .tools/,
// for the tests that check evidence the way an auditor's own tools do. Both report their version alike.
'use strict';

const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { TOOLS, isExecutable, onPath, fail, goInstall } = require('./wheel');

/** The version a sigstore binary reports (`v2.6.5`), or undefined when it reports none. */
function reportedVersion(file) {
  const result = spawnSync(file, ['version', '--json'], { encoding: 'utf8', timeout: 30_000 });
  if (result.status !== 0) return undefined;
  try {
    return JSON.parse(result.stdout).gitVersion;
  } catch {
    return undefined;
  }
}

/**
 * Returns `{ path, version }` for `tool`: `process.env[tool.override]` when set (a binary whose version starts with
 * `tool.major`), else .tools/<name>-<version>/<binary>, built there with `go install` when missing.
 * Throws an Error whose `code` is `<CODE>_PATH_INVALID`, `<CODE>_NOT_FOUND` (no Go) or `<CODE>_BUILD_FAILED`.
 */
function ensureGoTool(tool) {
  const { name, binary, version, module: goModule, override, major, code } = tool;
  const given = process.env[override];
  if (given) {
    const file = path.resolve(given);
    const reported = isExecutable(file) ? reportedVersion(file) : undefined;
    if (!reported?.startsWith(major)) {
      throw fail(`${override}=${given} is not a ${binary} ${major} executable.`, `${code}_PATH_INVALID`);
    }
    return { path: file, version: reported };
  }
  const dir = path.join(TOOLS, `${name}-${version}`);
  const cached = { path: path.join(dir, binary), version };
  if (isExecutable(cached.path)) return cached;
  if (!onPath('go')) {
    throw fail(
      `No ${binary} ${version} in ${dir}, and no Go to build it with. Install Go (https://go.dev/dl/) and rerun, ` +
        `or set ${override} to a ${binary} ${major} binary.`,
      `${code}_NOT_FOUND`,
    );
  }
  goInstall([`${goModule}/cmd/${binary}@v${version}`], dir, code, {
    prepare: (scratch) => {
      const built = reportedVersion(path.join(scratch, binary));
      if (built !== `v${version}`) {
        throw fail(
          `the ${binary} built by go install reports ${built ?? 'no version'}, not v${version}.`,
          `${code}_BUILD_FAILED`,
        );
      }
    },
  });
  return cached;
}

/** Runs `ensure()` as a script: prints the tool's path, or the reason on stderr with exit 1. */
function runAsScript(label, ensure) {
  try {
    process.stdout.write(`${ensure().path}\n`);
  } catch (err) {
    process.stderr.write(`${label}: ${err.message}\n`);
    process.exit(1);
  }
}

module.exports = { ensureGoTool, runAsScript };
