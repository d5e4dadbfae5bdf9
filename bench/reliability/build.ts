import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** What tsconfig.build.json compiles into dist/. */
const SOURCES = ['api', 'activities', 'workflows', 'worker', 'client', 'simulator', 'bench'];

function stale(root: string, dir: string): boolean {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (stale(root, path)) return true;
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
      const built = join(root, 'dist', relative(root, path)).replace(/\.ts$/, '.js');
      if (!existsSync(built) || statSync(built).mtimeMs < statSync(path).mtimeMs) return true;
    }
  }
  return false;
}

/**
 * The harness runs the worker and the simulator from dist/ as separate processes: rebuild it when a source is newer
 * (after `npm ci` it is current, built by `prepare`).
 */
export function ensureBuilt(root: string): boolean {
  if (!SOURCES.some((dir) => existsSync(join(root, dir)) && stale(root, join(root, dir)))) return false;
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  return true;
}
