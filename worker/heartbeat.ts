import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** In the data directory, which is each worker's own (the output directory may be shared). */
export const HEARTBEAT_FILE = 'worker-heartbeat';
export const HEARTBEAT_INTERVAL_MS = 10_000;
/** Three missed beats: one slow disk write does not make a worker unhealthy. */
export const HEARTBEAT_MAX_AGE_MS = 3 * HEARTBEAT_INTERVAL_MS;

/**
 * Rewrites `path` every interval while `isRunning()` holds, so a healthcheck sees a worker whose event loop turns and
 * whose worker polls, not just a live process. Returns the function that stops it.
 */
export function startHeartbeat(path: string, isRunning: () => boolean, intervalMs = HEARTBEAT_INTERVAL_MS): () => void {
  const beat = async () => {
    if (!isRunning()) return;
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, `${new Date().toISOString()}\n`);
  };
  // A failed write only delays the next beat; the healthcheck reports the staleness.
  void beat().catch(() => undefined);
  const timer = setInterval(() => void beat().catch(() => undefined), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Why the heartbeat at `path` is not fresh, or undefined when it is. */
export async function heartbeatProblem(
  path: string,
  maxAgeMs = HEARTBEAT_MAX_AGE_MS,
  now = Date.now(),
): Promise<string | undefined> {
  let mtimeMs: number;
  try {
    ({ mtimeMs } = await stat(path));
  } catch (err) {
    return `no heartbeat at ${path} (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
  }
  const age = now - mtimeMs;
  return age > maxAgeMs ? `the heartbeat at ${path} is ${Math.round(age / 1000)} s old` : undefined;
}
