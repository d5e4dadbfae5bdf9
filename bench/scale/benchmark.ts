// `npm run bench -- --only scale`: real drills (`drDrill`, fresh snapshots: a backup and a restore per resource) of
// 2,000 and then 5,000 resources (`--quick`: 400) on the simulator, with a cap of 20 running on-demand backups and
// short jobs, run by three worker processes on one task queue. For each it prints the drill's wall time against the
// ideal for the cap, the service calls per resource (in all and per endpoint), the largest history of the drill's
// runs and of its batches, each worker's peak RSS, the share of take-snapshot calls answered 429, and the verdict.
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { endpointOf } from '../../api';
import { statusQuery } from '../../contracts';
import type { DrDrillInput, DrDrillResult } from '../../runbooks/dr-drill/contract';
import type { DrillReport } from '../../runbooks/dr-drill/report';
import { slotsQuery, snapshotSlotsWorkflowId } from '../../runbooks/snapshot-slots/contract';
import { PeakSampler } from '../export/memory';
import type { Benchmark, Measurement } from '../measure';
import { drillVaultAndAccount, generatedResources } from '../seeded';
import type { ManagedProcess } from '../reliability/processes';
import { BenchStack, processUsage } from '../waiting/stack';
import { drillHistories } from './histories';
import { slotTimes } from './slot-times';
import { capUtilisation, countPerWindow, idealDrillSeconds, idealFormula, type ScaleShape } from './ideal';

const CAP = 20;
const WORKERS = 3;
const PARALLELISM = 100;
/** Long enough that the cap, not the two cores, bounds the drill: 1,000 resources took about 40 s of CPU. */
const BACKUP_SECONDS = 3;
const RESTORE_SECONDS = 3;
const TASK_QUEUE = 'bench-scale';
/** Batches whose histories are read to follow their snapshot slots. */
const SLOT_BATCHES = 10;
/** How often the bench asks the drill's status while it runs (a query, answered by a worker). */
const STATUS_EVERY_MS = 15_000;
/** Set to a folder to profile each worker's CPU (`--cpu-prof`, one .cpuprofile per thread, written as it stops). */
const CPU_PROFILE_DIR = process.env.BENCH_SCALE_CPU_PROF;

interface ServedCall {
  at: number;
  endpoint: string;
  status?: number;
}

/** CPU seconds each process used between two readings. */
function cpuSince(before: Map<string, number>, processes: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, pid] of processes) out.set(name, processUsage(pid).cpuSeconds - (before.get(name) ?? 0));
  return out;
}

/** The resources that did not pass, with their reasons, from the drill's report (the first ten). */
async function logUnpassed(reportJson: string, log: (line: string) => void): Promise<void> {
  const report = JSON.parse(await readFile(reportJson, 'utf8')) as DrillReport;
  const unpassed = report.resources.filter((r) => r.verdict !== 'PASS');
  for (const r of unpassed.slice(0, 10)) log(`  ${r.verdict} ${r.resourceId}: ${r.reasons.join('; ')}`);
  if (unpassed.length > 10) log(`  and ${unpassed.length - 10} more (${reportJson})`);
}

/** What the project's limiter of snapshot starts learned, and its history's length (it outlives drills). */
async function logLimiter(stack: BenchStack, log: (line: string) => void): Promise<void> {
  const limiter = stack.client.workflow.getHandle(snapshotSlotsWorkflowId(stack.projectId));
  try {
    const [slots, described] = await Promise.all([limiter.query(slotsQuery), limiter.describe()]);
    log(`limiter: ${JSON.stringify(slots)}; its current run's history ${described.historyLength} events`);
  } catch (err) {
    log(`limiter: not asked (${String(err)})`);
  }
}

/** Where a slot's time went (./slot-times.ts), in the given batches. */
async function logSlotTimes(stack: BenchStack, batchIds: string[], log: (line: string) => void): Promise<void> {
  const { backupJobs } = await stack.control.jobs();
  const jobEnds = new Map(
    backupJobs.map((j) => [j.jobExecutionDetails.jobId, Date.parse(j.jobExecutionDetails.endTime ?? '')]),
  );
  const slots = await slotTimes(stack.client, batchIds, snapshotSlotsWorkflowId(stack.projectId), jobEnds);
  const ms = (n: number) => `${(n / 1000).toFixed(2)} s`;
  log(
    `a slot, median of ${slots.slots} in ${batchIds.length} batches: asked to granted ${ms(slots.waitForGrant)} ` +
      `(of which the grant signal's delivery ${ms(slots.grantDelivery)}), granted to backup started ` +
      `${ms(slots.grantToStarted)}, started to the job's end ${ms(slots.job)}, the job's end to the slot's release ` +
      `${ms(slots.jobEndToRelease)}; at the limiter, a release to its next grant ${ms(slots.releaseToNextGrant)}`,
  );
}

/** The drills of a full run, one after the other, each on a stack of its own; `BENCH_SCALE_SIZES=a,b` chooses others. */
const FULL_SIZES = [2_000, 5_000];
const QUICK_SIZES = [400];

export const scaleBenchmark: Benchmark = {
  name: 'scale',
  async run({ quick, log }) {
    const chosen = process.env.BENCH_SCALE_SIZES?.split(',').map(Number);
    const sizes = chosen ?? (quick ? QUICK_SIZES : FULL_SIZES);
    const out: Measurement[] = [];
    for (const resources of sizes) out.push(...(await oneDrill(resources, log)));
    return out;
  },
};

/** One drill of `resources` generated resources, on a stack of its own, and what it measured. */
async function oneDrill(resources: number, log: (line: string) => void): Promise<Measurement[]> {
  const shape: ScaleShape = {
    resources,
    cap: CAP,
    backupSeconds: BACKUP_SECONDS,
    restoreSeconds: RESTORE_SECONDS,
    checkSeconds: 0,
  };
  const idealSeconds = idealDrillSeconds(shape);
  const dir = mkdtempSync(join(tmpdir(), 'bench-scale-'));
  // The simulator stands in for the service: in memory, so that what is measured is the drill, not its disk.
  const stack = await BenchStack.start(dir, log, { persist: false });
  const workers: ManagedProcess[] = [];
  let kept = true;
  try {
    // Reports and the drill's part files are read by whichever worker runs the next step: one shared folder.
    const env: NodeJS.ProcessEnv = { RUNBOOKS_OUTPUT_DIR: join(dir, 'shared-output') };
    const nodeArgs = CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${resolve(CPU_PROFILE_DIR)}`] : [];
    for (let i = 0; i < WORKERS; i++) workers.push(await stack.startWorker(TASK_QUEUE, env, nodeArgs));
    const ids = (await generatedResources(stack.control, stack.service, resources)).map((r) => r.id);
    const { vaultId, restoreAccountId } = await drillVaultAndAccount(stack.service);
    await stack.control.jobsConfig({
      backupSeconds: BACKUP_SECONDS,
      restoreSeconds: RESTORE_SECONDS,
      maxConcurrentBackups: CAP,
      outcomes: {},
    });

    const name = `scale-${Date.now().toString(36)}`;
    const input: DrDrillInput = {
      name,
      resources: { ids },
      vaultId,
      restoreAccountId,
      destination: { bucketA: { bucketName: 'dr-drill-restores', prefix: `bench/${name}/` } },
      targets: { rpoSeconds: 30 * 86400, rtoSeconds: 3600 },
      recoveryPoint: { select: 'fresh' },
      parallelism: PARALLELISM,
    };
    const drillId = `drill-${name}`;

    // Every call the simulator serves from the drill's start to its end, as the proxy in front of it saw it.
    const calls: ServedCall[] = [];
    let counting = false;
    stack.proxy.watch((seen) => {
      if (counting) {
        const method = seen.method as Parameters<typeof endpointOf>[0]['method'];
        calls.push({ at: seen.at, endpoint: endpointOf({ method, path: seen.path }), status: seen.status });
      }
    });
    const pids = new Map<string, number>();
    workers.forEach((w, i) => pids.set(`worker-${i + 1}`, w.pid ?? NaN));
    pids.set('temporal dev server', stack.temporal.pid ?? NaN);
    pids.set('simulator', stack.simulator.pid ?? NaN);
    const cpuBefore = new Map([...pids].map(([n, pid]) => [n, processUsage(pid).cpuSeconds]));
    const benchCpuBefore = process.cpuUsage();
    const samplers = workers.map((w) => new PeakSampler(w.pid ?? NaN, 1_000));

    log(`drill ${drillId}: ${resources} resources, parallelism ${PARALLELISM}, ${WORKERS} workers, cap ${CAP}`);
    log(`ideal: ${idealFormula(shape)}`);
    counting = true;
    const began = Date.now();
    const handle = await stack.client.workflow.start('drDrill', {
      taskQueue: TASK_QUEUE,
      workflowId: drillId,
      args: [input],
    });
    // Where the drill is, every STATUS_EVERY_MS: what was done, what waits for a slot, and the 429s so far.
    const progress = setInterval(() => {
      const starts = calls.filter((c) => c.endpoint.endsWith('/take-snapshot'));
      const throttled = starts.filter((c) => c.status === 429).length;
      const started = starts.filter((c) => c.status === 202);
      const now = Date.now();
      const running = started.filter((c) => c.at > now - BACKUP_SECONDS * 1000).length;
      void stack.client.workflow
        .getHandle(drillId)
        .query(statusQuery)
        .then(
          ({ drill }) =>
            log(
              `  ${((Date.now() - began) / 1000).toFixed(0)} s: done ${drill?.done ?? '?'}/${resources}, ` +
                `running ${drill?.running ?? '?'}, waiting for a slot ${drill?.waitingForSlot ?? '?'}, ` +
                `batches running ${drill?.batches.running ?? '?'}; backups started ${started.length}, 429s ` +
                `${throttled}, running at the service ${running}/${CAP}`,
            ),
          (err: unknown) => log(`  status not answered: ${String(err)}`),
        );
    }, STATUS_EVERY_MS);
    let result: DrDrillResult;
    try {
      result = (await handle.result()) as DrDrillResult;
    } finally {
      clearInterval(progress);
      counting = false;
    }
    const finished = Date.now();
    const peaks = samplers.map((s) => s.stop());
    const cpu = cpuSince(cpuBefore, pids);
    const benchCpu = process.cpuUsage(benchCpuBefore);
    cpu.set('bench (proxy)', (benchCpu.user + benchCpu.system) / 1e6);

    // The drill's wall time as Temporal has it: its first run's start to its last run's close.
    const first = await stack.client.workflow.getHandle(drillId, handle.firstExecutionRunId).describe();
    const last = await stack.client.workflow.getHandle(drillId).describe();
    const wallSeconds = ((last.closeTime?.getTime() ?? finished) - first.startTime.getTime()) / 1000;
    const histories = await drillHistories(stack.client, drillId);

    const snapshotCalls = calls.filter((c) => c.endpoint.endsWith('/take-snapshot'));
    const throttled = snapshotCalls.filter((c) => c.status === 429).length;
    const accepted = snapshotCalls.filter((c) => c.status === 202).map((c) => c.at);
    const throttledShare = snapshotCalls.length === 0 ? 0 : throttled / snapshotCalls.length;
    const perEndpoint = new Map<string, number>();
    for (const c of calls) perEndpoint.set(c.endpoint, (perEndpoint.get(c.endpoint) ?? 0) + 1);
    const firstBackup = Math.min(...accepted);
    const lastBackupEnd = Math.max(...accepted) + BACKUP_SECONDS * 1000;
    const utilisation = capUtilisation(accepted, BACKUP_SECONDS, CAP);
    const totalCpu = [...cpu.values()].reduce((a, b) => a + b, 0);
    const { summary } = result;

    log(`drill: ${summary.verdict}, ${summary.passed} passed, ${summary.failed} failed of ${summary.total}`);
    if (summary.passed !== summary.total) await logUnpassed(result.report.json, log);
    log(`wall ${wallSeconds.toFixed(1)} s (${(finished - began) / 1000} s seen by the bench), ideal ${idealSeconds} s`);
    log(
      `start to the first backup accepted ${((firstBackup - began) / 1000).toFixed(1)} s; ` +
        `the last backup's end to the drill's end ${((finished - lastBackupEnd) / 1000).toFixed(1)} s; ` +
        `the cap kept ${(utilisation * 100).toFixed(1)}% busy from the first backup to the last one's end`,
    );
    log(
      `CPU seconds: ${[...cpu].map(([n, s]) => `${n} ${s.toFixed(1)}`).join(', ')}; ` +
        `${((totalCpu / wallSeconds / 2) * 100).toFixed(0)}% of 2 cores over the drill`,
    );
    // The cap allows cap / backupSeconds starts a second: what each 10 s of the drill got of it.
    const windows = countPerWindow(accepted, began, finished, 10_000);
    log(`backups accepted per 10 s (the cap allows ${((CAP / BACKUP_SECONDS) * 10).toFixed(0)}): ${windows.join(' ')}`);
    log(`parent runs' histories: ${histories.parentRuns.join(', ')} events; ${histories.children} batches`);
    await logLimiter(stack, log);
    // Where a slot's time went, in the first batches (their histories and the service's jobs).
    await logSlotTimes(stack, histories.childIds.slice(0, SLOT_BATCHES), log).catch((err: unknown) =>
      log(`slot times not read: ${String(err)}`),
    );
    if (histories.open.length > 0) log(`still open after the drill: ${histories.open.join(', ')}`);

    const worker = (i: number) => `worker-${i + 1}`;
    const setup =
      `${resources} resources, fresh snapshots, parallelism ${PARALLELISM}, ${WORKERS} worker processes, ` +
      `cap ${CAP}, ${BACKUP_SECONDS} s backups, ${RESTORE_SECONDS} s restores`;
    const out: Measurement[] = [
      {
        metric: `drill of ${resources} resources, cap ${CAP}: wall time`,
        unit: 's',
        value: wallSeconds,
        baseline: { name: 'the ideal for the cap', value: idealSeconds },
        ratio: wallSeconds / idealSeconds,
        goal: '≤1.10×',
        met: wallSeconds / idealSeconds <= 1.1,
        notes: `${setup}; ideal: ${idealFormula(shape)}; cap kept ${(utilisation * 100).toFixed(1)}% busy`,
      },
      {
        metric: `${resources} resources: service calls per resource`,
        unit: 'calls',
        value: calls.length / resources,
        goal: '≤8',
        met: calls.length / resources <= 8,
        notes: `${calls.length} calls served by the simulator from the drill's start to its end`,
      },
      ...[...perEndpoint]
        .sort((a, b) => b[1] - a[1])
        .map(([endpoint, n]) => ({
          metric: `  of which ${endpoint}`,
          unit: 'calls',
          value: n / resources,
          notes: `${n} calls`,
        })),
      {
        metric: `${resources} resources: largest history of the drill's runs (continued as new)`,
        unit: 'events',
        value: Math.max(...histories.parentRuns),
        goal: '≤2000',
        met: Math.max(...histories.parentRuns) <= 2_000,
        notes: `${histories.parentRuns.length} runs: ${histories.parentRuns.join(', ')} events`,
      },
      {
        metric: `${resources} resources: largest history of the drill's batches`,
        unit: 'events',
        value: histories.largestChild?.events ?? NaN,
        goal: '≤1000',
        met: (histories.largestChild?.events ?? Infinity) <= 1_000,
        notes: `${histories.children} batches; largest: ${histories.largestChild?.workflowId ?? 'none'}`,
      },
      ...peaks.map((p, i) => ({
        metric: `${resources} resources: ${worker(i)} peak RSS`,
        unit: 'MB',
        value: p.peak,
        goal: '≤600 MB',
        met: p.peak <= 600,
        notes: `idle before the drill ${p.idle.toFixed(0)} MB; CPU ${(cpu.get(worker(i)) ?? NaN).toFixed(1)} s`,
      })),
      {
        metric: `${resources} resources: take-snapshot calls answered 429`,
        unit: '%',
        value: throttledShare * 100,
        goal: '≤5%',
        met: throttledShare <= 0.05,
        notes: `${throttled} of ${snapshotCalls.length} take-snapshot calls`,
      },
      {
        metric: `${resources} resources: drill verdict ${summary.verdict}, resources passed`,
        unit: 'resources',
        value: summary.passed,
        goal: `all ${resources}, PASS`,
        met: summary.verdict === 'PASS' && summary.passed === resources,
        notes: `${summary.passed} passed, ${summary.partial ?? 0} partial, ${summary.failed} failed of ${summary.total}`,
      },
    ];
    // A drill that did not pass keeps its logs and report for a look.
    kept = summary.passed !== summary.total;
    return out;
  } finally {
    // A profiled worker writes its profiles as it exits: give it the time to.
    if (CPU_PROFILE_DIR) for (const w of workers) await w.stop(60_000);
    await stack.close();
    if (kept) log(`logs kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}
