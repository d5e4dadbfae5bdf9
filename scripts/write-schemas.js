#!/usr/bin/env node
// Regenerates schemas/<runbook>.json from the runbooks' zod inputs, and examples/<runbook>.json and
// examples/<runbook>.<name>.json from their contracts' `example` and `examples` (`npm run schemas`). Runs the
// TypeScript sources through swc, as the tests do: no build.
'use strict';

const path = require('node:path');
require('./require-typescript');

const root = path.resolve(__dirname, '..');
const { writeInputFiles } = require(path.join(root, 'cli', 'write-input-files.ts'));
for (const file of writeInputFiles(root)) console.log(`wrote ${file}`);
