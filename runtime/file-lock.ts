import { createHash, randomBytes } from 'node:crypto';
import { open, readFile, rm, stat, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { createFileOnce } from './atomic-file';

/**
 * How a lock is kept. The holder rewrites the lock's time every `renewMs`; a lock not renewed for `staleMs` (several
 * periods) is stale, and so is one whose holder's pid is gone on this host. Tests shorten both.
 */
export interface LockTiming {
  renewMs: number;
  staleMs: number;
  pollMs: number;
}

// Renewing costs one read and one utimes; 30 s without one means the holder is dead or frozen, not busy (a rotation
// awaits service calls of up to 600 s, during which its timer keeps renewing).
export const DEFAULT_LOCK_TIMING: LockTiming = { renewMs: 5_000, staleMs: 30_000, pollMs: 100 };

interface LockHolder {
  pid: number;
  host: string;
}

/**
 * Runs `fn` holding `<path>.lock`, so that processes sharing a file on one file system take turns. `busy` makes the
 * error thrown after `waitMs`. The lock is created whole and atomically (written to a unique file, then hard-linked
 * into place, which fails if a lock exists); while `fn` runs it is renewed. A stale lock is taken over under a claim
 * file named after that lock's content, which only one process can create: so one racer wins a given stale lock, and a
 * release or takeover only ever removes the lock it verified. `fn`'s signal aborts if the lock was lost meanwhile.
 */
export async function withLockFile<T>(
  path: string,
  waitMs: number,
  fn: (held: AbortSignal) => Promise<T>,
  busy: (lock: string) => Error,
  timing: LockTiming = DEFAULT_LOCK_TIMING,
): Promise<T> {
  const lock = `${path}.lock`;
  const mine = await acquire(lock, waitMs, busy, timing);
  const held = new AbortController();
  let renewing = Promise.resolve();
  const timer = setInterval(() => {
    renewing = renewing.then(() => renew(lock, mine, held)).catch(() => undefined);
  }, timing.renewMs);
  timer.unref();
  try {
    return await fn(held.signal);
  } finally {
    clearInterval(timer);
    await renewing;
    await release(lock, mine, timing);
  }
}

async function acquire(lock: string, waitMs: number, busy: (lock: string) => Error, timing: LockTiming) {
  const deadline = Date.now() + waitMs;
  // The token makes each holding's content unique: it is what a release or a takeover verifies.
  const holding = { pid: process.pid, host: hostname(), token: randomBytes(12).toString('hex'), at: new Date() };
  const mine = `${JSON.stringify(holding)}\n`;
  for (;;) {
    if (await createFileOnce(lock, mine, { mode: 0o600 })) return mine;
    const found = await readFile(lock, 'utf8').catch(() => undefined);
    // A racer that finds the claim taken leaves the takeover to its claimer and waits like anyone else.
    if (found !== undefined && (await isStale(lock, found, timing)) && (await takeOver(lock, found, timing))) continue;
    // Gone since (released or taken over): try again at once.
    if (found === undefined) continue;
    if (Date.now() >= deadline) throw busy(lock);
    await new Promise((resolve) => setTimeout(resolve, timing.pollMs));
  }
}

/**
 * Removes the lock whose content was `stale`, if it still is that lock, under that lock's claim. A racer that finds
 * the claim taken by a live process leaves the lock to it.
 */
async function takeOver(lock: string, stale: string, timing: LockTiming): Promise<boolean> {
  return underClaim(lock, stale, timing, async () => {
    if ((await readFile(lock, 'utf8').catch(() => undefined)) === stale) await rm(lock, { force: true });
  });
}

/** Removes the lock only if it still is ours: after a takeover it belongs to the successor. */
async function release(lock: string, mine: string, timing: LockTiming): Promise<void> {
  await underClaim(lock, mine, timing, async () => {
    if ((await readFile(lock, 'utf8').catch(() => undefined)) === mine) await rm(lock, { force: true });
  });
}

async function renew(lock: string, mine: string, held: AbortController): Promise<void> {
  if (held.signal.aborted) return;
  const found = await readFile(lock, 'utf8').catch(() => undefined);
  if (found !== mine) {
    held.abort(new Error(`${lock} was taken over`));
    return;
  }
  const now = new Date();
  await utimes(lock, now, now);
}

/**
 * Runs `act` as the one process acting on the lock whose content is `content` (a release or a takeover). The claim is
 * `<lock>.<hash>.claim<k>`, created exclusively; a claim left by a dead process is skipped for the next `k`. Nothing
 * happens (false) when a live process holds the claim.
 */
async function underClaim(
  lock: string,
  content: string,
  timing: LockTiming,
  act: () => Promise<void>,
): Promise<boolean> {
  const base = `${lock}.${createHash('sha256').update(content).digest('hex').slice(0, 16)}.claim`;
  const me = `${JSON.stringify({ pid: process.pid, host: hostname() })}\n`;
  for (let k = 1; ; k++) {
    const claim = `${base}${k}`;
    let created = false;
    try {
      const handle = await open(claim, 'wx', 0o600);
      created = true;
      await handle.writeFile(me).finally(() => handle.close());
    } catch (err) {
      if (created) await rm(claim, { force: true });
      if (created || (err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // An empty claim (its claimer died before writing its name) is judged by age alone.
      const text = await readFile(claim, 'utf8').catch(() => undefined);
      if (text !== undefined && (await isStale(claim, text, timing, 'claim'))) continue;
      return false;
    }
    try {
      await act();
    } finally {
      // The lock this claim was for is gone or was never touched; earlier claims of dead processes go with it.
      for (let j = k; j >= 1; j--) await rm(`${base}${j}`, { force: true });
    }
    return true;
  }
}

function holderOf(text: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    if (typeof parsed.pid === 'number' && typeof parsed.host === 'string') {
      return { pid: parsed.pid, host: parsed.host };
    }
  } catch {
    // A lock of the earlier format: `<pid> <host> <time>`.
    const [pid, host] = text.split(' ');
    if (host !== undefined) return { pid: Number(pid), host };
  }
  return undefined;
}

/**
 * A lock: not renewed for `staleMs` (hosts sharing a file keep their clocks within seconds of each other, as NTP
 * does), or held by a process that is gone (same host only: elsewhere a pid says nothing).
 * A claim is never renewed: on this host only a dead claimer makes it stale, so a slow one is never raced.
 */
async function isStale(file: string, text: string, timing: LockTiming, kind: 'lock' | 'claim' = 'lock') {
  const info = await stat(file).catch(() => undefined);
  if (!info) return false;
  const holder = holderOf(text);
  const here = holder?.host === hostname();
  if (!(kind === 'claim' && here) && Date.now() - info.mtimeMs > timing.staleMs) return true;
  if (!holder || !here) return false;
  const { pid } = holder;
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
