#!/usr/bin/env node
// Provides cosign, built from its Go module at a fixed version, for the tests that check drill attestations the way an
// auditor does (`cosign verify-blob-attestation`). Prints its absolute path on stdout.
'use strict';

const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { TOOLS, isExecutable, onPath, fail, goInstall } = require('./wheel');

const VERSION = '2.6.5';
const PACKAGE = `github.com/sigstore/cosign/v2/cmd/cosign@v${VERSION}`;

/** The version a cosign binary reports (`v2.6.5`), or undefined when it is not cosign. */
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
 * Returns `{ cosign, version }`: COSIGN_PATH when set, else .tools/cosign-<version>/cosign, built there with
 * `go install` when missing (about two minutes the first time, seconds with Go's caches warm).
 * Throws an Error whose `code` is COSIGN_PATH_INVALID, COSIGN_NOT_FOUND (no Go) or COSIGN_BUILD_FAILED.
 */
function ensureCosign() {
  const override = process.env.COSIGN_PATH;
  if (override) {
    const file = path.resolve(override);
    const reported = isExecutable(file) ? reportedVersion(file) : undefined;
    if (!reported?.startsWith('v2.')) {
      throw fail(`COSIGN_PATH=${override} is not a cosign 2 executable.`, 'COSIGN_PATH_INVALID');
    }
    return { cosign: file, version: reported };
  }
  const dir = path.join(TOOLS, `cosign-${VERSION}`);
  const cached = { cosign: path.join(dir, 'cosign'), version: VERSION };
  if (isExecutable(cached.cosign)) return cached;
  if (!onPath('go')) {
    throw fail(
      `No cosign ${VERSION} in ${dir}, and no Go to build it with. Install Go (https://go.dev/dl/) and rerun, ` +
        'or set COSIGN_PATH to a cosign 2 binary.',
      'COSIGN_NOT_FOUND',
    );
  }
  goInstall([PACKAGE], dir, 'COSIGN', {
    prepare: (scratch) => {
      const built = reportedVersion(path.join(scratch, 'cosign'));
      if (built !== `v${VERSION}`) {
        throw fail(
          `the cosign built by go install reports ${built ?? 'no version'}, not v${VERSION}.`,
          'COSIGN_BUILD_FAILED',
        );
      }
    },
  });
  return cached;
}

module.exports = { ensureCosign, COSIGN_VERSION: VERSION };

if (require.main === module) {
  try {
    process.stdout.write(`${ensureCosign().cosign}\n`);
  } catch (err) {
    process.stderr.write(`ensure-cosign: ${err.message}\n`);
    process.exit(1);
  }
}
