#!/usr/bin/env node
// Which top-level folder imports which: every relative import, `import()` and `require()` of the sources (tests and
// build output aside), summed by folder, with the folder cycles they close. `node scripts/import-graph.js [root]`.
'use strict';

const { readdirSync, readFileSync, statSync } = require('node:fs');
const { dirname, join, relative, resolve, sep } = require('node:path');

const root = resolve(process.argv[2] ?? join(__dirname, '..'));
const SKIP = new Set(['node_modules', 'dist', 'test', '.tools', '.data', '.git', 'coverage']);
const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)'(\.{1,2}\/[^']+)'/gm;

function sourcesBelow(dir) {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name) || name.startsWith('.')) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourcesBelow(path);
    return /\.ts$/.test(name) && !/\.(test|d)\.ts$/.test(name) ? [path] : [];
  });
}

const folderOf = (path) => relative(root, path).split(sep)[0];

/** folder → folder → how many imports. */
const edges = new Map();
for (const file of sourcesBelow(root)) {
  const from = folderOf(file);
  for (const [, specifier] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
    const to = folderOf(resolve(dirname(file), specifier));
    if (to === from || to.startsWith('..')) continue;
    const targets = edges.get(from) ?? new Map();
    targets.set(to, (targets.get(to) ?? 0) + 1);
    edges.set(from, targets);
  }
}

const folders = [...edges.keys()].sort();
for (const from of folders) {
  const targets = [...(edges.get(from) ?? new Map())].sort(([a], [b]) => a.localeCompare(b));
  console.log(`${from} → ${targets.map(([to, n]) => `${to} (${n})`).join(', ')}`);
}

// Two folders that import each other, directly or through others: each cycle once, by its smallest rotation.
const cycles = new Set();
function walk(path) {
  const last = path[path.length - 1];
  for (const next of (edges.get(last) ?? new Map()).keys()) {
    if (next === path[0]) {
      const least = path.indexOf([...path].sort()[0]);
      cycles.add([...path.slice(least), ...path.slice(0, least)].join(' → '));
    } else if (!path.includes(next) && path.length < 6) walk([...path, next]);
  }
}
for (const folder of folders) walk([folder]);
const edgeCount = folders.reduce((sum, f) => sum + (edges.get(f)?.size ?? 0), 0);
console.log(`${folders.length} folders, ${edgeCount} folder edges, ${cycles.size} folder cycles`);
for (const cycle of [...cycles].sort()) console.log(`  cycle: ${cycle} → ${cycle.split(' → ')[0]}`);
