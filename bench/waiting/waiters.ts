// Many approval-gated restores waiting on one worker: how long they take to start, and what the worker and the
// simulator spend while they wait, with the worker's bounded cache against a cache that holds every run (as before).
import { compared, median, type Measurement } from '../measure';
import { DEFAULT_MAX_CACHED_WORKFLOWS } from '../../runtime/config';
import { startWaiting } from './approval';
import { processUsage, restoreTargets, sleep, type BenchStack } from './stack';

/** Large enough to hold every waiting run: the SDK's default on this heap held them all. */
const UNBOUNDED = 100_000;
const SUBMIT = /\/action-approvals\/my-requests\/[^/]+\/submit$/;

interface Sample {
  /** Before any run: what the process holds for itself (Node, the SDK's core, the workflow bundle's context). */
  idleRssMb: number;
  startSeconds: number;
  peakRssMb: number;
  waitRssMb: number;
  cpuPercent: number;
  simulatorCallsPerMinute: number;
  simulatorCpuPercent: number;
}

async function oneRound(
  stack: BenchStack,
  options: { runs: number; windowMs: number; cache: number; label: string; log: (line: string) => void },
): Promise<Sample> {
  const { runs, windowMs, cache, log } = options;
  const taskQueue = `bench-waiters-${options.label}-${Date.now()}`;
  const worker = await stack.startWorker(taskQueue, { RUNBOOKS_MAX_CACHED_WORKFLOWS: String(cache) });
  const pid = worker.pid;
  const simPid = stack.simulator.pid;
  if (pid === undefined || simPid === undefined) throw new Error('no worker or simulator process');
  try {
    const { targets, restoreAccountId } = await restoreTargets(stack);
    await sleep(2_000);
    const idleRssMb = processUsage(pid).rssMb;
    let peakRssMb = 0;
    const sampler = setInterval(() => {
      peakRssMb = Math.max(peakRssMb, processUsage(pid).rssMb);
    }, 250);
    const t0 = Date.now();
    try {
      for (let i = 0; i < runs; i += 50) {
        await Promise.all(
          Array.from({ length: Math.min(50, runs - i) }, (_, j) =>
            startWaiting(stack, taskQueue, targets[(i + j) % targets.length] ?? targets[0]!, restoreAccountId),
          ),
        );
      }
      // Started: every run has submitted its request and waits.
      while (stack.countSince(t0, SUBMIT, 'POST') < runs) {
        if (Date.now() - t0 > 30 * 60_000) throw new Error(`only ${stack.countSince(t0, SUBMIT, 'POST')} started`);
        await sleep(200);
      }
      const startSeconds = (Date.now() - t0) / 1000;
      log(`${options.label}: ${runs} waiting after ${startSeconds.toFixed(1)} s, peak RSS ${peakRssMb.toFixed(0)} MB`);

      const before = processUsage(pid);
      const simBefore = processUsage(simPid);
      const windowStart = Date.now();
      const rss: number[] = [];
      while (Date.now() - windowStart < windowMs) {
        await sleep(1_000);
        rss.push(processUsage(pid).rssMb);
      }
      const elapsed = (Date.now() - windowStart) / 1000;
      const after = processUsage(pid);
      const simAfter = processUsage(simPid);
      return {
        idleRssMb,
        startSeconds,
        peakRssMb,
        waitRssMb: Math.max(...rss),
        cpuPercent: ((after.cpuSeconds - before.cpuSeconds) / elapsed) * 100,
        simulatorCallsPerMinute: (stack.countSince(windowStart, /\/v1\//) / elapsed) * 60,
        simulatorCpuPercent: ((simAfter.cpuSeconds - simBefore.cpuSeconds) / elapsed) * 100,
      };
    } finally {
      clearInterval(sampler);
    }
  } finally {
    // Its runs stay behind on their own task queue, unpolled: the next round starts from a new worker.
    await stack.stopWorker(worker);
  }
}

export async function manyWaiters(
  stack: BenchStack,
  options: { quick: boolean; rounds: number; log: (line: string) => void },
): Promise<Measurement[]> {
  const runs = options.quick ? 200 : 1_000;
  const windowMs = options.quick ? 20_000 : 60_000;
  await stack.control.addPolicy({ requiredApprovals: 1, approvalWindowHours: 48, executionWindowHours: 24 });
  const bounded: Sample[] = [];
  const unbounded: Sample[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 ? (['unbounded', 'bounded'] as const) : (['bounded', 'unbounded'] as const);
    for (const kind of order) {
      const cache = kind === 'bounded' ? DEFAULT_MAX_CACHED_WORKFLOWS : UNBOUNDED;
      const sample = await oneRound(stack, { runs, windowMs, cache, label: `${kind}-r${round + 1}`, log: options.log });
      (kind === 'bounded' ? bounded : unbounded).push(sample);
    }
  }
  const m = (samples: Sample[], key: keyof Sample) => median(samples.map((s) => s[key]));
  const base = `cache of every run (${UNBOUNDED})`;
  const notes = `${runs} waiting restores, ${windowMs / 1000} s window, ${options.rounds} rounds interleaved`;
  const metric = (name: string, key: keyof Sample, unit: string, goal?: { text: string; max: number }) =>
    compared(
      `${runs} waiters: ${name}`,
      unit,
      m(bounded, key),
      { name: base, value: m(unbounded, key) },
      goal ? { text: goal.text, met: (_r, value) => value <= goal.max } : undefined,
      notes,
    );
  return [
    metric('worker RSS before any run', 'idleRssMb', 'MB'),
    metric('time to start them', 'startSeconds', 's'),
    metric('worker peak RSS while starting', 'peakRssMb', 'MB'),
    metric('worker RSS while they wait', 'waitRssMb', 'MB', { text: '≤600 MB', max: 600 }),
    metric('worker CPU while they wait', 'cpuPercent', '%', { text: '≤10%', max: 10 }),
    metric('simulator calls while they wait', 'simulatorCallsPerMinute', '/min'),
    metric('simulator CPU while they wait', 'simulatorCpuPercent', '%'),
  ];
}
