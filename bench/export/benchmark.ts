import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { QueryExportInput, QueryExportResult } from '../../runbooks/query-export/contract';
import { MAX_RESULTS_PAGE } from '../../simulator/routes/queries';
import { completedOf, eventTime, startedOf } from '../history-times';
import { compared, median, type Benchmark, type Measurement } from '../measure';
import { fetchLimit, naiveExport, tokenOf, type ResultsEndpoint } from './baselines';
import { PeakSampler } from './memory';
import { ExportStack } from './stack';

const ROUNDS = 3;
const LATENCIES = [0, 20];
const QUERY = 'SELECT * FROM events_large';
const label = (rows: number) => (rows >= 1_000_000 ? `${rows / 1_000_000}M` : `${rows / 1_000}k`);

interface Case {
  rows: number;
  latencyMs: number;
  limit: number[];
  naive: number[];
  runbook: number[];
  /** The runbook's export activity alone (results pages to a synced file), from its history. */
  pages: number[];
}

interface ExportRun {
  ms: number;
  /** The export activity, started to completed (history event times): the pages without the runbook around them. */
  pagesMs: number;
  events: number;
  worker: { idle: number; peak: number };
  simulator: { idle: number; peak: number };
}

/** One export by the runbook on the worker process, from start to result, with both processes' memory. */
async function runbookExport(stack: ExportStack, rows: number, pageSize?: number): Promise<ExportRun> {
  const workerPid = stack.worker.pid;
  const simulatorPid = stack.simulator.pid;
  if (workerPid === undefined || simulatorPid === undefined) throw new Error('the worker or the simulator is down');
  const { target } = stack;
  const id = `bench-export-${rows}-${Date.now()}`;
  const input: QueryExportInput = {
    snapshotId: target.snapshotId,
    query: {
      databaseName: target.databaseName,
      query: QUERY,
      restoreAccountId: target.restoreAccountId,
      destination: { bucketA: { bucketName: target.bucketName, prefix: 'bench' } },
    },
    fileName: `${id}.csv`,
    ...(pageSize === undefined ? {} : { pageSize }),
  };
  const worker = new PeakSampler(workerPid);
  const simulator = new PeakSampler(simulatorPid);
  const began = performance.now();
  const handle = await stack.client.workflow.start('queryExport', {
    taskQueue: stack.taskQueue,
    workflowId: id,
    args: [input],
  });
  const result = (await handle.result()) as QueryExportResult;
  const ms = performance.now() - began;
  const memory = { worker: worker.stop(), simulator: simulator.stop() };
  if (result.export.rows !== rows) throw new Error(`the export wrote ${result.export.rows} rows, not ${rows}`);
  rmSync(result.export.path, { force: true });
  const events = (await handle.fetchHistory()).events ?? [];
  const scheduled = events.find(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'exportQueryResults',
  );
  const pagesMs = eventTime(completedOf(events, scheduled)) - eventTime(startedOf(events, scheduled));
  return { ms, pagesMs, events: events.length, ...memory };
}

/** A completed query of the generated table, for the baselines to read. */
async function completedQuery(stack: ExportStack): Promise<string> {
  const { target } = stack;
  const queryId = await stack.service.runQuery(target.snapshotId, {
    databaseName: target.databaseName,
    query: QUERY,
    restoreAccountId: target.restoreAccountId,
    destination: { bucketA: { bucketName: target.bucketName, prefix: 'bench' } },
  });
  while ((await stack.service.getQueryStatus(queryId)).status !== 'COMPLETED') await sleep(50);
  return queryId;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function timed(work: () => Promise<unknown>): Promise<number> {
  const began = performance.now();
  await work();
  return performance.now() - began;
}

export const exportBenchmark: Benchmark = {
  name: 'export',
  async run({ quick, log }): Promise<Measurement[]> {
    const sizes = quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];
    const dir = mkdtempSync(join(tmpdir(), 'bench-export-'));
    const stack = await ExportStack.start(dir, log);
    const cases: Case[] = [];
    const exports = new Map<number, ExportRun[]>();
    try {
      const token = await tokenOf(stack.control.baseUrl, stack.credentials);
      // One small export first: the worker's and the simulator's code is warm before anything is timed.
      await stack.control.generatedTable(sizes[0] ?? 10_000);
      await runbookExport(stack, sizes[0] ?? 10_000);
      for (const rows of sizes) {
        await stack.control.generatedTable(rows);
        for (const latencyMs of LATENCIES) {
          await stack.control.latency(latencyMs);
          const c: Case = { rows, latencyMs, limit: [], naive: [], runbook: [], pages: [] };
          const ep: ResultsEndpoint = {
            baseUrl: stack.control.baseUrl,
            projectId: stack.projectId,
            queryId: await completedQuery(stack),
            token,
          };
          const naiveFile = join(dir, 'naive.csv');
          for (let round = 1; round <= ROUNDS; round++) {
            c.limit.push(await timed(() => fetchLimit(ep, MAX_RESULTS_PAGE)));
            c.naive.push(await timed(() => naiveExport(ep, naiveFile)));
            const run = await runbookExport(stack, rows);
            c.runbook.push(run.ms);
            c.pages.push(run.pagesMs);
            exports.set(rows, [...(exports.get(rows) ?? []), run]);
            const ms = (xs: number[]) => `${(xs.at(-1) ?? NaN).toFixed(0)} ms`;
            log(
              `${label(rows)} rows, ${latencyMs} ms latency, round ${round}: limit ${ms(c.limit)}, naive ${ms(c.naive)}, runbook ${ms(c.runbook)} (its export activity ${ms(c.pages)})`,
            );
          }
          rmSync(naiveFile, { force: true });
          cases.push(c);
        }
      }
      await stack.control.latency(0);
      // Memory at a smaller page size: more pages, each smaller.
      const smallPages = sizes[1] ?? 100_000;
      await stack.control.generatedTable(smallPages);
      const paged = await runbookExport(stack, smallPages, 1_000);
      return report(cases, exports, { rows: smallPages, pageSize: 1_000, run: paged }, quick);
    } finally {
      await stack.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

function report(
  cases: Case[],
  exports: Map<number, ExportRun[]>,
  paged: { rows: number; pageSize: number; run: ExportRun },
  quick: boolean,
): Measurement[] {
  const out: Measurement[] = [];
  const notes = `${ROUNDS} interleaved rounds (limit, naive, runbook), medians`;
  for (const c of cases) {
    const name = `export ${label(c.rows)} rows, ${c.latencyMs} ms latency`;
    const runbook = median(c.runbook);
    const limit = { name: `limit (raw undici, pageSize ${MAX_RESULTS_PAGE})`, value: median(c.limit) };
    const naive = { name: 'naive script (pageSize default 500)', value: median(c.naive) };
    const goal = c.rows === 1_000_000 && c.latencyMs === 20;
    out.push(
      compared(
        `${name} vs limit`,
        'ms',
        runbook,
        limit,
        goal ? { text: '≤1.10×', met: (r) => r <= 1.1 } : undefined,
        notes,
      ),
      compared(
        `${name} vs naive`,
        'ms',
        runbook,
        naive,
        goal ? { text: '≤0.67× (≥1.5× faster)', met: (r) => r <= 1 / 1.5 } : undefined,
        notes,
      ),
      // Where the runbook's time goes: its export activity against the limit; the rest is the run around it.
      compared(
        `${name}: the export activity alone vs limit`,
        'ms',
        median(c.pages),
        limit,
        undefined,
        `${notes}; the activity's start to its completion in the run's history (no query, wait or workflow tasks)`,
      ),
    );
  }
  const eventCounts = new Set<number>();
  const memoryRows = [...exports.entries()].map(([rows, runs]) => ({
    what: `${label(rows)} rows, pageSize default`,
    rows,
    runs,
  }));
  memoryRows.push({
    what: `${label(paged.rows)} rows, pageSize ${paged.pageSize}`,
    rows: paged.rows,
    runs: [paged.run],
  });
  for (const { what, rows, runs } of memoryRows) {
    const added = Math.max(...runs.map((r) => r.worker.peak - r.worker.idle));
    const idle = median(runs.map((r) => r.worker.idle));
    out.push({
      metric: `worker memory added, ${what}`,
      unit: 'MiB',
      value: added,
      baseline: { name: 'worker idle RSS', value: idle },
      goal: '≤50 MiB over idle',
      met: added <= 50,
      notes: 'largest peak minus idle VmRSS over the runs of this size',
    });
    const simPeak = Math.max(...runs.map((r) => r.simulator.peak));
    out.push({
      metric: `simulator peak RSS, ${what}`,
      unit: 'MiB',
      value: simPeak,
      baseline: { name: 'simulator idle RSS', value: median(runs.map((r) => r.simulator.idle)) },
      ...(rows === 1_000_000 ? { goal: '≤500 MiB', met: simPeak <= 500 } : {}),
    });
    for (const r of runs) eventCounts.add(r.events);
    out.push({
      metric: `history events, ${what}`,
      unit: 'events',
      value: Math.max(...runs.map((r) => r.events)),
      goal: '≤40',
      met: runs.every((r) => r.events <= 40),
    });
  }
  out.push({
    metric: 'history events the same for every size',
    unit: 'distinct counts',
    value: eventCounts.size,
    goal: '1',
    met: eventCounts.size === 1,
    ...(quick ? { notes: 'quick run: 10k and 100k only' } : {}),
  });
  return out;
}
