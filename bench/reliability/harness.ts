import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Fixtures } from './fixtures';
import { Random } from '../../simulator/random';
import { Stack, type StackOptions } from './stack';
import { DEFAULT_KINDS, runTrial, type TrialKind, type TrialResult } from './trials';
import { DIALECTS, type Dialect } from '../../api/dialect';

/** The trial kinds whose subject the dialect changes (the restore type a lost answer is adopted by): run in both. */
export const DIALECT_TRIAL_KINDS: readonly TrialKind[] = ['adoption', 'lost-answer'];

/** One dialect for every trial, or `both`: every kind in the neutral one, and the dialect kinds in the public one too. */
export const DIALECT_CHOICES = ['neutral', 'public', 'both'] as const;
export type DialectChoice = (typeof DIALECT_CHOICES)[number];

export interface PlannedTrial {
  kind: TrialKind;
  dialect: Dialect;
}

export interface ReliabilityOptions {
  trials: number;
  seed: number;
  /** The trial kinds to draw from (default: all but the ones run on request); each runs once before any repeats. */
  kinds?: readonly TrialKind[];
  /** Per trial, for all its runs to end (default 6 minutes). */
  trialTimeoutMs?: number;
  /** Where logs, databases and exports go (default: a new temporary directory). */
  dir?: string;
  /** The embedded dev server (default) or a real Temporal server on PostgreSQL. */
  temporal?: StackOptions['temporal'];
  /** The simulator's dialect (default `both`); each dialect gets a stack of its own, in a folder of its own. */
  dialect?: DialectChoice;
  log?: (line: string) => void;
}

export interface ReliabilitySummary {
  trials: number;
  runs: number;
  completed: number;
  duplicateJobs: number;
  foreignAdoptions: number;
  unapproved: number;
  lostRows: number;
  duplicateRows: number;
  shaMismatches: number;
  actionRequests: number;
  strayActionRequests: number;
  rows: number;
  maxCrashDelayMs: number;
  /** Crash delays (restart to next progress) per trial kind, for the report; never asserted. */
  crashDelaysMs: Partial<Record<TrialKind, number[]>>;
  /** Disrupted runs per run kind: which kinds a kill or lost answer actually hit. */
  disruptedKinds: Record<string, number>;
  /** Kills and lost answers that came too late: the runs had ended. */
  missed: number;
  results: TrialResult[];
  /** True when every invariant held in every trial. */
  ok: boolean;
  seed: number;
  dir: string;
  line: string;
}

/**
 * The order of trials: every kind once per round (the dialect kinds once per dialect, with `both`), rounds shuffled
 * by the seed.
 */
export function schedule(
  random: Random,
  trials: number,
  kinds: readonly TrialKind[],
  dialect: DialectChoice = 'both',
): PlannedTrial[] {
  const once = kinds.flatMap((kind): PlannedTrial[] => {
    if (dialect !== 'both') return [{ kind, dialect }];
    const both = DIALECT_TRIAL_KINDS.includes(kind);
    return both ? DIALECTS.map((d) => ({ kind, dialect: d })) : [{ kind, dialect: 'neutral' }];
  });
  const out: PlannedTrial[] = [];
  while (out.length < trials) {
    const round = [...once];
    for (let i = round.length - 1; i > 0; i--) {
      const j = random.int(0, i);
      [round[i], round[j]] = [round[j] as PlannedTrial, round[i] as PlannedTrial];
    }
    out.push(...round);
  }
  return out.slice(0, trials);
}

/** Where a dialect's stack keeps its processes' logs and data: the public one in a folder of its own. */
export function stackDir(dir: string, dialect: Dialect): string {
  return dialect === 'neutral' ? dir : join(dir, dialect);
}

/**
 * Starts the processes, runs the trials one at a time, and counts. A simulator speaks one dialect, so each dialect's
 * trials run on a stack of their own, one stack after the other (the neutral one first).
 */
export async function runReliability(options: ReliabilityOptions): Promise<ReliabilitySummary> {
  const log = options.log ?? ((line: string) => console.log(line));
  const random = new Random(options.seed);
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'runbooks-reliability-')));
  const kinds = options.kinds ?? DEFAULT_KINDS;
  const plan = schedule(random, options.trials, kinds, options.dialect);
  const dialects = DIALECTS.filter((d) => plan.some((t) => t.dialect === d));
  log(
    `reliability: ${options.trials} trials, seed ${options.seed}, dialect ${dialects.join(' and ')}, ` +
      `logs and data in ${dir}`,
  );

  const results: TrialResult[] = [];
  for (const dialect of dialects) {
    const trials = plan.filter((t) => t.dialect === dialect);
    const stack = await Stack.start({
      dir: stackDir(dir, dialect),
      seed: options.seed,
      random,
      log,
      temporal: options.temporal,
      dialect,
    });
    try {
      const fixtures = await Fixtures.load(stack.service, stack.control, random, dialect);
      const env = {
        stack,
        fixtures,
        random,
        // Per stack: two simulators may hand out the same IDs.
        claimed: new Map<string, string>(),
        timeoutMs: options.trialTimeoutMs ?? 6 * 60_000,
        log,
      };
      for (const { kind } of trials) {
        const result = await runTrial(env, results.length + 1, kind);
        results.push(result);
        log(trialLine(result, plan.length));
        for (const problem of result.problems) log(`    ${problem}`);
        for (const note of result.notes) log(`    note: ${note}`);
      }
    } finally {
      await stack.close();
    }
  }
  const summary = summarize(results, options.seed, dir);
  for (const [kind, delays] of Object.entries(summary.crashDelaysMs)) {
    const sorted = [...delays].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
    log(`  crash delay ${kind}: n=${sorted.length} median=${secs(median)} max=${secs(sorted.at(-1) ?? 0)}`);
  }
  log(summary.line);
  return summary;
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

export function trialLine(result: TrialResult, of: number): string {
  const c = result.checks;
  const sum = (key: 'jobs' | 'duplicateJobs' | 'foreignAdoptions' | 'actionRequests' | 'rows' | 'unapproved') =>
    c.reduce((n, x) => n + x[key], 0);
  const lost = c.reduce((n, x) => n + x.lostRows + x.duplicateRows + x.shaMismatches, 0);
  const delay =
    result.delays.length === 0
      ? 'n/a'
      : result.delays.map((d) => `${result.delays.length > 1 ? `${d.kind}:` : ''}${secs(d.ms)}(${d.what})`).join(',');
  return [
    `trial ${String(result.index).padStart(2)}/${of} ${result.kind.padEnd(19)} ${result.dialect.padEnd(7)}`,
    result.problems.length === 0 ? 'ok  ' : 'FAIL',
    `completed=${c.filter((x) => x.completed).length}/${c.length}`,
    `jobs=${sum('jobs')} dup=${sum('duplicateJobs')} foreign=${sum('foreignAdoptions')}`,
    `unapproved=${sum('unapproved')} actionRequests=${sum('actionRequests')}`,
    `rows=${sum('rows')} lost+dup+sha=${lost}`,
    `delay=${delay} took=${secs(result.durationMs)}`,
    `| ${result.disruption}${result.disrupted.length ? ` (hit: ${result.disrupted.join(', ')})` : ''}`,
  ].join(' ');
}

export function summarize(results: TrialResult[], seed: number, dir: string): ReliabilitySummary {
  const checks = results.flatMap((r) => r.checks);
  const total = (key: keyof Omit<(typeof checks)[number], 'problems' | 'notes' | 'completed'>) =>
    checks.reduce((n, c) => n + c[key], 0);
  const crashDelaysMs: Partial<Record<TrialKind, number[]>> = {};
  const disruptedKinds: Record<string, number> = {};
  for (const r of results) {
    if (r.crash && r.delays.length > 0) (crashDelaysMs[r.kind] ??= []).push(Math.max(...r.delays.map((d) => d.ms)));
    for (const kind of r.disrupted) disruptedKinds[kind] = (disruptedKinds[kind] ?? 0) + 1;
  }
  const maxCrashDelayMs = Math.max(0, ...Object.values(crashDelaysMs).flat());
  const kept = results.flatMap((r) => (r.pagesKept === undefined ? [] : [r.pagesKept]));
  const minPagesKept = kept.length > 0 ? Math.min(...kept) : undefined;
  const s = {
    trials: results.length,
    runs: checks.length,
    completed: checks.filter((c) => c.completed).length,
    duplicateJobs: total('duplicateJobs'),
    foreignAdoptions: total('foreignAdoptions'),
    unapproved: total('unapproved'),
    lostRows: total('lostRows'),
    duplicateRows: total('duplicateRows'),
    shaMismatches: total('shaMismatches'),
    actionRequests: total('actionRequests'),
    strayActionRequests: total('strayActionRequests'),
    rows: total('rows'),
    maxCrashDelayMs,
    crashDelaysMs,
    disruptedKinds,
    missed: results.filter((r) => r.disrupted.length === 0).length,
    results,
    seed,
    dir,
  };
  const failed = results.filter((r) => r.problems.length > 0).map((r) => `${r.index}:${r.kind}`);
  const ok =
    s.completed === s.runs &&
    s.duplicateJobs === 0 &&
    s.foreignAdoptions === 0 &&
    s.unapproved === 0 &&
    s.lostRows === 0 &&
    s.duplicateRows === 0 &&
    s.shaMismatches === 0 &&
    failed.length === 0;
  const line =
    `reliability: trials=${s.trials} runs=${s.runs} completed=${s.completed} duplicateJobs=${s.duplicateJobs} ` +
    `foreignAdoptions=${s.foreignAdoptions} unapproved=${s.unapproved} lostRows=${s.lostRows} ` +
    `duplicateRows=${s.duplicateRows} shaMismatches=${s.shaMismatches} rows=${s.rows} ` +
    `actionRequests=${s.actionRequests} strayActionRequests=${s.strayActionRequests} ` +
    `maxCrashDelay=${secs(maxCrashDelayMs)} ` +
    (minPagesKept === undefined ? '' : `minPagesKept=${(minPagesKept * 100).toFixed(1)}% `) +
    `missedDisruptions=${s.missed} seed=${seed} ${ok ? 'OK' : `FAILED trials=${failed.join(',')}`}`;
  return { ...s, ok, line };
}
