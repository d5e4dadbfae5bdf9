#!/usr/bin/env node
// Which top-level folder imports which: every relative import, `import()` and `require()` of the sources (tests and
// build output aside), summed by folder, with the folder cycles they close and who imports the leaves (cli/, console/,
// demo/), which only cli/run.ts may load. `node scripts/import-graph.js [root]`.
'use strict';

const { readdirSync, readFileSync, statSync } = require('node:fs');
const { dirname, join, relative, resolve, sep } = require('node:path');

const SKIP = new Set(['node_modules', 'dist', 'test', '.tools', '.data', '.git', 'coverage']);
const SPECIFIER =
  /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|\brequireHere\s*\(\s*|^\s*import\s+)'(\.{1,2}\/[^']+)'/gm;
/** Folders nothing imports, apart from the CLI's command table loading them; tests and benches drive them too. */
const LEAVES = ['cli', 'console', 'demo'];
const LEAF_LOADER = 'cli/run.ts';
const DRIVERS = new Set(['test', 'bench']);

function sourcesBelow(dir) {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name) || name.startsWith('.')) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourcesBelow(path);
    return /\.ts$/.test(name) && !/\.(test|d)\.ts$/.test(name) ? [path] : [];
  });
}

/** The folder graph of a tree: edges (folder → folder → count), cycles, and the imports of a leaf from elsewhere. */
function folderGraph(root) {
  const folderOf = (path) => relative(root, path).split(sep)[0];
  const edges = new Map();
  const leafImports = [];
  for (const file of sourcesBelow(root)) {
    const from = folderOf(file);
    const name = relative(root, file).split(sep).join('/');
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const to = folderOf(resolve(dirname(file), specifier));
      if (to === from || to.startsWith('..')) continue;
      const targets = edges.get(from) ?? new Map();
      targets.set(to, (targets.get(to) ?? 0) + 1);
      edges.set(from, targets);
      if (LEAVES.includes(to) && name !== LEAF_LOADER && !DRIVERS.has(from)) leafImports.push(`${name} → ${specifier}`);
    }
  }
  // A cycle once, by its smallest rotation.
  const cycles = new Set();
  const walk = (path) => {
    for (const next of (edges.get(path[path.length - 1]) ?? new Map()).keys()) {
      if (next === path[0]) {
        const least = path.indexOf([...path].sort()[0]);
        cycles.add([...path.slice(least), ...path.slice(0, least)].join(' → '));
      } else if (!path.includes(next) && path.length < 6) walk([...path, next]);
    }
  };
  for (const folder of edges.keys()) walk([folder]);
  return { edges, cycles: [...cycles].sort(), leafImports };
}

module.exports = { folderGraph };

if (require.main === module) {
  const root = resolve(process.argv[2] ?? join(__dirname, '..'));
  const { edges, cycles, leafImports } = folderGraph(root);
  const folders = [...edges.keys()].sort();
  for (const from of folders) {
    const targets = [...edges.get(from)].sort(([a], [b]) => a.localeCompare(b));
    console.log(`${from} → ${targets.map(([to, n]) => `${to} (${n})`).join(', ')}`);
  }
  const edgeCount = folders.reduce((sum, f) => sum + edges.get(f).size, 0);
  console.log(`${folders.length} folders, ${edgeCount} folder edges, ${cycles.length} folder cycles`);
  for (const cycle of cycles) console.log(`  cycle: ${cycle} → ${cycle.split(' → ')[0]}`);
  console.log(`${leafImports.length} imports of ${LEAVES.join('/, ')}/ from elsewhere than ${LEAF_LOADER}`);
  for (const line of leafImports) console.log(`  ${line}`);
}
