// An export killed again and again: kill -9 the worker 20 s after each restart until the export has finished. It
// must finish, and keep at least 90% of the pages it had written when each kill came (a retry resumes from its last
// checkpoint, so only the pages after that checkpoint are fetched again).
import type { ExportSummary } from '../../runtime/export-file';
import { sleep, type ManagedProcess } from './processes';
import type { RunRecord } from './runs';
import type { Disruption, TrialEnv } from './trials';

export const KILL_EVERY_MS = 20_000;
/** The share of written pages a crash may cost at most. */
export const MIN_PAGES_KEPT = 0.9;
const RESULTS_PAGE = /\/queries\/[^/]+\/results$/;
/** Slows each page down, so that the export outlives several kills. */
const PAGE_PACING_MS = 200;

export interface CrashLoop extends Disruption {
  /** The share of pages written before the kills that the retries kept, once the run has ended. */
  pagesKept(run: RunRecord): { kept: number; detail: string } | undefined;
}

export function crashLoop(env: TrialEnv, worker: ManagedProcess | undefined): CrashLoop {
  if (!worker) throw new Error('no worker to kill');
  const pageCalls: number[] = [];
  const kills: number[] = [];
  const stopWatching = env.stack.proxy.watch((seen) => {
    if (seen.method === 'GET' && RESULTS_PAGE.test(seen.path) && seen.status === 200) pageCalls.push(seen.at);
  });
  const removePacing = env.stack.proxy.add({
    label: 'page pacing',
    method: 'GET',
    path: RESULTS_PAGE,
    times: Number.MAX_SAFE_INTEGER,
    action: () => sleep(PAGE_PACING_MS),
  });
  return {
    crash: true,
    async apply(waiting) {
      let ended = false;
      void waiting.then(() => (ended = true));
      let resumedAt: number | undefined;
      for (;;) {
        const alive = Math.max(worker.readyAt, Date.now());
        while (!ended && Date.now() - alive < KILL_EVERY_MS) await sleep(100);
        if (ended) break;
        kills.push(Date.now());
        await worker.kill();
        await sleep(env.random.int(500, 1_500));
        await worker.start();
        resumedAt = worker.readyAt;
      }
      stopWatching();
      removePacing();
      const what = `kill -9 ${worker.spec.name} ${KILL_EVERY_MS / 1000} s after each start, ${kills.length} kills`;
      return kills.length === 0
        ? { what: `${what}: missed, the run ended first` }
        : { hitAt: kills[0], resumedAt, what };
    },
    pagesKept(run) {
      const pages = (run.result as { export?: ExportSummary } | undefined)?.export?.pages;
      const lastKill = kills.at(-1);
      if (pages === undefined || lastKill === undefined) return undefined;
      // Pages the killed attempts had fetched, and how many of all fetches were repeats.
      const writtenBeforeKills = pageCalls.filter((at) => at < lastKill).length;
      const refetched = Math.max(0, pageCalls.length - pages);
      const kept = writtenBeforeKills === 0 ? 1 : 1 - refetched / writtenBeforeKills;
      return {
        kept,
        detail: `${pages} pages, ${pageCalls.length} page calls over ${kills.length} kills: kept ${(kept * 100).toFixed(1)}% of the ${writtenBeforeKills} page calls made before the last kill`,
      };
    },
  };
}
