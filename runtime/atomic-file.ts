import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { chmod, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Atomic replacement of a file: a crash leaves either the old file or the new one, never a part. The data is synced
 * before the rename and the directory after it, so that the rename cannot reach the disk before the data, and the
 * new name survives a power loss.
 */

export interface AtomicWriteOptions {
  /** The new file's mode, exactly (the temporary file has it from the start); otherwise 0666 less the umask. */
  mode?: number;
}

function tempName(path: string): string {
  return `${path}.${randomBytes(4).toString('hex')}.tmp`;
}

/** Writes `data` to `path` atomically and durably. */
export async function writeFileAtomic(path: string, data: string, options: AtomicWriteOptions = {}): Promise<void> {
  const tmp = tempName(path);
  const file = await open(tmp, 'wx', options.mode ?? 0o666);
  try {
    await file.writeFile(data, 'utf8');
    await file.sync();
  } catch (err) {
    await file.close();
    await rm(tmp, { force: true });
    throw err;
  }
  await file.close();
  // The umask may have narrowed the mode open() was given.
  if (options.mode !== undefined) await chmod(tmp, options.mode);
  await renameDurably(tmp, path);
}

/** Renames `from` (already synced) to `to`, then syncs the directory so that the new name is on disk. */
export async function renameDurably(from: string, to: string): Promise<void> {
  await rename(from, to);
  const dir = await open(dirname(to), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/** `writeFileAtomic` for synchronous callers (the simulator saves its state inside a request). */
export function writeFileAtomicSync(path: string, data: string, options: AtomicWriteOptions = {}): void {
  const tmp = tempName(path);
  const fd = openSync(tmp, 'wx', options.mode ?? 0o666);
  try {
    writeFileSync(fd, data, 'utf8');
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  if (options.mode !== undefined) chmodSync(tmp, options.mode);
  renameSync(tmp, path);
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
