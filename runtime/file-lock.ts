import { open, readFile, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';

// Holders keep the lock for a few short steps; a lock older than this was left by a dead process.
const STALE_LOCK_MS = 2 * 60_000;
const LOCK_POLL_MS = 100;

/**
 * Runs `fn` holding `<path>.lock` (created exclusively), so that processes sharing a file on one file system take
 * turns. A lock left by a process that died is taken over; `busy` makes the error thrown after `waitMs`.
 */
export async function withLockFile<T>(
  path: string,
  waitMs: number,
  fn: () => Promise<T>,
  busy: (lock: string) => Error,
): Promise<T> {
  const lock = `${path}.lock`;
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const handle = await open(lock, 'wx', 0o600);
      await handle
        .writeFile(`${process.pid} ${hostname()} ${new Date().toISOString()}\n`)
        .finally(() => handle.close());
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (await isStale(lock)) {
        await rm(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw busy(lock);
      await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { force: true });
  }
}

/** A lock left by a process that is gone (same machine), or older than any holder takes. */
async function isStale(lock: string): Promise<boolean> {
  const [info, text] = await Promise.all([stat(lock).catch(() => undefined), readFile(lock, 'utf8').catch(() => '')]);
  if (!info) return false;
  if (Date.now() - info.mtimeMs > STALE_LOCK_MS) return true;
  const [pidText, host] = text.split(' ');
  const pid = Number(pidText);
  // A pid says nothing about a process on another machine or in another container: wait for the age limit there.
  if (host !== hostname() || !Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
