#!/usr/bin/env node
// Provides helm, built from its Go module at a fixed version, for the chart's lint and template tests. Prints its
// absolute path on stdout.
'use strict';

const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { TOOLS, isExecutable, onPath, fail, goInstall } = require('./wheel');

const VERSION = '3.22.0';
const PACKAGE = `helm.sh/helm/v3/cmd/helm@v${VERSION}`;

/** The `major.minor` a helm binary reports (`go install` builds say `v3.22`, release builds `v3.22.0`). */
function reportedVersion(file) {
  const result = spawnSync(file, ['version', '--template', '{{.Version}}'], { encoding: 'utf8', timeout: 30_000 });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/**
 * Returns `{ helm, version }`: HELM_PATH when set, else .tools/helm-<version>/helm, built there with `go install` when
 * missing (a few minutes the first time, seconds with Go's caches warm).
 * Throws an Error whose `code` is HELM_PATH_INVALID, HELM_NOT_FOUND (no Go) or HELM_BUILD_FAILED.
 */
function ensureHelm() {
  const override = process.env.HELM_PATH;
  if (override) {
    const file = path.resolve(override);
    const reported = isExecutable(file) ? reportedVersion(file) : undefined;
    if (!reported) throw fail(`HELM_PATH=${override} is not a helm executable.`, 'HELM_PATH_INVALID');
    if (!reported.startsWith('v3.')) {
      throw fail(`HELM_PATH=${override} is helm ${reported}; the chart is for helm 3.`, 'HELM_PATH_INVALID');
    }
    return { helm: file, version: reported };
  }
  const dir = path.join(TOOLS, `helm-${VERSION}`);
  const cached = { helm: path.join(dir, 'helm'), version: VERSION };
  if (isExecutable(cached.helm)) return cached;
  if (!onPath('go')) {
    throw fail(
      `No helm ${VERSION} in ${dir}, and no Go to build it with. Install Go (https://go.dev/dl/) and rerun, ` +
        'or set HELM_PATH to a helm 3 binary.',
      'HELM_NOT_FOUND',
    );
  }
  goInstall([PACKAGE], dir, 'HELM', {
    prepare: (scratch) => {
      const built = reportedVersion(path.join(scratch, 'helm'));
      if (!built || !`${VERSION}.`.startsWith(`${built.replace(/^v/, '')}.`)) {
        throw fail(
          `the helm built by go install reports ${built ?? 'no version'}, not ${VERSION}.`,
          'HELM_BUILD_FAILED',
        );
      }
    },
  });
  return cached;
}

module.exports = { ensureHelm, HELM_VERSION: VERSION };

if (require.main === module) {
  try {
    process.stdout.write(`${ensureHelm().helm}\n`);
  } catch (err) {
    process.stderr.write(`ensure-helm: ${err.message}\n`);
    process.exit(1);
  }
}
