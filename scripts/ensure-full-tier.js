#!/usr/bin/env node
// Installs what `npm run test:full` needs beyond `npm test`: the FOCUS and OSCAL validators (Python venvs), a real
// Temporal server and PostgreSQL for the cluster test, helm, cosign, sigstore's timestamp authority, Prometheus and promtool (built from their Go
// modules), and Chromium (Debian's package). Each is kept in .tools/ or the system, so a second run finds them at once.
'use strict';

const { spawnSync } = require('node:child_process');
const { join } = require('node:path');

const SCRIPTS = [
  'ensure-temporal.js',
  'ensure-test-server.js',
  'ensure-focus-validator.js',
  'ensure-oscal-validator.js',
  'ensure-temporal-server.js',
  'ensure-postgres.js',
  'ensure-helm.js',
  'ensure-cosign.js',
  'ensure-timestamp-authority.js',
  'ensure-openssl.js',
  'ensure-prometheus.js',
  'ensure-chromium.js',
];

for (const script of SCRIPTS) {
  const started = Date.now();
  // Their paths go to stdout; the builds' own output stays visible on stderr.
  const result = spawnSync(process.execPath, [join(__dirname, script)], { stdio: ['ignore', 'ignore', 'inherit'] });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) {
    process.stderr.write(
      `ensure-full-tier: ${script} failed (exit ${result.status ?? result.signal}) after ${seconds} s\n`,
    );
    process.exit(1);
  }
  process.stderr.write(`ensure-full-tier: ${script} ready in ${seconds} s\n`);
}
