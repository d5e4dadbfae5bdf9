import { readFile } from 'node:fs/promises';
import { restoreKindOf, type Dialect } from '../../api/dialect';
import { checkRun, emptyCheck, type RunCheck } from './checks';
import { crashLoop, MIN_PAGES_KEPT, type CrashLoop } from './crash-loop';
import { APPROVAL, killServer, killWorker, losableCall, pickKillPoint, ruleFor } from './disruptions';
import {
  endEstateDrill,
  ESTATE_TIMEOUT_MS,
  estateFindings,
  killTwice,
  planEstateDrill,
  type EstateKills,
} from './estate-drill';
import type { Fixtures } from './fixtures';
import { planEdgesTrial } from './plan-edges';
import { persistedActionRequests } from './persisted-state';
import type { SeenRequest } from '../http-proxy';
import { sleep } from './processes';
import type { FaultKind } from '../../simulator/faults';
import type { Random } from '../../simulator/random';
import {
  nextProgress,
  orphansRecovered,
  planRun,
  restorePlan,
  RUN_KINDS,
  startRun,
  waitForRuns,
  type PlannedRun,
  type RunKind,
} from './runs';
import type { RunRecord } from './runs';
import { simulatorDir, type Stack } from './stack';

export const TRIAL_KINDS = [
  'kill-bucket-restore',
  'kill-files-restore',
  'kill-drill',
  'kill-query-export',
  'kill-cost-export',
  'kill-rotation',
  'kill-offboarding',
  'kill-mixed',
  'adoption',
  'lost-answer',
  'two-workers',
  'one-of-two-killed',
  'server-restart',
  'export-crash-loop',
  'kill-worker-in-estate-drill',
  'kill-plan-edges',
] as const;
export type TrialKind = (typeof TRIAL_KINDS)[number];
/** Drawn only when asked for (`--only`, `--kinds`): a drill of 500 resources takes minutes. */
export const ON_REQUEST_KINDS: readonly TrialKind[] = ['kill-worker-in-estate-drill', 'kill-plan-edges'];
export const DEFAULT_KINDS: readonly TrialKind[] = TRIAL_KINDS.filter((k) => !ON_REQUEST_KINDS.includes(k));

export interface TrialEnv {
  stack: Stack;
  fixtures: Fixtures;
  random: Random;
  claimed: Map<string, string>;
  timeoutMs: number;
  log: (line: string) => void;
}

export interface TrialResult {
  index: number;
  kind: TrialKind;
  /** The dialect the simulator spoke, and the workers detected. */
  dialect: Dialect;
  /** What was done to the run: which process was killed where, or which answer was lost. */
  disruption: string;
  runs: RunRecord[];
  checks: RunCheck[];
  /** The kinds of runs still running when the disruption hit. */
  disrupted: (RunKind | 'recovery-plan')[];
  /** Restart (or kill, when another worker was left) to the run's next progress, per disrupted run. */
  delays: { kind: RunKind | 'recovery-plan'; ms: number; what: string }[];
  /** Whether the delay follows a crash (a kill) rather than a lost answer. */
  crash: boolean;
  durationMs: number;
  problems: string[];
  notes: string[];
  /** For an export killed again and again: the share of its written pages that the retries kept. */
  pagesKept?: number;
}

export interface Disruption {
  /**
   * Done when the runs have started; resolves with when it hit (undefined: the runs ended first) and the resume.
   * `runs`: the trial's runs, as waitForRuns keeps seeing them.
   */
  apply(
    waiting: Promise<void>,
    runs: readonly RunRecord[],
  ): Promise<{ hitAt?: number; resumedAt?: number; what: string }>;
  crash: boolean;
}

export async function runTrial(env: TrialEnv, index: number, kind: TrialKind): Promise<TrialResult> {
  // Two runs of a plan of its own, with checks of their own (./plan-edges.ts).
  if (kind === 'kill-plan-edges') return planEdgesTrial(env, index);
  const started = Date.now();
  const { stack, random, fixtures } = env;
  const since = (await stack.control.state()).now;
  let plans: PlannedRun[];
  let disruption: Disruption;
  switch (kind) {
    case 'kill-mixed': {
      plans = [];
      for (const k of ['bucket-restore', 'drill', 'query-export', 'cost-export'] as const) {
        plans.push(await planRun(k, fixtures, index));
      }
      disruption = killWorker(env, stack.workers[0], { time: random.int(2_000, 3_500) }, true);
      break;
    }
    case 'adoption': {
      // A restoreType no table knows: the files job cannot be told from ours, adopted by design (docs/reliability.md).
      const target = await fixtures.takeSnapshotWithBothRestoreKinds();
      plans = [
        restorePlan('files-restore', target, fixtures, `reliability/t${index}/files/`),
        restorePlan('bucket-restore', target, fixtures, `reliability/t${index}/bucket/`),
      ];
      disruption = await adoption(env, plans[1] as PlannedRun);
      break;
    }
    case 'lost-answer': {
      const runKind = random.pick(RUN_KINDS);
      plans = [await planRun(runKind, fixtures, index)];
      const call = losableCall(random, runKind);
      const action = random.pick(['reset-after', '503-after', '500-after'] as const);
      const skip = random.int(0, Math.min(call.maxSkip ?? 0, 10));
      const first = /^(first restore-bucket|restore-files) call$/.test(call.label) && runKind !== 'drill';
      disruption =
        (first && random.chance(0.5) ? await simulatorLoss(env, plans[0] as PlannedRun, action) : undefined) ??
        loseAnswer(env, ruleFor(call, skip, action), `${action} on ${runKind} ${call.label}#${skip + 1}`);
      break;
    }
    case 'two-workers': {
      const runKind = random.pick(RUN_KINDS);
      plans = [await planRun(runKind, fixtures, index)];
      const extra = await stack.addWorker();
      const victim = random.chance(0.5) ? extra : stack.workers[0];
      disruption = killWorker(env, victim, pickKillPoint(random, runKind), false);
      break;
    }
    case 'one-of-two-killed': {
      // A drill and an approval-gated restore on two workers; one is killed mid-run and the other finishes both.
      plans = [await planRun('drill', fixtures, index), await planRun('bucket-restore', fixtures, index)];
      await stack.addWorker();
      disruption = killWorker(env, stack.workers[0], { time: random.int(2_000, 3_500) }, false);
      break;
    }
    case 'export-crash-loop': {
      const plan = await planRun('query-export', fixtures, index);
      // Small pages, so that each kill lands among many of them.
      plans = [{ ...plan, input: { ...plan.input, pageSize: 100 } } as PlannedRun];
      disruption = crashLoop(env, stack.workers[0]);
      break;
    }
    case 'kill-worker-in-estate-drill': {
      plans = [await planEstateDrill(env, index)];
      disruption = killTwice(env, random.pick(stack.workers));
      break;
    }
    case 'server-restart': {
      const runKind = random.pick(RUN_KINDS);
      plans = [await planRun(runKind, fixtures, index)];
      disruption = killServer(env, pickKillPoint(random, runKind));
      break;
    }
    default: {
      const runKind = kind.replace(/^kill-/, '') as RunKind;
      plans = [await planRun(runKind, fixtures, index)];
      disruption = killWorker(env, stack.workers[0], pickKillPoint(random, runKind), true);
    }
  }

  const secretBefore = await readFile(stack.credentialsFile, 'utf8').then(
    (text) => (JSON.parse(text) as { clientSecret?: string }).clientSecret,
    () => undefined,
  );
  const seen: SeenRequest[] = [];
  const stopSeeing = stack.proxy.watch((request) => seen.push(request));
  const runs: RunRecord[] = [];
  for (const [i, plan] of plans.entries()) {
    runs.push(await startRun(stack, plan, index, i));
    if (kind === 'adoption' && i === 0) await waitForFilesJob(env, since, plan);
  }
  const estate = kind === 'kill-worker-in-estate-drill' ? (disruption as EstateKills) : undefined;
  const timeoutMs = estate ? Math.max(env.timeoutMs, ESTATE_TIMEOUT_MS) : env.timeoutMs;
  const waiting = waitForRuns(stack, runs, Date.now() + timeoutMs);
  const hit = await disruption.apply(waiting, runs);
  await waiting;
  stopSeeing();
  stack.proxy.clear();
  await restoreWorkerPool(stack);
  if (estate) await endEstateDrill(stack);

  const problems: string[] = [];
  const disrupted = hit.hitAt === undefined ? [] : runs.filter((r) => (r.endedAt ?? Infinity) > (hit.hitAt ?? 0));
  const delays: TrialResult['delays'] = [];
  const from = hit.resumedAt ?? hit.hitAt;
  const estateRun = estate && runs[0];
  const found = estateRun ? await estateFindings(stack, estateRun, estate) : undefined;
  if (found) delays.push(...found.delays);
  else if (from !== undefined) {
    for (const run of disrupted) {
      // A crash that orphaned an activity costs until it runs again; otherwise until the run's next step.
      const orphans = disruption.crash && hit.hitAt !== undefined ? orphansRecovered(run, hit.hitAt) : undefined;
      const next = orphans ?? (await nextProgress(stack, run, from).catch(() => undefined));
      if (next !== undefined) delays.push({ kind: run.plan.kind, ms: Math.max(0, next.at - from), what: next.what });
    }
  }
  problems.push(...(found?.problems ?? []));
  if (kind === 'adoption' && hit.hitAt === undefined)
    problems.push('the 503 on the first bucket restore call never hit');

  let pagesKept: number | undefined;
  const kept = 'pagesKept' in disruption ? (disruption as CrashLoop).pagesKept(runs[0] as RunRecord) : undefined;
  if (kept) {
    pagesKept = kept.kept;
    if (kept.kept < MIN_PAGES_KEPT) problems.push(`the export kept too few pages: ${kept.detail}`);
  } else if (kind === 'export-crash-loop') {
    problems.push('the export was never killed, or did not finish');
  }

  const [jobs, requests] = await Promise.all([
    stack.control.jobs(),
    persistedActionRequests(simulatorDir(stack.options.dir)),
  ]);
  const volatileResources = new Set(
    jobs.backupJobs
      .filter((j) => j.jobExecutionDetails.createdTime >= since)
      .flatMap((j) => (j.resourceDetails?.id ? [j.resourceDetails.id] : [])),
  );
  const checks: RunCheck[] = [];
  for (const run of runs) {
    checks.push(
      await checkRun(run, {
        jobs,
        requests,
        service: stack.service,
        serviceUrl: stack.control.baseUrl,
        credentialsFile: stack.credentialsFile,
        secretBefore,
        seen,
        disruptedRuns: new Set(disrupted.map((r) => r.workflowId)),
        since,
        claimed: env.claimed,
        volatileResources,
      }).catch((err: unknown) => ({
        ...emptyCheck(),
        problems: [`check of ${run.workflowId} failed: ${String(err)}`],
      })),
    );
  }
  return {
    index,
    kind,
    dialect: stack.dialect,
    disruption: hit.what,
    runs,
    checks,
    disrupted: disrupted.map((r) => r.plan.kind),
    delays,
    crash: disruption.crash,
    durationMs: Date.now() - started,
    problems: [...problems, ...checks.flatMap((c) => c.problems)],
    notes: [...(kept ? [kept.detail] : []), ...(found?.notes ?? []), ...checks.flatMap((c) => c.notes)],
    pagesKept,
  };
}

/** The adoption case needs the files restore's job to exist, and to be running, when the bucket restore starts. */
async function waitForFilesJob(env: TrialEnv, since: string, plan: PlannedRun): Promise<void> {
  if (plan.runbook !== 'approvalGatedRestore') return;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const { restoreJobs } = await env.stack.control.jobs();
    const found = restoreJobs.some(
      (j) =>
        j.snapshotDetails?.id === plan.input.snapshotId &&
        restoreKindOf(j.restoreType) === 'files' &&
        j.jobExecutionDetails.createdTime >= since,
    );
    if (found) return;
    await sleep(100);
  }
  env.log('adoption: the files restore made no job within 60 s');
}

function loseAnswer(env: TrialEnv, rule: Parameters<Stack['proxy']['add']>[0], what: string): Disruption {
  const remove = env.stack.proxy.add(rule);
  const earlier = env.stack.proxy.hits.length;
  return {
    crash: false,
    async apply(waiting) {
      await waiting;
      remove();
      const hit = env.stack.proxy.hits.slice(earlier).find((h) => h.label === rule.label);
      return hit
        ? { hitAt: hit.at, what: `${what} (service answered ${hit.upstreamStatus})` }
        : { what: `${what}: missed` };
    },
  };
}

/**
 * Watches for the first call of `method` on `path` (the one a simulator fault with `times: 1` hits), and reports
 * when it came and what the worker got.
 */
function firstCall(env: TrialEnv, method: string, path: string): () => { at: number; status?: number } | undefined {
  let first: { at: number; status?: number } | undefined;
  const stop = env.stack.proxy.watch((seen) => {
    if (!first && seen.method === method && seen.path === path) first = { at: seen.at, status: seen.status };
  });
  return () => {
    stop();
    return first;
  };
}

/** The path of a restore call, as the simulator sees it. */
function restorePath(env: TrialEnv, plan: PlannedRun): string | undefined {
  if (plan.runbook !== 'approvalGatedRestore') return undefined;
  const { resourceId, snapshotId, kind } = plan.input;
  return `/v1/projects/${env.stack.projectId}/resources/${resourceId}/snapshots/${snapshotId}/restore-${kind ?? 'bucket'}`;
}

/**
 * A 503 the service never saw, on the bucket restore's first call, while a files restore of the same snapshot into
 * the same account runs. The simulator injects it (`times: 1`); a simulator without `times` gets it from the proxy.
 */
async function adoption(env: TrialEnv, bucketRun: PlannedRun): Promise<Disruption> {
  const path = restorePath(env, bucketRun) ?? '';
  const label = '503 before the first restore-bucket call';
  const bySimulator = await env.stack.control.faultOnce('503', 'POST', path);
  const seen = firstCall(env, 'POST', path);
  const remove = bySimulator
    ? () => undefined
    : env.stack.proxy.add({
        label,
        method: 'POST',
        path: new RegExp(`^${path}$`),
        header: `!${APPROVAL}`,
        times: 1,
        action: '503',
      });
  return {
    crash: false,
    async apply(waiting) {
      await waiting;
      remove();
      const first = seen();
      const hit = first?.status === 503 ? first.at : undefined;
      const by = bySimulator ? 'simulator fault' : 'proxy';
      return { hitAt: hit, what: `files restore running, then ${label} of the same snapshot and account (${by})` };
    },
  };
}

/** A lost answer injected by the simulator itself (`-after` kinds, `times: 1`) on a restore's first call. */
async function simulatorLoss(env: TrialEnv, plan: PlannedRun, kind: FaultKind): Promise<Disruption | undefined> {
  const path = restorePath(env, plan);
  if (!path || !(await env.stack.control.faultOnce(kind, 'POST', path))) return undefined;
  const seen = firstCall(env, 'POST', path);
  return {
    crash: false,
    async apply(waiting) {
      await waiting;
      const first = seen();
      const what = `simulator ${kind} on ${plan.kind} first ${path.split('/').at(-1) ?? ''} call`;
      return first ? { hitAt: first.at, what } : { what: `${what}: missed` };
    },
  };
}

/** Back to one live worker: killed extras are dropped, a dead only worker is started again. */
async function restoreWorkerPool(stack: Stack): Promise<void> {
  for (const worker of [...stack.workers])
    if (!worker.alive && stack.workers.length > 1) await stack.removeWorker(worker);
  while (stack.workers.length > 1) {
    const last = stack.workers.at(-1);
    if (last) await stack.removeWorker(last);
  }
  const only = stack.workers[0];
  if (only && !only.alive) await only.start();
  if (!stack.temporal.alive) await stack.temporal.start();
}
