import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The folders tsconfig.build.json compiles into dist/. */
function sources(root: string): string[] {
  return (JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8')) as { include: string[] }).include;
}

function stale(root: string, dir: string): boolean {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (stale(root, path)) return true;
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !entry.name.endsWith('.test.ts')) {
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
  if (!sources(root).some((dir) => existsSync(join(root, dir)) && stale(root, join(root, dir)))) return false;
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  return true;
}
