#!/usr/bin/env node
// Before `npm run build`: removes what tsc once wrote to dist/ for a source that is gone. tsc never deletes, and a
// stale `dist/x.js` would shadow a new `dist/x/index.js` for whoever requires `x`.
'use strict';

const { existsSync, readdirSync, rmSync, statSync } = require('node:fs');
const { join, relative } = require('node:path');

const root = join(__dirname, '..');
const dist = join(root, 'dist');

function stale(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return stale(path);
    const emitted = /^(.*)\.(?:js|js\.map|d\.ts)$/.exec(relative(dist, path));
    // Only tsc's output for a module's source; files written into dist/ by other steps (the bundle) stay.
    if (!emitted || dir === dist) return [];
    return existsSync(join(root, `${emitted[1]}.ts`)) ? [] : [path];
  });
}

if (existsSync(dist)) {
  for (const path of stale(dist)) rmSync(path);
}
