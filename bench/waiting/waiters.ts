// Many approval-gated restores waiting on one worker, in two phases measured apart:
// - the start: every run started and its request submitted (the SUBMIT calls counted at the proxy);
// - the wait: a window that opens SETTLE after the last submit, so that no start's tail is in it.
// CPU and RSS are per process, from /proc: the worker (`node dist/worker/main.js`, its workflow thread included) on
// its own, the simulator and the Temporal dev server each on their own. The bench process, which runs the counting
// proxy, is none of them. The baseline is the same worker with RUNBOOKS_WAIT_LOOKS=attempts (one activity task per
// look, as before watches), on the same schedule, interleaved round by round.
import type { WorkflowHandle } from '@temporalio/client';
import { cpus } from 'node:os';
import { readdirSync, readFileSync } from 'node:fs';
import { compared, median, type Measurement } from '../measure';
import { startWaiting } from './approval';
import { processUsage, restoreTargets, sleep, type BenchStack } from './stack';

type Mode = 'watch' | 'attempts';
const SUBMIT = /\/action-approvals\/my-requests\/[^/]+\/submit$/;
const LOOK = /\/action-approvals\/my-requests\/[^/]+$/;
const SLICE_MS = 10_000;

interface Sample {
  /** Before any run: what the process holds for itself (Node, the SDK's core, the workflow bundle's context). */
  idleRssMb: number;
  startSeconds: number;
  startCpuPercent: number;
  peakRssMb: number;
  waitRssMb: number;
  cpuPercent: number;
  looksPerSecond: number;
  /** Worker CPU per look of the window: everything the worker did, divided by the looks it made. */
  cpuMsPerLook: number;
  simulatorCpuPercent: number;
  temporalCpuPercent: number;
  /** Every core of the machine, busy, in % of one core (2 busy cores: 200 %). */
  machineCpuPercent: number;
}

/** Busy and total jiffies of the whole machine, from /proc/stat. */
function machineTicks(): { busy: number; total: number } {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

/**
 * CPU seconds of a process's threads by group: its main JS thread, its other Node threads (the workflow thread, V8's
 * and libuv's helpers, all named node) and the SDK's native core (its threads named by Rust, e.g. tokio-runtime-w).
 */
function threadTicks(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const name = tid === String(pid) ? 'main thread' : comm === 'node' ? 'other node threads' : comm;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return byName;
}

/** Each thread group's share between two readings, in % of one core, busiest first: where a process's CPU went. */
function threadSplit(a: Map<string, number>, b: Map<string, number>, seconds: number): string {
  return [...b]
    .map(([name, t]) => [name, ((t - (a.get(name) ?? 0)) / seconds) * 100] as const)
    .filter(([, pct]) => pct >= 0.05)
    .sort((x, y) => y[1] - x[1])
    .map(([name, pct]) => `${name} ${pct.toFixed(1)} %`)
    .join(', ');
}

/** CPU seconds of the worker, the simulator, the dev server and the machine, read together. */
function usageOf(pids: { worker: number; simulator: number; temporal: number }) {
  return {
    at: Date.now(),
    worker: processUsage(pids.worker).cpuSeconds,
    simulator: processUsage(pids.simulator).cpuSeconds,
    temporal: processUsage(pids.temporal).cpuSeconds,
    machine: machineTicks(),
  };
}
type Usage = ReturnType<typeof usageOf>;

/** Each process's CPU between two readings, in % of one core. */
function percentBetween(a: Usage, b: Usage) {
  const seconds = (b.at - a.at) / 1000;
  const pct = (x: number, y: number) => ((y - x) / seconds) * 100;
  const machine = b.machine.total - a.machine.total;
  return {
    seconds,
    worker: pct(a.worker, b.worker),
    simulator: pct(a.simulator, b.simulator),
    temporal: pct(a.temporal, b.temporal),
    machine: machine > 0 ? ((b.machine.busy - a.machine.busy) / machine) * cpus().length * 100 : NaN,
  };
}

/** Action requests submitted since `from` (epoch ms), each counted once however often its submit was sent. */
function submittedRequests(stack: BenchStack, from: number): number {
  return new Set(
    stack.seen.filter((r) => r.at >= from && r.method === 'POST' && SUBMIT.test(r.path)).map((r) => r.path),
  ).size;
}

async function oneRound(
  stack: BenchStack,
  options: { runs: number; settleMs: number; windowMs: number; mode: Mode; label: string; log: (l: string) => void },
): Promise<Sample> {
  const { runs, windowMs, mode, log } = options;
  const taskQueue = `bench-waiters-${options.label}-${Date.now()}`;
  const worker = await stack.startWorker(taskQueue, { RUNBOOKS_WAIT_LOOKS: mode });
  const pids = { worker: worker.pid, simulator: stack.simulator.pid, temporal: stack.temporal.pid };
  if (pids.worker === undefined || pids.simulator === undefined || pids.temporal === undefined) {
    throw new Error('a process of the stack is not running');
  }
  const known = { worker: pids.worker, simulator: pids.simulator, temporal: pids.temporal };
  const handles: WorkflowHandle[] = [];
  let peakRssMb = 0;
  const sampler = setInterval(() => {
    try {
      peakRssMb = Math.max(peakRssMb, processUsage(known.worker).rssMb);
    } catch {
      // The worker is gone: the round fails on its own.
    }
  }, 250);
  // Every 10 s: each process's CPU and the looks, so that the log shows the start fade into the wait.
  let last = usageOf(known);
  const t0 = Date.now();
  const slicer = setInterval(() => {
    if (!worker.alive) return;
    const now = usageOf(known);
    const p = percentBetween(last, now);
    const looks = stack.countSince(last.at, LOOK, 'GET') / p.seconds;
    log(
      `  ${options.label} +${((now.at - t0) / 1000).toFixed(0)} s: worker ${p.worker.toFixed(1)} %, simulator ` +
        `${p.simulator.toFixed(1)} %, temporal ${p.temporal.toFixed(1)} %, machine ${p.machine.toFixed(0)} %, ` +
        `${looks.toFixed(1)} looks/s, RSS ${processUsage(known.worker).rssMb.toFixed(0)} MB`,
    );
    last = now;
  }, SLICE_MS);
  try {
    const { targets, restoreAccountId } = await restoreTargets(stack);
    await sleep(2_000);
    const idleRssMb = processUsage(known.worker).rssMb;
    const started = usageOf(known);
    for (let i = 0; i < runs; i += 50) {
      handles.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(50, runs - i) }, (_, j) =>
            startWaiting(stack, taskQueue, targets[(i + j) % targets.length] ?? targets[0]!, restoreAccountId),
          ),
        )),
      );
    }
    // Started: every run has submitted its request. Submits are counted by request, not by call: a submit retried
    // under load is one run, and counting calls opened the window while runs were still starting.
    while (submittedRequests(stack, started.at) < runs) {
      if (Date.now() - started.at > 30 * 60_000) {
        throw new Error(`only ${submittedRequests(stack, started.at)} of ${runs} submitted`);
      }
      await sleep(200);
    }
    const submitted = usageOf(known);
    const start = percentBetween(started, submitted);
    const resent = stack.countSince(started.at, SUBMIT, 'POST') - runs;
    log(
      `${options.label}: ${runs} waiting after ${start.seconds.toFixed(1)} s (worker ${start.worker.toFixed(1)} % ` +
        `while starting, ${resent} submits sent again), peak RSS ${peakRssMb.toFixed(0)} MB; the window opens ` +
        `${options.settleMs / 1000} s on`,
    );

    await sleep(options.settleMs);
    const threadsBefore = threadTicks(known.worker);
    const before = usageOf(known);
    const rss: number[] = [];
    while (Date.now() - before.at < windowMs) {
      await sleep(1_000);
      rss.push(processUsage(known.worker).rssMb);
    }
    const after = usageOf(known);
    const wait = percentBetween(before, after);
    const looks = stack.countSince(before.at, LOOK, 'GET');
    // By thread: the JS threads (the main one, named node, and the workflow thread) against the SDK's native core.
    const split = threadSplit(threadsBefore, threadTicks(known.worker), wait.seconds);
    // Calls other than looks in the window would be starts still going on: the window would not be the wait alone.
    const others = stack.countSince(before.at, /\/v1\//) - looks;
    log(
      `${options.label}: window of ${wait.seconds.toFixed(0)} s, ${looks} looks and ` +
        `${others} other calls; worker threads: ${split}`,
    );
    return {
      idleRssMb,
      startSeconds: start.seconds,
      startCpuPercent: start.worker,
      peakRssMb,
      waitRssMb: Math.max(...rss),
      cpuPercent: wait.worker,
      looksPerSecond: looks / wait.seconds,
      cpuMsPerLook: looks > 0 ? ((after.worker - before.worker) * 1000) / looks : NaN,
      simulatorCpuPercent: wait.simulator,
      temporalCpuPercent: wait.temporal,
      machineCpuPercent: wait.machine,
    };
  } finally {
    clearInterval(sampler);
    clearInterval(slicer);
    await stack.stopWorker(worker);
    // Ended, so that no round's runs weigh on the dev server in the next one.
    for (let i = 0; i < handles.length; i += 100) {
      await Promise.all(
        handles.slice(i, i + 100).map((h) => h.terminate('benchmark round over').catch(() => undefined)),
      );
    }
  }
}

export async function manyWaiters(
  stack: BenchStack,
  options: { quick: boolean; rounds: number; log: (line: string) => void },
): Promise<Measurement[]> {
  const runs = options.quick ? 200 : 1_000;
  const settleMs = options.quick ? 10_000 : 20_000;
  const windowMs = options.quick ? 30_000 : 90_000;
  await stack.control.addPolicy({ requiredApprovals: 1, approvalWindowHours: 48, executionWindowHours: 24 });
  const samples: Record<Mode, Sample[]> = { watch: [], attempts: [] };
  for (let round = 0; round < options.rounds; round++) {
    const order: Mode[] = round % 2 ? ['attempts', 'watch'] : ['watch', 'attempts'];
    for (const mode of order) {
      const label = `${mode}-r${round + 1}`;
      samples[mode].push(await oneRound(stack, { runs, settleMs, windowMs, mode, label, log: options.log }));
    }
  }
  const m = (mode: Mode, key: keyof Sample) => median(samples[mode].map((s) => s[key]));
  const base = 'one activity task per look (RUNBOOKS_WAIT_LOOKS=attempts)';
  const window = `${windowMs / 1000} s window opening ${settleMs / 1000} s after the last submit`;
  const notes = (what: string) => `${runs} waiting restores, ${options.rounds} rounds interleaved; ${what}`;
  const metric = (name: string, key: keyof Sample, unit: string, what: string, goal?: { text: string; max: number }) =>
    compared(
      `${runs} waiters: ${name}`,
      unit,
      m('watch', key),
      { name: base, value: m('attempts', key) },
      goal ? { text: goal.text, met: (_r, value) => value <= goal.max } : undefined,
      notes(what),
    );
  const worker = 'the worker process alone (node dist/worker/main.js, /proc/<pid>/stat)';
  return [
    metric('worker RSS before any run', 'idleRssMb', 'MB', worker),
    metric('time to start them', 'startSeconds', 's', 'from the first start to the last submit'),
    metric('worker CPU while starting them', 'startCpuPercent', '%', `${worker}; the start, not the wait`),
    metric('worker peak RSS', 'peakRssMb', 'MB', `${worker}; start and wait`),
    metric('worker RSS while they wait', 'waitRssMb', 'MB', `${worker}; peak over the ${window}`, {
      text: '≤600 MB',
      max: 600,
    }),
    metric('worker CPU while they wait', 'cpuPercent', '%', `${worker}; % of one core over the ${window}`, {
      text: '≤10%',
      max: 10,
    }),
    metric('looks while they wait', 'looksPerSecond', '/s', `GETs of a request at the proxy over the ${window}`),
    metric('worker CPU per look', 'cpuMsPerLook', 'ms', `the worker's CPU over the ${window}, per look`),
    metric('simulator CPU while they wait', 'simulatorCpuPercent', '%', `its own process; the ${window}`),
    metric('Temporal dev server CPU while they wait', 'temporalCpuPercent', '%', `its own process; the ${window}`),
    metric('machine CPU while they wait', 'machineCpuPercent', '%', `every process, in % of one core; the ${window}`),
  ];
}
