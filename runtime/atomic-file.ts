import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { chmod, link, open, rename, rm } from 'node:fs/promises';
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

/** Writes `data` (text as UTF-8) to `path` atomically and durably. */
export async function writeFileAtomic(
  path: string,
  data: string | Buffer,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const tmp = await writeTemp(path, data, options);
  await renameDurably(tmp, path);
}

/**
 * Creates `path` holding `data` only if no file has that name, atomically and durably: the data is written aside, then
 * hard-linked into place, which fails when the name exists. Of processes racing to create one file, exactly one gets
 * true; readers never see it half written. False when the file existed.
 */
export async function createFileOnce(path: string, data: string, options: AtomicWriteOptions = {}): Promise<boolean> {
  const tmp = await writeTemp(path, data, options);
  try {
    await link(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await rm(tmp, { force: true });
  }
  await syncDirectory(dirname(path));
  return true;
}

/** A synced temporary file beside `path` holding `data`, with exactly `options.mode` when given. */
async function writeTemp(path: string, data: string | Buffer, options: AtomicWriteOptions): Promise<string> {
  const tmp = tempName(path);
  const file = await open(tmp, 'wx', options.mode ?? 0o666);
  try {
    await file.writeFile(data, typeof data === 'string' ? 'utf8' : undefined);
    await file.sync();
  } catch (err) {
    await file.close();
    await rm(tmp, { force: true });
    throw err;
  }
  await file.close();
  // The umask may have narrowed the mode open() was given.
  if (options.mode !== undefined) await chmod(tmp, options.mode);
  return tmp;
}

/** Renames `from` (already synced) to `to`, then syncs the directory so that the new name is on disk. */
export async function renameDurably(from: string, to: string): Promise<void> {
  await rename(from, to);
  await syncDirectory(dirname(to));
}

async function syncDirectory(path: string): Promise<void> {
  const dir = await open(path, 'r');
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
