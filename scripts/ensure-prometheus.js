#!/usr/bin/env node
// Provides a real Prometheus server and promtool, built from their Go module at one pinned version, for the rule
// tests and the live panel test. Prints their absolute paths on stdout, one per line (prometheus first).
'use strict';

const path = require('node:path');
const { TOOLS, isExecutable, onPath, fail, goInstall } = require('./wheel');

const MODULE = 'github.com/prometheus/prometheus';
const VERSION = '0.316.0';
// `go install` names binaries after their folders: cmd/prometheus and cmd/promtool.
const COMMANDS = ['cmd/prometheus', 'cmd/promtool'];

/**
 * Returns `{ prometheus, promtool, version }`: PROMETHEUS_PATH and PROMTOOL_PATH when both are set, else
 * .tools/prometheus-<version>/, built there with `go install` when missing (a few minutes the first time).
 * Throws an Error whose `code` is PROMETHEUS_PATH_INVALID, PROMETHEUS_NOT_FOUND (no Go) or PROMETHEUS_BUILD_FAILED.
 */
function ensurePrometheus() {
  const prometheus = process.env.PROMETHEUS_PATH;
  const promtool = process.env.PROMTOOL_PATH;
  if (prometheus || promtool) {
    for (const [name, file] of [
      ['PROMETHEUS_PATH', prometheus],
      ['PROMTOOL_PATH', promtool],
    ]) {
      if (!file || !isExecutable(path.resolve(file)))
        throw fail(`${name}=${file ?? ''} is not an executable file (set both or neither).`, 'PROMETHEUS_PATH_INVALID');
    }
    return { prometheus: path.resolve(prometheus), promtool: path.resolve(promtool), version: 'from the environment' };
  }
  const dir = path.join(TOOLS, `prometheus-${VERSION}`);
  const cached = { prometheus: path.join(dir, 'prometheus'), promtool: path.join(dir, 'promtool'), version: VERSION };
  if (isExecutable(cached.prometheus) && isExecutable(cached.promtool)) return cached;
  if (!onPath('go')) {
    throw fail(
      `No Prometheus ${VERSION} in ${dir}, and no Go to build it with. Install Go (https://go.dev/dl/) and rerun, ` +
        'or set PROMETHEUS_PATH and PROMTOOL_PATH.',
      'PROMETHEUS_NOT_FOUND',
    );
  }
  const packages = COMMANDS.map((cmd) => `${MODULE}/${cmd}@v${VERSION}`);
  goInstall(packages, dir, 'PROMETHEUS', {
    done: () => isExecutable(cached.prometheus) && isExecutable(cached.promtool),
  });
  return cached;
}

module.exports = { ensurePrometheus, PROMETHEUS_VERSION: VERSION };

if (require.main === module) {
  try {
    const { prometheus, promtool } = ensurePrometheus();
    process.stdout.write(`${prometheus}\n${promtool}\n`);
  } catch (err) {
    process.stderr.write(`ensure-prometheus: ${err.message}\n`);
    process.exit(1);
  }
}
