import { nudgeSignal } from '../../contracts';
import type { ProxyAction, ProxyRule } from '../http-proxy';
import type { Random } from '../../simulator/random';
import { sleep, type ManagedProcess } from './processes';
import { watchesHeld, type RunKind, type RunRecord } from './runs';
import type { Disruption, TrialEnv } from './trials';

/** A service call a kill or a lost answer can be aimed at. */
export interface CallPoint {
  label: string;
  method: string;
  path: RegExp;
  header?: string;
  /** Up to this many matching calls may pass first (pages of an export). */
  maxSkip?: number;
}

export const APPROVAL = 'x-action-approval-request-id';

/** The calls of each runbook kind, in the order it makes them. */
export const CALLS: Record<RunKind, CallPoint[]> = {
  'bucket-restore': [
    { label: 'first restore-bucket call', method: 'POST', path: /\/restore-bucket$/, header: `!${APPROVAL}` },
    { label: 'submit of the action request', method: 'POST', path: /\/my-requests\/[^/]+\/submit$/ },
    { label: 'approval check', method: 'GET', path: /\/my-requests\/[^/]+$/ },
    { label: 'approved restore-bucket call', method: 'POST', path: /\/restore-bucket$/, header: APPROVAL },
    { label: 'restore job check', method: 'GET', path: /\/restore-jobs\/[^/]+$/ },
  ],
  'files-restore': [
    { label: 'restore-files call', method: 'POST', path: /\/restore-files$/ },
    { label: 'restore job check', method: 'GET', path: /\/restore-jobs\/[^/]+$/ },
  ],
  drill: [
    { label: 'resource listing', method: 'POST', path: /\/projects\/[^/]+\/resources$/ },
    { label: 'take-snapshot call', method: 'POST', path: /\/take-snapshot$/, maxSkip: 1 },
    { label: 'backup job check', method: 'GET', path: /\/backup-jobs\/[^/]+$/ },
    { label: 'restore-files call', method: 'POST', path: /\/restore-files$/, maxSkip: 1 },
    { label: 'restore job check', method: 'GET', path: /\/restore-jobs\/[^/]+$/ },
  ],
  'query-export': [
    { label: 'query start', method: 'POST', path: /\/databases\/query$/ },
    { label: 'query status', method: 'GET', path: /\/queries\/[^/]+\/status$/ },
    { label: 'results page', method: 'GET', path: /\/queries\/[^/]+\/results$/, maxSkip: 40 },
  ],
  'cost-export': [{ label: 'cost-data page', method: 'POST', path: /\/cost-data$/, maxSkip: 30 }],
  // The service rotates for a worker that is gone; or the new secret is stored but not yet proved (the second token
  // call: the first gets the token held across the rotation).
  rotation: [
    { label: 'rotate call', method: 'POST', path: /\/v1\/api-credentials\/current\/rotate$/ },
    { label: 'token call', method: 'POST', path: /\/v1\/token$/, maxSkip: 1 },
  ],
  offboarding: [
    { label: 'disconnect call', method: 'POST', path: /\/source-accounts\/[^/]+\/disconnect$/ },
    { label: 'account check', method: 'GET', path: /\/source-accounts\/[^/]+$/ },
    { label: 'delete call', method: 'DELETE', path: /\/source-accounts\/[^/]+$/ },
  ],
};

/** Calls whose answer can be lost after the service acted (the runbook must neither repeat nor lose the act). */
export const LOSABLE: Record<RunKind, string[]> = {
  'bucket-restore': ['first restore-bucket call', 'submit of the action request', 'approved restore-bucket call'],
  'files-restore': ['restore-files call'],
  drill: ['take-snapshot call', 'restore-files call'],
  'query-export': ['query start', 'results page'],
  'cost-export': ['cost-data page'],
  rotation: ['rotate call'],
  offboarding: ['disconnect call', 'delete call'],
};

/** How long a run of each kind goes on, roughly: a kill by time lands within it. */
export const KILL_WINDOW_MS: Record<RunKind, [number, number]> = {
  'bucket-restore': [500, 12_000],
  'files-restore': [500, 7_000],
  drill: [500, 12_000],
  'query-export': [500, 3_500],
  'cost-export': [300, 5_000],
  // Unused while they are killed by call only (CALL_ONLY).
  rotation: [50, 500],
  offboarding: [50, 700],
};

export type KillPoint = { time: number } | { call: CallPoint; skip: number };

/**
 * Runs that end within a second or so of their start (less with a warm worker): a kill by time mostly comes after
 * the end, so they are killed inside one of their calls.
 */
const CALL_ONLY: readonly RunKind[] = ['rotation', 'offboarding'];

export function pickKillPoint(
  random: Random,
  kind: RunKind,
  byCall = CALL_ONLY.includes(kind) || random.chance(0.5),
): KillPoint {
  if (!byCall) {
    const [min, max] = KILL_WINDOW_MS[kind];
    return { time: random.int(min, max) };
  }
  const call = random.pick(CALLS[kind]);
  return { call, skip: random.int(0, call.maxSkip ?? 0) };
}

export function describeKillPoint(point: KillPoint): string {
  return 'time' in point ? `+${(point.time / 1000).toFixed(1)}s` : `${point.call.label}#${point.skip + 1}`;
}

export function ruleFor(call: CallPoint, skip: number, action: ProxyAction): ProxyRule {
  return { label: call.label, method: call.method, path: call.path, header: call.header, skip, times: 1, action };
}

export function losableCall(random: Random, kind: RunKind): CallPoint {
  const label = random.pick(LOSABLE[kind]);
  const call = CALLS[kind].find((c) => c.label === label);
  if (!call) throw new Error(`no call ${label}`);
  return call;
}

/** Runs `kill` at a time, or inside a service call (the service then acts for a worker that is gone). */
export async function atKillPoint(
  env: TrialEnv,
  point: KillPoint,
  waiting: Promise<void>,
  kill: () => Promise<void>,
): Promise<number | undefined> {
  const ended = waiting.then(() => undefined);
  if ('time' in point) {
    const fired = await Promise.race([sleep(point.time).then(() => true), ended.then(() => false)]);
    if (!fired) return undefined;
    const at = Date.now();
    await kill();
    return at;
  }
  let hit!: (at: number) => void;
  const hitAt = new Promise<number>((resolve) => (hit = resolve));
  const remove = env.stack.proxy.add(
    ruleFor(point.call, point.skip, async () => {
      hit(Date.now());
      await kill();
    }),
  );
  const at = await Promise.race([hitAt, ended]);
  remove();
  return at;
}

export function killWorker(
  env: TrialEnv,
  worker: ManagedProcess | undefined,
  point: KillPoint,
  restart: boolean,
): Disruption {
  if (!worker) throw new Error('no worker to kill');
  return {
    crash: true,
    async apply(waiting, runs) {
      const hitAt = await atKillPoint(env, point, waiting, () => worker.kill());
      const what = `kill -9 ${worker.spec.name} at ${describeKillPoint(point)}`;
      if (hitAt === undefined) return { what: `${what}: missed, the runs ended first` };
      if (!restart) return { hitAt, resumedAt: hitAt, what: `${what}, another worker goes on` };
      const pause = env.random.int(500, 3_000);
      await sleep(pause);
      await worker.start();
      const nudged = await nudgeHeldWatches(env, runs, hitAt, waiting);
      return { hitAt, resumedAt: worker.readyAt, what: `${what}, restarted after ${pause} ms${nudged}` };
    },
  };
}

/** How long a run whose watch the dead worker still holds waits for its next nudge. */
const NUDGE_AGAIN_MS = 2_000;

/**
 * What an operator does once a crashed worker is back: `runbooks nudge` the runs whose wait the dead worker still
 * holds. Temporal retries a watch (runtime/heartbeat.ts) only at its 2-minute heartbeat timeout; a nudge looks at once,
 * on the live worker, and when that look finds the answer the run moves on without the dead attempt
 * (RunbookTracker.waitNudgeable). A look that finds none (the job still runs) leaves the run on the dead attempt, so a
 * run is nudged again while it stays held. Returns the nudges for the trial's line ('' when none).
 */
async function nudgeHeldWatches(
  env: TrialEnv,
  runs: readonly RunRecord[],
  hitAt: number,
  waiting: Promise<void>,
): Promise<string> {
  let ended = false;
  const end = () => (ended = true);
  void waiting.then(end, end);
  const nudges = new Map<string, number>();
  for (;;) {
    // As the runs' looks (waitForRuns) last saw their pending activities, every half second or so.
    const held = runs.flatMap((run) => {
      const watches = watchesHeld(run, hitAt);
      return watches.length > 0 ? [{ run, watches }] : [];
    });
    if (ended || held.length === 0) break;
    for (const { run, watches } of held) {
      const handle = env.stack.client.workflow.getHandle(run.workflowId);
      // A workflow task pending: the run has yet to take the last nudge (one scheduled on the dead worker's sticky
      // queue waits there for the worker's 10 s sticky schedule-to-start timeout).
      const busy = await handle.describe().then(
        (d) => Boolean(d.raw.pendingWorkflowTask),
        () => true,
      );
      if (busy) continue;
      const sent = await handle.signal(nudgeSignal).then(
        () => true,
        // The run ended meanwhile.
        () => false,
      );
      const key = `${run.plan.kind} (${watches.join(', ')})`;
      if (sent) nudges.set(key, (nudges.get(key) ?? 0) + 1);
    }
    await Promise.race([sleep(NUDGE_AGAIN_MS), waiting]);
  }
  if (nudges.size === 0) return '';
  return `, then nudged ${[...nudges].map(([key, n]) => (n > 1 ? `${key} x${n}` : key)).join(', ')}`;
}

export function killServer(env: TrialEnv, point: KillPoint): Disruption {
  const server = env.stack.temporal;
  return {
    crash: true,
    async apply(waiting) {
      const hitAt = await atKillPoint(env, point, waiting, () => server.kill());
      const what = `kill -9 the Temporal server at ${describeKillPoint(point)}`;
      if (hitAt === undefined) return { what: `${what}: missed, the runs ended first` };
      const pause = env.random.int(1_000, 3_000);
      await sleep(pause);
      await server.start();
      return { hitAt, resumedAt: server.readyAt, what: `${what}, restarted on its database after ${pause} ms` };
    },
  };
}
