// `kill-worker-in-estate-drill`: one drill of an estate (500 resources of a generated account, a fresh snapshot each)
// on three worker processes of one task queue, fanned out to batches (runbooks/dr-drill/fan-out.ts). One worker is
// killed -9 twice while batches are in flight: once while the backups are being started (restarted after a short
// pause), once while the restores are (not restarted: the other two finish the drill). The checks are those of
// every drill (checks.ts): it completes with PASS, no resource gets two backup or two restore jobs, no job in its
// report is another's, and its report names every resource exactly once.
import type { DrDrillInput } from '../../runbooks/dr-drill/contract';
import type { JobsConfig } from '../../simulator/model';
import { generatedResources } from '../seeded';
import { sleep, type ManagedProcess } from './processes';
import { batchHistories, batchOrphansRecovered, nextProgress, type PlannedRun, type RunRecord } from './runs';
import { TRIAL_JOBS, type Stack } from './stack';
import type { Disruption, TrialEnv, TrialResult } from './trials';

export const ESTATE_RESOURCES = 500;
/** Worker processes on the task queue while the drill runs. */
export const ESTATE_WORKERS = 3;
/** Resources drilled at once: the service runs as many backups at once (`maxConcurrentBackups`). */
const PARALLELISM = 50;
/** Short jobs, so that the drill takes a few minutes: ten rounds of a backup and a restore at this parallelism. */
const ESTATE_JOBS: Partial<JobsConfig> = { backupSeconds: 3, restoreSeconds: 3, maxConcurrentBackups: PARALLELISM };
/** For the drill to end: it takes about three minutes on two shared cores. */
export const ESTATE_TIMEOUT_MS = 20 * 60_000;
/** The first kill once this share of the backups were started; the second once this share of the restores were. */
const FIRST_KILL_AT = 0.25;
const SECOND_KILL_AT = 0.5;

const TAKE_SNAPSHOT = /\/resources\/[^/]+\/take-snapshot$/;
const RESTORE = /\/snapshots\/[^/]+\/restore-(files|bucket)$/;

/** A new account of ESTATE_RESOURCES resources, three workers, short jobs, and the drill of them all. */
export async function planEstateDrill(env: TrialEnv, index: number): Promise<PlannedRun> {
  const { stack, fixtures } = env;
  const ids = (await generatedResources(stack.control, stack.service, ESTATE_RESOURCES)).map((r) => r.id);
  await stack.control.jobsConfig(ESTATE_JOBS);
  while (stack.workers.length < ESTATE_WORKERS) await stack.addWorker();
  const input: DrDrillInput = {
    name: `reliability-t${index}-estate`,
    resources: { ids },
    vaultId: fixtures.vaultId,
    restoreAccountId: fixtures.restoreAccountId,
    destination: fixtures.bucket('dr-drill-restores', `reliability/t${index}/estate/`),
    targets: { rpoSeconds: 3 * 86400, rtoSeconds: 600 },
    retentionDays: 3,
    // A fresh backup per resource: the checks count its backup jobs.
    recoveryPoint: { select: 'fresh' },
    parallelism: PARALLELISM,
  };
  return { kind: 'drill', runbook: 'drDrill', input };
}

/** Back to the harness's job times, for the trials that follow. */
export async function endEstateDrill(stack: Stack): Promise<void> {
  await stack.control.jobsConfig(TRIAL_JOBS);
}

export interface Kill {
  at: number;
  /** When the victim was ready again; undefined when it stayed down. */
  restartedAt?: number;
  what: string;
}

export interface EstateKills extends Disruption {
  kills: Kill[];
  /** Calls the workers made during the drill: snapshots and restores started, and take-snapshot calls answered 429. */
  started: { backups: number; restores: number; throttled: number };
}

/** Kills `victim` twice, at FIRST_KILL_AT of the drill's backups started and at SECOND_KILL_AT of its restores. */
export function killTwice(env: TrialEnv, victim: ManagedProcess | undefined): EstateKills {
  if (!victim) throw new Error('no worker to kill');
  const started = { backups: 0, restores: 0, throttled: 0 };
  const stopWatching = env.stack.proxy.watch((seen) => {
    if (seen.method !== 'POST') return;
    if (seen.status === 429 && TAKE_SNAPSHOT.test(seen.path)) started.throttled += 1;
    if (seen.status !== 202) return;
    if (TAKE_SNAPSHOT.test(seen.path)) started.backups += 1;
    else if (RESTORE.test(seen.path)) started.restores += 1;
  });
  const kills: Kill[] = [];
  return {
    crash: true,
    kills,
    started,
    async apply(waiting) {
      let ended = false;
      void waiting.then(() => (ended = true));
      const when = async (reached: () => boolean) => {
        while (!ended && !reached()) await sleep(100);
        return !ended;
      };
      const name = victim.spec.name;
      const first = `${name} at ${FIRST_KILL_AT * 100}% of the backups started`;
      const second = `${name} at ${SECOND_KILL_AT * 100}% of the restores started`;
      if (await when(() => started.backups >= FIRST_KILL_AT * ESTATE_RESOURCES)) {
        const at = Date.now();
        const state = `${started.backups} backups and ${started.restores} restores started`;
        await victim.kill();
        const pause = env.random.int(500, 3_000);
        await sleep(pause);
        await victim.start();
        kills.push({
          at,
          restartedAt: victim.readyAt,
          what: `kill -9 ${first} (${state}), restarted after ${pause} ms`,
        });
      }
      if (await when(() => started.restores >= SECOND_KILL_AT * ESTATE_RESOURCES)) {
        const at = Date.now();
        const state = `${started.backups} backups and ${started.restores} restores started`;
        await victim.kill();
        kills.push({ at, what: `kill -9 ${second} (${state}), left down: two workers go on` });
      }
      // Counted to the drill's end, for the notes.
      await waiting;
      stopWatching();
      const what = kills.map((k) => k.what).join('; then ');
      if (kills.length < 2) {
        return { ...(kills[0] ? { hitAt: kills[0].at } : {}), what: `${what || first}: missed, the drill ended first` };
      }
      return { hitAt: kills[0]?.at, resumedAt: kills[0]?.restartedAt, what };
    },
  };
}

/**
 * Per kill, what it cost: until the batch activities it interrupted ran again on a live worker (after their heartbeat
 * timeout), or, when it interrupted none, until the drill's next progress. Measured, never asserted. And a problem
 * when a kill came after the drill had ended.
 */
export async function estateFindings(
  stack: Stack,
  run: RunRecord,
  { kills, started }: Pick<EstateKills, 'kills' | 'started'>,
): Promise<Pick<TrialResult, 'delays' | 'problems' | 'notes'>> {
  const batches = await batchHistories(stack, run.workflowId);
  const delays: TrialResult['delays'] = [];
  for (const [i, kill] of kills.entries()) {
    const orphans = batchOrphansRecovered(batches, kill.at);
    const next = orphans ?? (await nextProgress(stack, run, kill.at).catch(() => undefined));
    const what = orphans ? `${orphans.count} activities again` : (next?.what ?? '');
    if (next) delays.push({ kind: 'drill', ms: Math.max(0, next.at - kill.at), what: `kill ${i + 1}: ${what}` });
  }
  const largest = Math.max(0, ...batches.map((b) => b.events?.length ?? 0));
  return {
    delays,
    problems: kills.length < 2 ? [`only ${kills.length} of the 2 kills came while the drill ran`] : [],
    notes: [
      `${batches.length} batches (child workflows), the largest history ${largest} events`,
      `${started.backups} snapshots and ${started.restores} restores started, ${started.throttled} take-snapshot ` +
        `calls answered 429 (${((100 * started.throttled) / Math.max(1, started.backups + started.throttled)).toFixed(1)}%)`,
    ],
  };
}
