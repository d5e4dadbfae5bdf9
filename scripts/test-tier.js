#!/usr/bin/env node
// `npm test` and `npm run test:full`: installs what the tier needs, then runs jest on the tier's projects (test/tiers.js).
// Jest's own arguments come first, so `npm test -- test/e2e/drill.test.ts -t cancel` runs one test of the tier:
// --selectProjects would take every word after it as a project's name.
'use strict';

const { spawnSync } = require('node:child_process');
const { join } = require('node:path');
const { PROJECTS } = require('../test/tiers');

const [tier, ...jestArgs] = process.argv.slice(2);
const projects = PROJECTS[tier ?? ''];
if (!projects) {
  process.stderr.write(`usage: test-tier.js ${Object.keys(PROJECTS).join('|')} [jest arguments]\n`);
  process.exit(2);
}

function node(script, args) {
  return spawnSync(process.execPath, [join(__dirname, script), ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
}

// `npm test` needs only the Temporal CLI and the time-skipping test server; without either, the SDK downloads its own.
const installs =
  tier === 'full'
    ? [node('ensure-full-tier.js', [])]
    : [node('ensure-temporal.js', ['--optional']), node('ensure-test-server.js', ['--optional'])];
const failed = installs.find((result) => result.status !== 0);
if (failed) process.exit(failed.status ?? 1);

const jest = require.resolve('jest/bin/jest');
const result = spawnSync(process.execPath, [jest, ...jestArgs, '--selectProjects', ...projects], { stdio: 'inherit' });
process.exit(result.status ?? 1);
