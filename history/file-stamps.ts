// What is on disk, and what was read from it: the index reads a file again only when its name, size or mtime changed.
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** A file's identity for the cache: a rewrite (atomic rename or in place) changes its size or its mtime. */
export interface FileStamp {
  size: number;
  mtimeMs: number;
}

export const stampKey = (s: FileStamp) => `${s.size}:${s.mtimeMs}`;

/**
 * The regular files of `dir` by name, with their stamps; an absent folder is empty. Partial files of runs in flight
 * (`*.partial`), lock files and hidden files are left out: another worker may be writing them right now. A file that
 * disappears between the listing and its stat (another worker renamed it) is left out too.
 */
export async function listFiles(dir: string): Promise<Map<string, FileStamp>> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw err;
  }
  const names = entries
    .filter((e) => e.isFile() && !e.name.startsWith('.') && !e.name.endsWith('.partial') && !e.name.endsWith('.lock'))
    .map((e) => e.name)
    .sort();
  const stamps = await Promise.all(
    names.map((name) =>
      stat(join(dir, name)).then(
        (s) => ({ name, stamp: { size: s.size, mtimeMs: s.mtimeMs } }),
        () => undefined,
      ),
    ),
  );
  return new Map(stamps.filter((s) => s !== undefined).map((s) => [s.name, s.stamp]));
}

/** Values read from files, each kept while its file's stamp is unchanged. */
export class StampCache<T> {
  private readonly entries = new Map<string, { key: string; value: T }>();

  /** The value for `name` at `stamp`, reading it with `read` when the file is new or changed. */
  async get(name: string, stamp: FileStamp, read: () => Promise<T>): Promise<T> {
    const key = stampKey(stamp);
    const hit = this.entries.get(name);
    if (hit && hit.key === key) return hit.value;
    const value = await read();
    this.entries.set(name, { key, value });
    return value;
  }

  /** Forgets files no longer listed, so that the cache stays the size of the folder. */
  keepOnly(names: ReadonlySet<string> | ReadonlyMap<string, unknown>): void {
    for (const name of this.entries.keys()) if (!names.has(name)) this.entries.delete(name);
  }
}
