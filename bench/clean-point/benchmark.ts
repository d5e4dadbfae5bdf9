// `npm run bench -- --only clean-point`: queries per search of the cleanPoint runbook (workflow on a dev server, worker
// process, simulator) over 8, 32 and 128 daily snapshots, against a scan from the newest measured on the same points.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BackupServiceClient } from '../../api';
import { linearScanProbes, probeBound } from '../../runbooks/clean-point/bisect';
import type { CleanCheck } from '../../runbooks/clean-point/check';
import type { cleanPoint } from '../../runbooks/clean-point/workflow';
import { compared, median, type Benchmark, type Measurement } from '../measure';
import { BenchStack } from '../waiting/stack';
import { corruptNewest, dailySnapshots, encryptedEmailsCheck, seededTargets, type SnapshotWindow } from './fixture';
import { linearScan } from './linear-scan';

const TASK_QUEUE = 'bench-clean-point';
const FULL = [8, 32, 128];
const QUICK = [8, 32];
/** The service's query call, as the proxy sees it. */
const QUERY_CALL = /\/snapshots\/[^/]+\/databases\/query$/;

/** How many of the newest snapshots are corrupted: every count from 0 (none) to n (all: no point is clean). */
const corruptionPoints = (n: number) => Array.from({ length: n + 1 }, (_, corrupted) => corrupted);
/**
 * The scan runs for real at every corruption point up to 32 candidates; over more, at a spread of them (each point
 * it checks is a database the simulator builds): none, the newest, an eighth, a quarter, half, three quarters, all
 * but the oldest, all.
 */
const scanned = (n: number, corrupted: number) =>
  n <= 32 || [0, 1, n / 8, n / 4, n / 2, (3 * n) / 4, n - 1, n].includes(corrupted);

/** One search or scan: its answer, the queries it says it ran, and those the proxy and the simulator counted. */
interface Run {
  corrupted: number;
  clean: number | 'none';
  queries: number;
  /** Query calls the service accepted (202), and those it refused (a 401 for a token the clock aged, then retried). */
  atProxy: number;
  refusedAtProxy: number;
  atSimulator: number;
  ms: number;
}

/** Query calls through the proxy, by the time and status of their answer. */
type QueryCalls = { at: number; status?: number }[];

async function counted(
  stack: BenchStack,
  calls: QueryCalls,
  corrupted: number,
  run: () => Promise<{ clean: number | 'none'; queries: number }>,
): Promise<Run> {
  const before = (await stack.control.state()).counts.queries;
  const from = Date.now();
  const { clean, queries } = await run();
  const ms = Date.now() - from;
  const atSimulator = (await stack.control.state()).counts.queries - before;
  const answered = calls.filter((c) => c.at >= from);
  const atProxy = answered.filter((c) => c.status === 202).length;
  return { corrupted, clean, queries, atProxy, refusedAtProxy: answered.length - atProxy, atSimulator, ms };
}

async function search(
  stack: BenchStack,
  window: SnapshotWindow,
  check: CleanCheck,
  restoreAccountId: string,
  corrupted: number,
): Promise<{ clean: number | 'none'; queries: number; linearScan: number }> {
  const { resourceId, windowDays, before, snapshotIds } = window;
  const result = await stack.client.workflow.execute<typeof cleanPoint>('cleanPoint', {
    taskQueue: TASK_QUEUE,
    workflowId: `bench-clean-point-${snapshotIds.length}-${corrupted}-${Date.now()}`,
    args: [{ resourceId, restoreAccountId, windowDays, before, check }],
  });
  if (result.window.candidates !== snapshotIds.length) {
    throw new Error(`the search saw ${result.window.candidates} candidates, not ${snapshotIds.length}`);
  }
  return { clean: result.clean?.index ?? 'none', queries: result.queries.run, linearScan: result.queries.linearScan };
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const sumOf = (runs: Run[], key: 'queries' | 'atProxy' | 'refusedAtProxy' | 'atSimulator') =>
  runs.reduce((a, r) => a + r[key], 0);
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const spread = (runs: Run[]) =>
  `median ${seconds(median(runs.map((r) => r.ms)))}, max ${seconds(Math.max(...runs.map((r) => r.ms)))}`;

/**
 * Per n: the search's worst and mean queries against the scan's over every corruption point (`linearScanProbes`,
 * which the scans run for real and the result's `queries.linearScan` must match), and its wall time.
 */
function measured(n: number, searches: Run[], scans: Run[], linearScanSaid: Map<number, number>): Measurement[] {
  const bound = probeBound(n);
  const searched = searches.map((r) => r.queries);
  const baseline = searches.map((r) => linearScanProbes(n, r.corrupted));
  const worst = Math.max(...searched);
  const counts = (runs: Run[]) =>
    `${sumOf(runs, 'queries')} said, ${sumOf(runs, 'atProxy')} at the proxy (${sumOf(runs, 'refusedAtProxy')} ` +
    `refused there and retried), ${sumOf(runs, 'atSimulator')} at the simulator`;
  const disagree = searches
    .filter((r) => linearScanSaid.get(r.corrupted) !== linearScanProbes(n, r.corrupted))
    .concat(scans.filter((r) => r.queries !== linearScanProbes(n, r.corrupted)))
    .map((r) => r.corrupted);
  const points = `${searches.length} corruption points (0 to ${n} of the newest snapshots corrupted)`;
  const scansRun =
    scans.length === searches.length
      ? 'the scan run for real at every point'
      : `the scan run for real at ${scans.length} (${scans.map((r) => r.corrupted).join(', ')} corrupted)`;
  return [
    compared(
      `${n} candidates: queries per search, worst`,
      'queries',
      worst,
      { name: 'linear scan from the newest, worst', value: Math.max(...baseline) },
      { text: `≤${bound} (⌈log2 n⌉ + 1)`, met: (_ratio, value) => value <= bound },
      `${points}; the search's worst at ${searched.filter((q) => q === worst).length} of them`,
    ),
    compared(
      `${n} candidates: queries per search, mean`,
      'queries',
      mean(searched),
      { name: 'linear scan from the newest, mean', value: mean(baseline) },
      undefined,
      `${points}; ${scansRun}: ` +
        (disagree.length === 0
          ? 'linearScanProbes, the measured scan and the result’s queries.linearScan agree at every point'
          : `linearScanProbes disagrees at ${disagree.join(', ')} corrupted`) +
        `; queries of the searches: ${counts(searches)}; of the scans: ${counts(scans)}`,
    ),
    {
      metric: `${n} candidates: wall time per search`,
      unit: 's',
      value: median(searches.map((r) => r.ms)) / 1000,
      notes: `${searches.length} searches: ${spread(searches)}; the scans (no workflow): ${spread(scans)}`,
    },
  ];
}

export const cleanPointBenchmark: Benchmark = {
  name: 'clean-point',
  async run({ quick, log }) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-clean-point-'));
    const stack = await BenchStack.start(dir, log, { persist: false });
    const worker = await stack.startWorker(TASK_QUEUE);
    try {
      // The scan's client goes through the proxy too, so that the proxy counts its queries as it counts the worker's.
      const client = new BackupServiceClient({
        baseUrl: stack.proxy.baseUrl,
        projectId: stack.projectId,
        credentials: await stack.control.credentials(),
      });
      await stack.control.jobsConfig({ querySeconds: 0 });
      const targets = await seededTargets(stack.service, stack.control);
      // Two days on: the seeded snapshots fall out of every window.
      await stack.control.advanceClock(2 * 86_400);
      const calls: QueryCalls = [];
      stack.proxy.watch((r) => {
        if (r.method === 'POST' && QUERY_CALL.test(r.path)) calls.push({ at: r.at, status: r.status });
      });
      const out: Measurement[] = [];
      for (const [i, n] of (quick ? QUICK : FULL).entries()) {
        const target = targets.resources[i];
        if (!target) throw new Error(`the seeded simulator has ${targets.resources.length} relational databases`);
        const window = await dailySnapshots(stack.service, stack.control, target.resourceId, targets.vaultId, n);
        const check = encryptedEmailsCheck(target.databaseName, targets.region);
        const { restoreAccountId } = targets;
        const searches: Run[] = [];
        const scans: Run[] = [];
        const linearScanSaid = new Map<number, number>();
        for (const corrupted of corruptionPoints(n)) {
          await corruptNewest(stack.control, window, corrupted);
          const expected = corrupted < n ? corrupted : 'none';
          const s = await counted(stack, calls, corrupted, async () => {
            const found = await search(stack, window, check, restoreAccountId, corrupted);
            linearScanSaid.set(corrupted, found.linearScan);
            return found;
          });
          if (s.clean !== expected) throw new Error(`${n} candidates, ${corrupted} corrupted: search found ${s.clean}`);
          searches.push(s);
          let line =
            `${n} candidates, newest ${corrupted} corrupted: search ${s.queries} queries ` +
            `(proxy ${s.atProxy}, simulator ${s.atSimulator}) in ${seconds(s.ms)}`;
          if (scanned(n, corrupted)) {
            const l = await counted(stack, calls, corrupted, () =>
              linearScan(client, window.snapshotIds, check, restoreAccountId),
            );
            if (l.clean !== expected) throw new Error(`${n} candidates, ${corrupted} corrupted: scan found ${l.clean}`);
            scans.push(l);
            line += `; scan ${l.queries} (proxy ${l.atProxy}, simulator ${l.atSimulator}) in ${seconds(l.ms)}`;
          }
          log(line);
        }
        out.push(...measured(n, searches, scans, linearScanSaid));
      }
      return out;
    } finally {
      await stack.stopWorker(worker);
      await stack.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
