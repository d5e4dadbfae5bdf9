#!/usr/bin/env node
// Regenerates schemas/<runbook>.json from the runbooks' zod inputs and examples/<runbook>.json from
// cli/input-examples.ts (`npm run schemas`). Runs the TypeScript sources through swc, as the tests do: no build.
'use strict';

const { readFileSync } = require('node:fs');
const path = require('node:path');
const { transformSync } = require('@swc/core');

require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};

const root = path.resolve(__dirname, '..');
const { writeInputFiles } = require(path.join(root, 'cli', 'write-input-files.ts'));
for (const file of writeInputFiles(root)) console.log(`wrote ${file}`);
